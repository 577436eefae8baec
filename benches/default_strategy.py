#!/usr/bin/env python3
"""Whether `optimal` is at least as fast as `em-dpor` on every shipped EM trace:
the 33 EM-Explorer traces (../shared/traces/em-explorer), fixtures/em and traces/android, each
strategy with --time-limit SECONDS (default 60), the least time_s (the search, loading excluded)
of REPEAT runs (default 5: the small traces take tens of microseconds, where one run is noise).
Prints one row per trace and the count of traces where optimal is slower.
Usage: default_strategy.py BINARY [SECONDS] [REPEAT]"""
import json, pathlib, subprocess, sys

binary = sys.argv[1]
limit = sys.argv[2] if len(sys.argv) > 2 else "60"
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 5
repo = pathlib.Path(__file__).resolve().parent.parent
dirs = sorted(p.parent for p in (repo.parent / "shared/traces/em-explorer").rglob("trace.txt"))
dirs += sorted(p.parent for p in (repo / "fixtures/em").rglob("trace.txt"))
dirs += sorted(p.parent for p in (repo / "traces/android").rglob("trace.txt"))


def run(d, s):
    best = None
    for _ in range(repeat):
        p = subprocess.run([binary, "check", str(d), "--strategy", s, "--json", "--no-progress", "--time-limit",
                            limit, "--max-memory", "2000"], capture_output=True, text=True)
        j = json.loads(p.stdout)
        if best is None or j["time_s"] < best[0]:
            best = (j["time_s"], j["finished"], j["executions"], j["outcomes"])
        if j["time_s"] > 1:
            break
    return best


slower = 0
print("| trace | optimal ms | executions / outcomes | em-dpor ms | executions / outcomes | optimal not slower |")
print("|---|---:|---|---:|---|---|")
for d in dirs:
    to, fo, eo, oo = run(d, "optimal")
    te, fe, ee, oe = run(d, "em-dpor")
    # Not slower: finished, and no slower than em-dpor (or em-dpor did not finish).
    ok = fo and (to <= te or not fe)
    slower += not ok
    name = d.relative_to(repo.parent) if "shared" in str(d) else d.relative_to(repo)
    print(f"| {name} | {to * 1e3:.3f}{'' if fo else ' (stopped)'} | {eo} / {oo} | {te * 1e3:.3f}{'' if fe else ' (stopped)'} | "
          f"{ee} / {oe} | {'yes' if ok else 'NO'} |", flush=True)
print(f"optimal slower (or unfinished) on {slower} of {len(dirs)} traces")
