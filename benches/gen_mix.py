#!/usr/bin/env python3
"""Writes an EM trace of about N operations in the TACAS 2016 traces' mix (the second
scaling case): many threads and handlers, few races. Thread 1 (main) writes a configuration
field, attaches its queue, forks two more loopers (threads 2 and 3, each attaching a queue) and
ten workers (threads 4-13), and loops. In turn, a worker takes a lock shared by all workers,
writes its own field, releases the lock, and posts a message to one of the three loopers,
handled right after it is posted; a handler reads the configuration and reads and writes a
field of its own. Four handlers race, two on each of two shared fields (posted by different
workers to different loopers): four outcomes at any size. With --inversion, two threads forked
at the end by two workers take two locks in opposite orders, so that a run can get stuck and
`optimal` runs its pre-pass for stuck end sets.
Usage: gen_mix.py N [--inversion] > trace.txt"""
import sys

n = int(sys.argv[1])
LOOPERS = [1, 2, 3]
WORKERS = list(range(4, 14))
out = sys.stdout
idx = 1
def emit(text):
    global idx
    out.write(f"{idx} {text}\n")
    idx += 1

emit("START")
emit("THREADINIT tid:1")
emit("WRITE tid:1 obj:0x1 class:C; field:config")
emit("ATTACH-Q tid:1 queue:1")
for t in (2, 3):
    emit(f"FORK par-tid:1 child-tid:{t}")
    emit(f"THREADINIT tid:{t}")
    emit(f"ATTACH-Q tid:{t} queue:{t}")
for t in WORKERS:
    emit(f"FORK par-tid:1 child-tid:{t}")
    emit(f"THREADINIT tid:{t}")
for t in LOOPERS:
    emit(f"LOOP tid:{t} queue:{t}")
per_msg = 9
m = max(8, (n - idx) // per_msg)
# Racing messages: (message, shared field); posted by different workers to different loopers.
racing = {m // 5: "s1", 2 * m // 5 + 1: "s1", 3 * m // 5 + 2: "s2", 4 * m // 5 + 3: "s2"}
for msg in range(1, m + 1):
    w = WORKERS[msg % len(WORKERS)]
    dest = LOOPERS[msg % len(LOOPERS)]
    emit(f"LOCK tid:{w} lock-obj:0x99")
    emit(f"WRITE tid:{w} obj:0x1 class:C; field:w{w}")
    emit(f"UNLOCK tid:{w} lock-obj:0x99")
    emit(f"POST src:{w} msg:{msg} dest:{dest}")
    emit(f"CALL tid:{dest} msg:{msg}")
    emit(f"READ tid:{dest} obj:0x1 class:C; field:config")
    emit(f"READ tid:{dest} obj:0x1 class:C; field:f{msg}")
    emit(f"WRITE tid:{dest} obj:0x1 class:C; field:{racing.get(msg, f'f{msg}')}")
    emit(f"RET tid:{dest} msg:{msg}")
if "--inversion" in sys.argv:
    for parent, child, first, second in [(4, 20, "0xa", "0xb"), (5, 21, "0xb", "0xa")]:
        emit(f"FORK par-tid:{parent} child-tid:{child}")
        emit(f"THREADINIT tid:{child}")
        emit(f"LOCK tid:{child} lock-obj:{first}")
        emit(f"LOCK tid:{child} lock-obj:{second}")
        emit(f"UNLOCK tid:{child} lock-obj:{second}")
        emit(f"UNLOCK tid:{child} lock-obj:{first}")
