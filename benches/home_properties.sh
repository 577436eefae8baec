#!/bin/sh
# Configured homes with and without the default properties (docs/properties.md, "Figures"):
# states, search time and peak memory per home and strategy, one run after the other.
# Usage: benches/home_properties.sh [TRACEPOR] (default target/release/tracepor); run from the
# repository, with ../shared beside it. Prints a Markdown table and the load average.
set -eu
T=${1:-target/release/tracepor}
APPS=${SMARTAPPS:-../shared/smartthings/smartapps}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| home | apps | devices | properties | strategy | finished | states | time (s) | peak memory (MiB) | violations |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for h in fixtures/configured-bench/*.home fixtures/configured/*.home; do
  for props in default none; do
    extra=""
    [ "$props" = none ] && extra="--no-default-properties"
    for s in stateful-dpor full; do
      "$T" check "$h" --smartapps "$APPS" --strategy "$s" --time-limit 600 --max-memory 4096 --json $extra 2>/dev/null \
        | python3 -c '
import json, sys
d = json.load(sys.stdin)
h, props, s = sys.argv[1:4]
stats = {}
for u in d["unsupported"]:
    pass
print("| %s | %s | %s | %s | %s | %s | %s | %.3f | %.1f | %d |" % (h.split("/")[-1], d.get("apps", ""), "", props, s,
    "yes" if d["finished"] else "no (" + str(d["stopped_by"]) + ")", d["states"], d["time_s"],
    (d["peak_alloc_bytes"] or d["peak_rss_bytes"] or 0) / 2**20,
    sum(1 for e in d["errors"] if e["kind"] == "property")))
' "$h" "$props" "$s"
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
