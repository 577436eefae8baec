#!/usr/bin/env python3
"""Writes an EM trace of about N operations whose number of handlers grows with N (the
clock-width case): thread 1 is a looper; threads 2, 3 and 4 post to it in turn; each message's
handler reads one shared field and writes one of two others (handlers of different posters
race). Every message is handled right after it is posted, as recorded. About N / 5 handlers.
Usage: gen_handlers.py N > trace.txt"""
import sys

from em_prelude import write_looper_and_posters

n = int(sys.argv[1])
POSTERS = 3
out = sys.stdout
idx = write_looper_and_posters(out, POSTERS)
msg = 1
while idx + 5 <= n + 1:
    src = 2 + msg % POSTERS
    out.write(f"{idx} POST src:{src} msg:{msg} dest:1\n")
    out.write(f"{idx + 1} CALL tid:1 msg:{msg}\n")
    out.write(f"{idx + 2} READ tid:1 obj:0x1 class:C; field:s\n")
    out.write(f"{idx + 3} WRITE tid:1 obj:0x1 class:C; field:f{msg % 2}\n")
    out.write(f"{idx + 4} RET tid:1 msg:{msg}\n")
    idx += 5
    msg += 1
