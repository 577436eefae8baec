#!/usr/bin/env python3
"""What the race report adds to `optimal`, in instructions (docs/races.md, "Scale"):
figures that do not depend on the machine's load, unlike the wall times of benches/races.rs.
For each input (the five TACAS 2016 apps; benches/gen_race3.py at the sizes given) and each
binary given, runs `check --strategy optimal --json` under `valgrind --tool=callgrind`, with
`--toggle-collect` on one function per run, and prints one markdown row per input and binary:
- the search's instructions (`ReadsFrom::run`, optimal's search) without the report
  (`--no-races`) and with it (it keeps a schedule per outcome and its `hb0` for the analysis);
- the analysis's (`races::analyse_within`, everything `check` does for the report but print it);
- analysis / search (both with the report), and added = (search with + analysis) / search
  without - 1.
Instruction counts are exact per run (no sampling); they vary only with the binary.
Usage: races_instr.py BINARY [BINARY...] [--sizes 10000]"""
import pathlib, re, subprocess, sys, tempfile

args = sys.argv[1:]
sizes = [10000]
if "--sizes" in args:
    i = args.index("--sizes")
    sizes = [int(s) for s in args[i + 1].split(",") if s]
    del args[i:i + 2]
binaries = args
here = pathlib.Path(__file__).resolve().parent
tacas = here.parent / "../shared/traces/em-explorer/tacas-2016"
tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracepor-races-instr-"))
SEARCH = "<tracepor::explore::reads_from::ReadsFrom as tracepor::explore::Strategy<tracepor::model::em::EmModel>>::run"
ANALYSIS = "tracepor::explore::races::analyse_within"

inputs = [(app, tacas / app) for app in ["music", "aarddict", "charachter-recognition", "mytracks", "remind-me"]]
for n in sizes:
    trace = tmp / f"gen_race3-{n}.txt"
    trace.write_text(subprocess.run(["python3", str(here / "gen_race3.py"), str(n)],
                                    capture_output=True, text=True, check=True).stdout)
    inputs.append((f"gen_race3 {n:,}", trace))


def instructions(binary, trace, function, races):
    out = tmp / "cg.out"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", f"--toggle-collect={function}",
           binary, "check", str(trace), "--strategy", "optimal", "--json", "--no-progress"]
    p = subprocess.run(cmd + ([] if races else ["--no-races"]), capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    assert p.returncode in (0, 1) and m, p.stderr[-2000:]
    out.unlink()
    return int(m.group(1))


print("| input | binary | search Ir, no report | search Ir, with it | analysis Ir | analysis / search | added |")
print("|---|---|---:|---:|---:|---:|---:|")
for name, trace in inputs:
    for b in binaries:
        plain = instructions(b, trace, SEARCH, False)
        search = instructions(b, trace, SEARCH, True)
        analysis = instructions(b, trace, ANALYSIS, True)
        print(f"| {name} | {b} | {plain:,} | {search:,} | {analysis:,} | {analysis / search:.3f} "
              f"| {(search + analysis) / plain - 1:.3f} |", flush=True)
for f in tmp.iterdir():
    f.unlink()
tmp.rmdir()
