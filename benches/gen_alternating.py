#!/usr/bin/env python3
"""Writes an EM trace of N operations: two threads alternating reads and writes of one field
(the memory case). Usage: gen_alternating.py N > trace.txt"""
import sys

n = int(sys.argv[1])
out = sys.stdout
out.write("1 START\n2 THREADINIT tid:1\n3 FORK par-tid:1 child-tid:2\n4 THREADINIT tid:2\n")
idx = 5
for i in range(max(0, n - 3)):
    tid = 1 + i % 2
    op = "READ" if (i // 2) % 2 == 0 else "WRITE"
    out.write(f"{idx} {op} tid:{tid} obj:0x1 class:C; field:x\n")
    idx += 1
