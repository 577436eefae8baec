#!/bin/sh
# Copies seed inputs into corpus/<target>/ (ignored by git): the project's fixtures and the
# shared EM-Explorer traces. Run from fuzz/; SHARED defaults to ../../shared (the work tree's
# sibling folder).
set -eu
SHARED=${SHARED:-../../shared}
for t in em_trace_parse em_explore events_parse events_explore config_dependence abc_log_parse applist_parse groovy_parse; do
    mkdir -p "corpus/$t"
done
n=0
for f in ../fixtures/em/*/trace.txt "$SHARED"/traces/em-explorer/*/*/trace.txt "$SHARED"/traces/em-explorer/*/*/*/trace.txt; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    cp "$f" "corpus/em_trace_parse/trace-$n"
    cp "$f" "corpus/em_explore/trace-$n"
done
for f in ../fixtures/events/*.events ../traces/smartthings/*.events; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    cp "$f" "corpus/events_parse/$b"
    cp "$f" "corpus/events_explore/$b"
done
# abc_log_parse: the project's abc-log fixtures and the TACAS 2016 logs, cut to max_len so the
# fuzzer starts from whole lines of real logs.
k=0
for f in ../fixtures/abc-log/*/abc_log.txt "$SHARED"/traces/em-explorer/*/*/abc_log.txt; do
    [ -f "$f" ] || continue
    k=$((k + 1))
    head -c 4000 "$f" > "corpus/abc_log_parse/log-$k"
done
# config_dependence: dependence text, a NUL, config text.
i=0
for d in "$SHARED"/traces/em-explorer/*/*/ "$SHARED"/traces/em-explorer/*/*/*/; do
    [ -f "$d/config.cfg" ] || continue
    i=$((i + 1))
    { head -c 2000 "$d/dependence.txt" 2>/dev/null || true; printf '\0'; cat "$d/config.cfg"; } > "corpus/config_dependence/cfg-$i"
done
printf 'src:2 dest:7\nsrc:7 dest:10\n\0trace:trace.txt\ndependence:dependence.txt\n' > corpus/config_dependence/small
# applist_parse: IoTCheck's app lists (homes); groovy_parse: the SmartApps, cut to max_len.
a=0
for f in "$SHARED"/smartthings/appLists/* ../fixtures/homes/*; do
    [ -f "$f" ] || continue
    a=$((a + 1))
    cp "$f" "corpus/applist_parse/list-$a"
done
g=0
for f in "$SHARED"/smartthings/smartapps/*.groovy; do
    [ -f "$f" ] || continue
    g=$((g + 1))
    head -c 4000 "$f" > "corpus/groovy_parse/app-$g"
done
mkdir -p corpus/home_parse
h=0
for f in ../fixtures/configured/*.home ../src/model/smartapp/library.props; do
    [ -f "$f" ] || continue
    h=$((h + 1))
    cp "$f" "corpus/home_parse/home-$h"
done
echo "seeded: $n traces, $i configs, $k logs, $a app lists, $g apps, $h homes and property files"
