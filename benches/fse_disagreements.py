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
    "button-controller": "its per-button inputs (computed names on dynamic pages) are bound and "
    "its button handler reaches the mode writes, but runs only under `allOk`, whose `days` filter "
    "(an optional multiple enum set to its first option, Monday) compares with a weekday the model "
    "does not compute (`new SimpleDateFormat(\"EEEE\").format(new Date())` is null), so it never acts",
    "button-controller-for-hlgs": "as button-controller: the `days` filter of `allOk` never holds",
    "ecobeeChangeMode": "its source never writes the location mode: it reads the mode and sets the "
    "thermostats' climate program (`setThisTstatClimate`); the study labels its pairs App-app "
    "write-write, which the model cannot find in the code",
    "03-sms-to-hue": "runs only when its web endpoint is called (`mappings { path(\"/hue\") }`, "
    "an SMS forwarded to it); the model runs no web endpoint's handler (listed as not modelled), so it "
    "never commands a lamp",
    "tweet-to-hue": "as 03-sms-to-hue: driven only by calls to its web endpoint",
    "sprayer-controller-2": "the two apps it misses with (speaker-notify-with-sound, "
    "speaker-weather-forecast) react to the wet sensor in `takeAction`, whose speaker commands are "
    "commented out in these copies of their source: the handler only records when it ran, which no "
    "other app reads, so nothing another app sees follows the water",
    "talking-alarm-clock": "its mode write needs several inputs of one scenario at once (name, start "
    "time, speaker, alarm on, alarm type, no days filter); the covering of the inputs a person picks "
    "has strength two (docs/choices.md), and no row of this pair gives all of them together with "
    "button-controller's own filter unset (the pair with button-controller-for-hlgs is found)",
    "good-night-house": "it turns `switcheson` on and `switchesoff` off (after a delay) at one touch; "
    "one device stands for both inputs, so its last write is off, the value ecobeeAwayFromHome writes",
    "lighting-director": "its pairs with web-endpoint apps (03-sms-to-hue, tweet-to-hue) and with "
    "color-coordinator are those apps' causes; with brighten-dark-places now found (the illuminance "
    "only read varies at installation)",
    "color-coordinator": "its master light and the lights that follow it are inputs of one "
    "capability, which the model binds to one device (IoTCheck's one device per capability): the "
    "app finds the master among its followers and, as it warns the user, does nothing",
    "gentle-wake-up": "its completion switches get the command named by `completionSwitchesState`, "
    "an enum input (on, off) with default on, called by name (`switches.\"$command\"()`); inputs "
    "vary where a branch depends on them (docs/choices.md), not where they name a command, so it "
    "stays on and agrees with the apps that turn the switch on",
    "loft": "it turns lights on only for values of the author's own home: modes named "
    "`Home / Day`, a `Yawn` event, a motion sensor named `motion@stairs`, lights named `stairs`; "
    "the model's location has home, away and night and devices named by capability, so loft only "
    "turns lights off and agrees with the apps that turn them off",
    "the-big-switch": "it makes its lights follow a master switch a person flips, and double-tap "
    "and nfc-tag-toggle act on a physical tap or a tag touch: all three are the user's direct "
    "command, and one device stands for every switch input, so no automation undoes the other",
    "ecobeeAwayFromHome": "good-night-house turns `switcheson` on and `switchesoff` off (after a "
    "delay) at one touch; one device stands for both inputs, so its last write is off, the value "
    "ecobeeAwayFromHome writes",
}

# Why the model reports pairs a label calls no conflict, by the label (docs/smartapps.md).
LABEL_REASONS = {
    "Direct-direct (human) Interaction (No Conflict)": "big-turn-on, big-turn-off and make-it-so "
    "also act on every location mode change (`subscribe(location, changedLocationMode)`); a mode "
    "change is no user's command in the model (an app or the hub may make it), so their writes "
    "then are automatic and undo what the other app did at a touch or a tap",
    "Physical Interaction": "dry-the-wetspot turns a pump on when its sensor is wet; the "
    "water table makes a switch an app turns on wet the sensor (a pump or a sprinkler), so "
    "close-the-valve's handler on that wet event closes the valve: the study judged the pump "
    "to dry the spot, not wet it (the table does not tell a pump from a sprinkler)",
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
            why = f": {LABEL_REASONS[label]}" if label in LABEL_REASONS else ""
            print(f"- reported, labelled **{label}** ({n}): " + ", ".join(pair(r) for r in group[:6]) + more(group, 6) + why)


def pair(r):
    return f"{r['app1'].removesuffix('.groovy')}+{r['app2'].removesuffix('.groovy')}"


def more(xs, k=8):
    return f" and {len(xs) - k} more" if len(xs) > k else ""


if __name__ == "__main__":
    main()
