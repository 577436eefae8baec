#!/usr/bin/env python3
"""Every pair of IoTCheck's FSE 2020 study where our verdict differs from the manual label,
grouped by cause, from the rows `benches/fse_study.sh OUT` writes (OUT/*.jsonl).

Usage: benches/fse_disagreements.py OUT [--markdown]

A missed conflict (label a conflict, our verdict not) is grouped by its cause in this order:
the search stopped by a limit; an app did not load; else the app that the most missed pairs of
the category share (greedy: that app's pairs are removed and the next is picked), since a miss
is one app's writes never reached or never meeting the other's. A reported conflict the label
calls none is grouped by the label (what the study judged the interaction to be). The text of
each group's cause for an app comes from REASONS when it was looked into by hand
(docs/smartapps.md says how), else it is listed as not yet looked into."""
import collections, glob, json, os, sys

# Causes looked into by hand: app -> why its conflicts are missed (docs/smartapps.md).
REASONS = {
    "jenkins-notifier": "its switches are commanded inside the closure of an `httpGet` to a Jenkins "
    "server, by the build's result; the model makes no HTTP request and runs no response closure, so "
    "the app never commands a switch (a response the environment picks, as it picks a device's "
    "report, would find these)",
    "talking-alarm-clock": "its mode writes run from a schedule guarded by several inputs of one "
    "scenario set together (name, start time, speaker, alarm on, alarm type); the model keeps one "
    "value per input that is not a mode, so the guard never holds",
    "button-controller": "its per-button inputs (computed names on dynamic pages) are bound and "
    "its button handler reaches the mode writes, but runs only under `allOk`, whose `days` filter "
    "(an optional multiple enum set to its first option, Monday) compares with a weekday the model "
    "does not compute (`new SimpleDateFormat(\"EEEE\").format(new Date())` is null), so it never acts",
    "button-controller-for-hlgs": "as button-controller: the `days` filter of `allOk` never holds",
    "ecobeeChangeMode": "its source never writes the location mode: it reads the mode and sets the "
    "thermostats' climate program (`setThisTstatClimate`); the study labels its pairs App-app "
    "write-write, which the model cannot find in the code",
    "03-sms-to-hue": "runs only when its web endpoint is called (`mappings { path(\"/hue\") }`, "
    "an SMS forwarded to it); the model has no web requests, so it never commands a lamp",
    "tweet-to-hue": "as 03-sms-to-hue: driven only by calls to its web endpoint",
    "humidity-alert": "its switch commands depend on the humidity crossing two thresholds the person "
    "picks (number inputs); the model keeps each number input at one value, against the sensor's "
    "two values, so one branch is never taken",
}


def rows(out):
    for f in sorted(glob.glob(os.path.join(out, "*.jsonl"))):
        for line in open(f):
            yield json.loads(line)


def main():
    out = sys.argv[1]
    by_cat = collections.defaultdict(lambda: {"FN": [], "FP": []})
    for r in rows(out):
        if r.get("manual_conflict") is None:
            continue
        ours = r.get("verdict") == "conflict"
        if ours == r["manual_conflict"]:
            continue
        by_cat[r["category"]]["FP" if ours else "FN"].append(r)
    for cat in sorted(by_cat):
        fn, fp = by_cat[cat]["FN"], by_cat[cat]["FP"]
        print(f"\n### {cat}: {len(fn)} missed, {len(fp)} reported against the label\n")
        left = []
        stopped = [r for r in fn if str(r.get("verdict", "")).startswith("unfinished")]
        broken = [r for r in fn if r.get("error")]
        for title, group in (("stopped by a limit", stopped), ("an app did not load", broken)):
            if group:
                print(f"- **{title}** ({len(group)}): " + ", ".join(pair(r) for r in group[:8]) + more(group))
        left = [r for r in fn if r not in stopped and r not in broken]
        while left:
            count = collections.Counter(a for r in left for a in {r["app1"], r["app2"]})
            app, n = count.most_common(1)[0]
            group = [r for r in left if app in (r["app1"], r["app2"])]
            left = [r for r in left if r not in group]
            name = app.removesuffix(".groovy")
            why = REASONS.get(name, "not yet looked into")
            others = sorted({(r["app2"] if r["app1"] == app else r["app1"]).removesuffix(".groovy") for r in group})
            print(f"- **{name}** ({len(group)} missed; with {', '.join(others[:6])}{more(others, 6)}): {why}")
        labels = collections.Counter(r.get("manual") or "-" for r in fp)
        for label, n in labels.most_common():
            group = [r for r in fp if (r.get("manual") or "-") == label]
            print(f"- reported, labelled **{label}** ({n}): " + ", ".join(pair(r) for r in group[:6]) + more(group))


def pair(r):
    return f"{r['app1'].removesuffix('.groovy')}+{r['app2'].removesuffix('.groovy')}"


def more(xs, k=8):
    return f" and {len(xs) - k} more" if len(xs) > k else ""


if __name__ == "__main__":
    main()
