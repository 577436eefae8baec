#!/usr/bin/env python3
"""Writes an EM trace of about N operations with three outcomes at any size (the scaling
case): thread 1 attaches a queue and loops; threads 2, 3 and 4 are forked and post messages
1..M to it in turn (message i from thread 2 + i mod 3), each handled right after it is posted,
as recorded. Every handler reads a field of its own and writes it, except three handlers, posted
by three different threads at about a quarter, a half and three quarters of the trace, which
write one shared field instead: the three outcomes are its three possible final writes.
Usage: gen_race3.py N > trace.txt"""
import sys

from em_prelude import write_looper_and_posters

n = int(sys.argv[1])
POSTERS = 3
per_msg = 5
m = max(3, (n - 10) // per_msg)
# Three messages from three different posters (i mod 3 = 0, 1, 2), spread over the trace.
racing = {3 * (m // 12) + k * (3 * (m // 12) + 1) for k in range(3)}
assert len({i % 3 for i in racing}) == 3 and max(racing) <= m and min(racing) >= 1, racing
out = sys.stdout
idx = write_looper_and_posters(out, POSTERS)
for msg in range(1, m + 1):
    src = 2 + msg % POSTERS
    out.write(f"{idx} POST src:{src} msg:{msg} dest:1\n")
    out.write(f"{idx + 1} CALL tid:1 msg:{msg}\n")
    out.write(f"{idx + 2} READ tid:1 obj:0x1 class:C; field:f{msg}\n")
    field = "shared" if msg in racing else f"f{msg}"
    out.write(f"{idx + 3} WRITE tid:1 obj:0x1 class:C; field:{field}\n")
    out.write(f"{idx + 4} RET tid:1 msg:{msg}\n")
    idx += 5
