#!/usr/bin/env python3
"""Every strategy on every shipped input, side by side: the measurement behind the defaults
(docs/strategies.md). Runs `tracepor compare --json` once per input with every
strategy that applies, one run at a time, and prints Markdown: a summary per kind of input,
then one row per input and strategy.

    python3 benches/strategies.py [--tracepor target/release/tracepor] [--time-limit 10]
                               [--max-memory 1500] [--only KIND] > strategies-table.md

Inputs (paths from the repository root, ../shared beside it): fixtures/em, fixtures/em-regress,
traces/android, the five TACAS 2016 traces and the 28 benchmark traces
(../shared/traces/em-explorer), fixtures/events and the nine traces/smartthings .events (each
unbounded and with --bound 2), and SmartApp pairs: the VMCAI 2022 Table A.2 pairs 2, 6, 7 and 17
(../shared/reference/vmcai22-tables-a1-a2.tsv) and the first pairs of each FSE 2020 group.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys

EM = ["full", "full-stateless", "dpor", "dpor-sleep", "em-dpor", "stateful-dpor", "em-dpor-sleep", "optimal"]
UNBOUNDED = ["full", "stateful-dpor"]
BOUNDED = ["full", "full-stateless", "dpor", "dpor-sleep", "stateful-dpor"]
APPS = "../shared/smartthings/smartapps"
# Table A.2's pairs measured (by number): two of a step notifier, two of thermostat apps.
A2_PAIRS = {"2", "6", "7", "17"}


def inputs():
    em = sorted(glob.glob("fixtures/em/*")) + sorted(glob.glob("fixtures/em-regress/*")) + ["traces/android/photo-sync"]
    em += sorted(glob.glob("../shared/traces/em-explorer/tacas-2016/*"))
    em += sorted(os.path.dirname(t) for t in glob.glob("../shared/traces/em-explorer/benchmark-traces/**/trace.txt", recursive=True))
    for e in em:
        yield "em-trace", [e], [], EM
    events = sorted(glob.glob("fixtures/events/*.events")) + sorted(glob.glob("traces/smartthings/*.events"))
    for e in events:
        yield "events", [e], [], UNBOUNDED
        yield "events --bound 2", [e], ["--bound", "2"], BOUNDED
    pairs = []
    for line in open("../shared/reference/vmcai22-tables-a1-a2.tsv"):
        cells = line.rstrip("\n").split("\t")
        if line.startswith("#") or cells[0] != "A.2" or cells[1] not in A2_PAIRS:
            continue
        pairs.append([f"{APPS}/{a}.groovy" for a in cells[2].split("\u2013")])
    seen = set()
    for line in open("../shared/reference/iotcheck-fse20-device-interaction.tsv"):
        cells = line.rstrip("\n").split("\t")
        if line.startswith("#") or cells[0] == "group" or cells[0] in seen:
            continue
        seen.add(cells[0])
        pairs.append([f"{APPS}/{a.replace(' ', '-')}" for a in cells[1:3]])
    for p in pairs:
        yield "smartapps --conflicts", p, ["--conflicts"], UNBOUNDED


def run(tracepor, files, extra, strategies, args):
    cmd = [tracepor, "compare", *files, *extra, "--strategies", ",".join(strategies), "--json", "--no-progress",
           "--time-limit", str(args.time_limit), "--max-memory", str(args.max_memory)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        return {"error": out.stderr.strip()}


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracepor", default="target/release/tracepor")
    ap.add_argument("--time-limit", type=float, default=10)
    ap.add_argument("--max-memory", type=int, default=1500)
    ap.add_argument("--only", help="one kind of input (em-trace, events, smartapps)")
    args = ap.parse_args()
    rows, per_kind = [], {}
    for kind, files, extra, strategies in inputs():
        if args.only and not kind.startswith(args.only):
            continue
        name = " + ".join(os.path.basename(f.rstrip("/")) if f.endswith(".groovy") else f for f in files)
        doc = run(args.tracepor, files, extra, strategies, args)
        print(f"{name} {' '.join(extra)}: {'error' if 'error' in doc else 'ok'}", file=sys.stderr)
        if "error" in doc:
            rows.append((kind, name, "-", "error: " + doc["error"].splitlines()[0][:80], "", "", "", ""))
            continue
        runs = doc["runs"]
        standings = doc.get("standings") or {}
        stats = per_kind.setdefault(kind, {})
        full = next((r for r in runs if r["strategy"] == "full"), None)
        for r in runs:
            s = stats.setdefault(r["strategy"], {"runs": 0, "finished": 0, "winner": 0, "time": 0.0, "vs_full": []})
            s["runs"] += 1
            if r["finished"]:
                s["finished"] += 1
                s["time"] += r["time_s"]
                if full and full["finished"] and r["time_s"] > 0 and full["time_s"] > 0:
                    s["vs_full"].append(r["time_s"] / full["time_s"])
            if doc.get("winner") == r["strategy"]:
                s["winner"] += 1
            done = "yes" if r["finished"] else r["stopped_by"]
            rows.append((kind, name, r["strategy"], done, r["transitions"], r["states"] if r["states"] is not None else "-",
                         f"{r['time_s']:.3f}", standings.get(r["strategy"], "-")))
    print(f"Per-run limits: --time-limit {args.time_limit} --max-memory {args.max_memory}.\n")
    print("| inputs | strategy | runs | finished | fewest transitions (winner) | time of the finished runs, s | time / full's (geometric mean, both finished) |")
    print("|---|---|---|---|---|---|---|")
    for kind, stats in per_kind.items():
        for strategy, s in stats.items():
            g = geomean(s["vs_full"])
            print(f"| {kind} | {strategy} | {s['runs']} | {s['finished']} | {s['winner']} | {s['time']:.2f} | "
                  f"{'-' if g is None else f'{g:.2f}x'} |")
    print("\n| inputs | input | strategy | finished | transitions | states | time s | outcome set |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")


if __name__ == "__main__":
    main()
