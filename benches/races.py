#!/usr/bin/env python3
"""What the race report adds to `optimal` (docs/races.md, "Cost"). For each input (the
five TACAS 2016 apps; benches/gen_race3.py and benches/gen_mix.py at the sizes given), runs
`check --strategy optimal --json` without (`--no-races`) and with the race report, alternately,
REPS times each, all in one run, and prints one markdown row per input:
- CPU seconds (user + system of the child, from getrusage) of the whole process, the least of the REPS,
  without and with, and their ratio (the machine is shared: the least is the least disturbed);
- in-process: the search's own `time_s` and the analysis's `races_time_s` (the JSON's), each
  the least over the runs with races, and their ratio (the TACAS apps take milliseconds: these
  are the figures to read there);
- the races found: pairs, changing an outcome, benign.
Each run has --time-limit SECONDS (default 60) and --max-memory 2000.
Usage: races.py BINARY [REPS] [SIZES] [SECONDS]   (SIZES comma-separated, default 10000,100000,1000000)"""
import json, pathlib, resource, subprocess, sys, tempfile

binary = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
sizes = [int(s) for s in (sys.argv[3] if len(sys.argv) > 3 else "10000,100000,1000000").split(",")]
limit = sys.argv[4] if len(sys.argv) > 4 else "60"
here = pathlib.Path(__file__).resolve().parent
tacas = here.parent / "../shared/traces/em-explorer/tacas-2016"
tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracepor-races-"))


def run(trace, races):
    cmd = [binary, "check", str(trace), "--strategy", "optimal", "--json",
           "--no-progress", "--time-limit", limit, "--max-memory", "2000"] + ([] if races else ["--no-races"])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    d = json.loads(p.stdout)
    assert d["finished"], f"{trace}: optimal did not finish"
    return cpu, d


inputs = [(app, tacas / app) for app in ["music", "aarddict", "charachter-recognition", "mytracks", "remind-me"]]
for gen in ["gen_race3", "gen_mix"]:
    for n in sizes:
        trace = tmp / f"{gen}-{n}.txt"
        with open(trace, "w") as f:
            subprocess.run([sys.executable, str(here / f"{gen}.py"), str(n)], stdout=f, check=True)
        inputs.append((f"{gen} {n:,}", trace))

print("| input | CPU s, no races | CPU s, races | ratio | search s | races s | ratio | race pairs | change an outcome | benign |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, trace in inputs:
    without, with_ = [], []
    # The TACAS apps take milliseconds: more runs for their least times.
    for _ in range(reps * 5 if name.isalpha() or "-" in name and " " not in name else reps):
        without.append(run(trace, False))
        with_.append(run(trace, True))
    cpu0 = min(c for c, _ in without)
    cpu1 = min(c for c, _ in with_)
    best = with_[0][1]
    search = min(d["time_s"] for _, d in with_)
    analysis = min(d["races_time_s"] for _, d in with_)
    ratio = f"{cpu1 / cpu0:.2f}" if cpu0 > 0 else "-"
    print(f"| {name} | {cpu0:.3f} | {cpu1:.3f} | {ratio} | {search:.3f} | {analysis:.3f} | "
          f"{analysis / search if search > 0 else 0:.2f} | {best['race_pairs']} | {best['races_changing_outcome']} | "
          f"{best['races_benign']} |", flush=True)
for f in tmp.iterdir():
    f.unlink()
