#!/usr/bin/env python3
"""Runs two tracepor binaries on the 28 EM-Explorer benchmark traces and the 5 TACAS 2016 traces
with the DPOR-family strategies, and compares what they report (executions, transitions,
outcomes, deadlocks, errors). A change that should not alter the search (e.g. the clocks'
representation) must give identical counts on every run both binaries finish.
Usage: compare_counts.py OLD NEW [SECONDS]   (time limit per run, default 20)"""
import json, pathlib, subprocess, sys

old, new = sys.argv[1], sys.argv[2]
limit = sys.argv[3] if len(sys.argv) > 3 else "20"
root = pathlib.Path(__file__).resolve().parent.parent.parent / "shared/traces/em-explorer"
traces = sorted(p.parent for p in (root / "benchmark-traces").rglob("trace.txt"))
traces += sorted(p for p in (root / "tacas-2016").iterdir() if (p / "trace.txt").is_file())
strategies = ["dpor", "dpor-sleep", "em-dpor", "em-dpor-sleep", "optimal", "stateful-dpor"]
KEYS = ["executions", "transitions", "outcomes", "deadlocks", "errors"]


def run(binary, trace, strategy):
    out = subprocess.run([binary, "check", str(trace), "--strategy", strategy, "--json", "--no-progress",
                          "--time-limit", limit], capture_output=True, text=True).stdout
    d = json.loads(out)
    return d["finished"], {k: d[k] for k in KEYS}, d["time_s"]


same = differ = unfinished = 0
for t in traces:
    name = t.relative_to(root)
    for s in strategies:
        fo, a, ta = run(old, t, s)
        fn, b, tb = run(new, t, s)
        if not (fo and fn):
            unfinished += 1
            print(f"unfinished {name} {s}: old {'finished' if fo else 'stopped'} {a['transitions']} transitions, "
                  f"new {'finished' if fn else 'stopped'} {b['transitions']}", flush=True)
        elif a == b:
            same += 1
            print(f"same       {name} {s}: {a['executions']} executions, {a['transitions']} transitions, "
                  f"{a['outcomes']} outcomes ({ta:.2f} s / {tb:.2f} s)", flush=True)
        else:
            differ += 1
            print(f"DIFFER     {name} {s}: old {a} new {b}", flush=True)
print(f"{same} identical, {differ} different, {unfinished} not finished by both (of {len(traces)} traces x {len(strategies)} strategies)")
sys.exit(1 if differ else 0)
