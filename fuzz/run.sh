#!/bin/sh
# Runs each fuzz target in turn, one process at a time (-jobs=1), for SECONDS each (default 360),
# on corpora seeded by seed.sh. Logs go to logs/<target>.log; crashes to artifacts/<target>/.
# Usage: ./run.sh [SECONDS] [target ...]
set -u
secs=${1:-360}
[ $# -gt 0 ] && shift
targets=${*:-em_trace_parse events_parse em_explore events_explore config_dependence abc_log_parse applist_parse groovy_parse home_parse}
mkdir -p logs
[ -d corpus ] || ./seed.sh
for t in $targets; do
    mkdir -p "artifacts/$t"
    # -timeout=10: an input that runs over 10 s counts as a hang. -rss_limit_mb bounds memory.
    cargo +nightly fuzz run "$t" "corpus/$t" -- -jobs=1 -workers=1 -max_total_time="$secs" \
        -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" > "logs/$t.parent.log" 2>&1
    echo "$t: exit $?" >> logs/summary.txt
    # With -jobs, libFuzzer's worker writes its own log (fuzz-0.log) in the current folder.
    [ -f fuzz-0.log ] && mv fuzz-0.log "logs/$t.log"
done
