#!/usr/bin/env bash
# What a newcomer's clean `cargo test --locked` costs: clones the checked-out commit beside this
# checkout (so ../shared resolves the same), runs the tests from an empty target/ under
# /usr/bin/time -v, and prints wall time, compile time, CPU, target/'s size and the load average
# (one reading every 30 s). With BUSY=n, n busy loops run beside it: BUSY=4 with cargo's two jobs
# is a load of about 6 on 2 cores (docs/testing.md).
#
#   benches/test_cost.sh            # as the machine is
#   BUSY=4 benches/test_cost.sh     # at load about 6
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(dirname "$repo")/tracepor-cost-$$"
log="$(mktemp)"
loads="$(mktemp)"
git clone -q "$repo" "$dir"
busy=()
cleanup() {
    kill "${busy[@]}" "${sampler:-}" 2>/dev/null || true
    rm -rf "$dir" "$log" "$loads"
}
trap cleanup EXIT
for _ in $(seq 1 "${BUSY:-0}"); do
    (while :; do :; done) &
    busy+=($!)
done
(while :; do cut -d' ' -f1 /proc/loadavg >>"$loads"; sleep 30; done) &
sampler=$!
status=0
(cd "$dir" && /usr/bin/time -v cargo test --locked) >"$log" 2>&1 || status=$?
kill "$sampler" "${busy[@]}" 2>/dev/null || true
grep -E 'test result|Finished `test`' "$log" || true
grep -E 'Elapsed|User time|System time' "$log"
echo "target/: $(du -sh "$dir/target" | cut -f1)"
awk '{s+=$1; n++; if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1}
     END {if (n) printf "load: %.2f mean (%.2f-%.2f), %d readings\n", s/n, min, max, n}' "$loads"
[ "$status" = 0 ] || { tail -30 "$log"; exit "$status"; }
