#!/usr/bin/env python3
"""Issue 27's scaling benchmark: `optimal`, `em-dpor` and `dpor-sleep` on the traces of
benches/gen_race3.py (three outcomes at any size) and benches/gen_mix.py (the TACAS mix: many
threads and handlers, few races) from 1,000 to 1,000,000 operations, for two binaries side by
side in one run (OLD, e.g. main's build, and NEW). Each run has --time-limit SECONDS (default
30) and --max-memory 2000; wall time and peak RSS come from /usr/bin/time (loading included).
Prints one markdown row per run, then the growth exponent of `optimal` from 10k to 1M per binary
(log(t1M / t10k) / log(100), over the runs that finished).
Usage: scaling.py OLD NEW [SECONDS] [SIZES] [STRATEGIES]
  (SIZES comma-separated, default 1000,10000,100000,1000000; STRATEGIES comma-separated, default
  optimal,em-dpor,dpor-sleep)"""
import json, math, pathlib, subprocess, sys, tempfile

old, new = sys.argv[1], sys.argv[2]
limit = sys.argv[3] if len(sys.argv) > 3 else "30"
sizes = [int(s) for s in (sys.argv[4] if len(sys.argv) > 4 else "1000,10000,100000,1000000").split(",")]
here = pathlib.Path(__file__).resolve().parent
tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracepor-scaling-"))
strategies = (sys.argv[5] if len(sys.argv) > 5 else "optimal,em-dpor,dpor-sleep").split(",")


def run(binary, trace, strategy):
    # An outer timeout too: a binary whose limits do not hold must not stall the table.
    cmd = ["/usr/bin/time", "-f", "%e %M", "timeout", str(int(float(limit) * 3) + 30), binary, "check", str(trace),
           "--strategy", strategy, "--json", "--no-progress", "--time-limit", limit, "--max-memory", "2000"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall, rss = p.stderr.strip().splitlines()[-1].split()[-2:]
    try:
        d = json.loads(p.stdout)
        how = "finished" if d["finished"] else f"stopped ({d['stopped_by']})"
        return float(wall), int(rss) / 1024, d["executions"], d["outcomes"], how, d["finished"]
    except (json.JSONDecodeError, KeyError):
        return float(wall), int(rss) / 1024, None, None, f"no answer (exit {p.returncode})", False


print("| generator | operations | strategy | binary | time (s) | peak memory (MB) | executions | outcomes | result |")
print("|---|---:|---|---|---:|---:|---:|---:|---|")
times = {}
for gen in ["gen_race3", "gen_mix"]:
    for n in sizes:
        trace = tmp / f"{gen}-{n}.txt"
        with open(trace, "w") as f:
            subprocess.run([sys.executable, str(here / f"{gen}.py"), str(n)], stdout=f, check=True)
        for s in strategies:
            for label, binary in [("old", old), ("new", new)]:
                wall, mb, ex, oc, how, fin = run(binary, trace, s)
                if fin:
                    times[(gen, n, s, label)] = wall
                print(f"| {gen} | {n:,} | {s} | {label} | {wall:.2f} | {mb:.0f} | {ex if ex is not None else '-'} | "
                      f"{oc if oc is not None else '-'} | {how} |", flush=True)
        trace.unlink()
for gen in ["gen_race3", "gen_mix"]:
    for label in ["old", "new"]:
        a, b = times.get((gen, 10000, "optimal", label)), times.get((gen, 1000000, "optimal", label))
        if a and b:
            print(f"{gen} optimal {label}: 10k -> 1M growth n^{math.log(b / a) / math.log(100):.2f}")
        else:
            print(f"{gen} optimal {label}: 10k -> 1M growth not measured (a run did not finish)")
