#!/usr/bin/env bash
# IoTCheck's whole FSE 2020 study from the SmartApps' source: both TSVs of ../shared/reference
# (device interaction; switches, location mode, physical media), each pair decided by
# `tracepor corpus`, in N shards side by side (default: one per core), merged into one table
# per category. Prints the wall time of the whole study and writes OUT/study.md (the merged
# tables) and OUT/*.jsonl (the rows).
#
#   benches/fse_study.sh [OUT] [extra corpus options...]     e.g. benches/fse_study.sh out --time-limit 30
#
# Needs `cargo build --release --locked` first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/target/fse-study}"
shift || true
shared="${SHARED:-$root/../shared}"
bin="$root/target/release/tracepor"
n="${SHARDS:-$(nproc)}"
mkdir -p "$out"
rm -f "$out"/*.jsonl
start=$(date +%s.%N)
pids=()
for i in $(seq 0 $((n - 1))); do
    (
        for tsv in iotcheck-fse20-device-interaction.tsv iotcheck-fse20-switches-global-physical.tsv; do
            "$bin" corpus "$shared/reference/$tsv" --shard "$i/$n" --jsonl "$out/${tsv%.tsv}-$i.jsonl" "$@" >/dev/null
        done
    ) &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
end=$(date +%s.%N)
"$bin" corpus-merge "$out"/*.jsonl --markdown "$out/study.md" | sed -n '/^device interaction$/,$p'
printf '\nwhole study: %s pairs in %.0f s wall on %s shards (load %s)\n' \
    "$(cat "$out"/*.jsonl | wc -l)" "$(awk "BEGIN{print $end - $start}")" "$n" "$(cut -d' ' -f1-3 /proc/loadavg)"
