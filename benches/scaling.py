#!/usr/bin/env python3
"""The scaling benchmark: `optimal`, `em-dpor` and `dpor-sleep` on the traces of
benches/gen_race3.py (three outcomes at any size) and benches/gen_mix.py (the TACAS mix: many
threads and handlers, few races) from 1,000 to 1,000,000 operations, for two binaries side by
side in one run (OLD, e.g. main's build, and NEW). Each run has --time-limit SECONDS (default
30) and --max-memory 2000; wall time and peak RSS come from /usr/bin/time (loading included).
`gen_mix-inversion` is gen_mix.py with --inversion (two threads that can deadlock: `optimal`'s
search for stuck end sets runs). Prints one markdown row per run, then the growth exponent of
`optimal` per binary from 10k to the largest size both runs finished (log(t_big / t_10k) /
log(big / 10k)).
Usage: scaling.py OLD NEW [SECONDS] [SIZES] [STRATEGIES] [GENERATORS]
  (SIZES comma-separated, default 1000,10000,100000,1000000; STRATEGIES comma-separated, default
  optimal,em-dpor,dpor-sleep; GENERATORS comma-separated, default gen_race3,gen_mix, or
  gen_mix-inversion)"""
import json, math, pathlib, subprocess, sys, tempfile

old, new = sys.argv[1], sys.argv[2]
limit = sys.argv[3] if len(sys.argv) > 3 else "30"
sizes = [int(s) for s in (sys.argv[4] if len(sys.argv) > 4 else "1000,10000,100000,1000000").split(",")]
here = pathlib.Path(__file__).resolve().parent
tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracepor-scaling-"))
strategies = (sys.argv[5] if len(sys.argv) > 5 else "optimal,em-dpor,dpor-sleep").split(",")
generators = (sys.argv[6] if len(sys.argv) > 6 else "gen_race3,gen_mix").split(",")


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
for gen in generators:
    for n in sizes:
        trace = tmp / f"{gen}-{n}.txt"
        script, *flags = gen.split("-")
        with open(trace, "w") as f:
            subprocess.run([sys.executable, str(here / f"{script}.py"), str(n)] + [f"--{x}" for x in flags], stdout=f,
                           check=True)
        for s in strategies:
            for label, binary in [("old", old), ("new", new)]:
                wall, mb, ex, oc, how, fin = run(binary, trace, s)
                if fin:
                    times[(gen, n, s, label)] = wall
                print(f"| {gen} | {n:,} | {s} | {label} | {wall:.2f} | {mb:.0f} | {ex if ex is not None else '-'} | "
                      f"{oc if oc is not None else '-'} | {how} |", flush=True)
        trace.unlink()
for gen in generators:
    for label in ["old", "new"]:
        a = times.get((gen, 10000, "optimal", label))
        big = max([n for n in sizes if n > 10000 and (gen, n, "optimal", label) in times], default=None)
        if a and big:
            b = times[(gen, big, "optimal", label)]
            print(f"{gen} optimal {label}: 10k -> {big:,} growth n^{math.log(b / a) / math.log(big / 10000):.2f}")
        else:
            print(f"{gen} optimal {label}: growth from 10k not measured (a run did not finish)")
