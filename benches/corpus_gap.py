#!/usr/bin/env python3
"""Joins the event-level dependence of each Table A.2 pair (tests/it/corpus_dependence.rs, TSV on
stdout of its ignored test) with `tracepor corpus --jsonl` rows, and prints the grouping of
docs/corpus.md ("Why our ratios differ from the paper's").

usage: corpus_gap.py dep.tsv a2.jsonl
"""
import json
import math
import statistics
import sys


def gm(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(dep_path, jsonl_path):
    dep = {}
    for line in open(dep_path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "no" or len(f) < 9:
            continue
        dep[int(f[0])] = dict(pairs=int(f[3]), ind=int(f[4]), attr=int(f[5]), mode=int(f[6]), st=int(f[7]))
    rows = [json.loads(l) for l in open(jsonl_path)]
    rows = [r for r in rows if r["no"] in dep and r["full"] and r["stateful"]]
    groups = {}
    for r in rows:
        d = dep[r["no"]]
        share = d["ind"] / d["pairs"] if d["pairs"] else 0.0
        if r["full"]["states"] == 1:
            g = "a: one state"
        elif share == 0:
            g = "b: no independent event pair"
        elif share < 1 / 3:
            g = "c: under 1/3 of event pairs independent"
        elif share < 2 / 3:
            g = "d: 1/3 to 2/3 independent"
        else:
            g = "e: 2/3 or more independent"
        groups.setdefault(g, []).append((r, share))
    print("| group | pairs | our states x | our trans x | paper states x | paper trans x | median states of our full |")
    print("|---|---|---|---|---|---|---|")
    for g in sorted(groups):
        xs = groups[g]
        med = sorted(x[0]["full"]["states"] for x in xs)[len(xs) // 2]
        cols = [gm([x[0][k] for x in xs]) for k in
                ("states_reduction", "transitions_reduction", "paper_states_reduction", "paper_transitions_reduction")]
        print(f"| {g} | {len(xs)} | " + " | ".join(f"{c:.2f}" for c in cols) + f" | {med} |")
    sh = [s for g in groups for _, s in groups[g]]
    ours = [math.log(r["transitions_reduction"]) for g in groups for r, _ in groups[g]]
    paper = [math.log(r["paper_transitions_reduction"]) for g in groups for r, _ in groups[g]]
    print("pearson(share independent, log our trans x) =", round(statistics.correlation(sh, ours), 2))
    print("pearson(share independent, log paper trans x) =", round(statistics.correlation(sh, paper), 2))
    print("pearson(log our trans x, log paper trans x) =", round(statistics.correlation(ours, paper), 2))
    dp = sum(d["pairs"] - d["ind"] for d in dep.values())
    allp = sum(d["pairs"] for d in dep.values())
    share = {k: sum(d[k] for d in dep.values()) / dp for k in ("attr", "mode", "st")}
    print(f"event pairs {allp}, dependent {dp}; of those on an attribute {share['attr']:.0%}, "
          f"on the mode {share['mode']:.0%}, on an app's state {share['st']:.0%}")
    print("geomean paper no-DPOR states / our full states:",
          round(gm([r["nodpor"]["states"] / r["full"]["states"] for r in rows]), 1))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
