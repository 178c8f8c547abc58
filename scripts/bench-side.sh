#!/usr/bin/env bash
# Client CPU per request over HTTP, side by side (issue 24): replayctl,
# an older replayctl (BEFORE), vegeta and wrk, one after the other in each
# round, against a fast Streamable HTTP server (the slow test server with
# no delay, answering tools/call echo at once). Each client runs pinned to
# core 0 and the server to core 1, both SCHED_FIFO (root; set CLIENT=
# SERVER= to run without). Per client and round it prints requests/s and
# the client's CPU per request: the whole process's user + system time
# (/usr/bin/time) over the requests it made; then the client's busy share
# (that CPU over its wall time), the server's CPU per request during that
# client's run (its threads' time on core, /proc/PID/task/*/schedstat)
# and the server's busy share over the same wall time. A client whose
# busy share is well below 95% while the server's is near it waits for
# the server: its requests/s is the server's, not its own. 95% is the
# most either gets: the kernel throttles real-time processes to
# sched_rt_runtime_us (950,000) of every second.
#
# replayctl replays 50 sessions of one recorded session (initialize,
# initialized, 2,000 tools/call echo {"text":"hi"}): 100,050 requests,
# every answer validated (the passed count is printed). vegeta and wrk
# post the same tools/call for 5 s with 50 workers / connections and
# check nothing (wrk's script counts 2xx answers without a result).
#
#   scripts/bench-side.sh
#   RUNS=3 BEFORE=/tmp/x/replayctl-main VEGETA=/tmp/tailbin/vegeta PORT=19130 scripts/bench-side.sh
#   REPLAYCTL=/path/to/replayctl scripts/bench-side.sh   # no build
#   VEGETA_DIR=/tmp/tailbin scripts/bench-side.sh   # go install vegeta there when it is not found
#
# OUT is the folder for the tape, the binaries and each run's output
# (a new temporary one by default). FIRST=before runs the before binary
# first in each round (the default alternates: now first in odd rounds).
# QUIET is how many tenths of a second to wait, before each client's run,
# for other real-time jobs to end (600; as bench-tail.sh does): another
# job pinned under SCHED_FIFO at the same priority holds a core until it
# blocks, and a round it overlaps measures that job.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
. scripts/bench-lib.sh
bench_init 18931
sessions=${SESSIONS:-50}
calls=${CALLS:-2000}
duration=${DURATION:-5s}
target="http://127.0.0.1:$port/mcp"
bench_build
vegeta=${VEGETA:-$(command -v vegeta || true)}
if [[ -z $vegeta && -n ${VEGETA_DIR:-} ]]; then
  # Not in go.mod: installed on its own, at the version the module proxy has.
  GOBIN=$VEGETA_DIR go install github.com/tsenart/vegeta/v12@latest
  vegeta=$VEGETA_DIR/vegeta
fi
wrk=${WRK:-$(command -v wrk || true)}

side_tape "$dir/http.jsonl" "$calls"
side_body "$dir/body.json"
printf 'POST %s\nContent-Type: application/json\nAccept: application/json, text/event-stream\n@%s\n' "$target" "$dir/body.json" > "$dir/targets.txt"

$server "$dir/slow" -http "127.0.0.1:$port" -delay 0s &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
wait_http "$target" "$spid" || exit 1

# rate NAME REQUESTS TIMEFILE: one line of the table, and the busy
# shares (server0: the server's oncpu before the client ran).
rate() {
  local u s e
  read -r u s e < <(time_figures "$3")
  awk -v n="$1" -v r="$2" -v u="$u" -v s="$s" -v e="$e" -v sv="$(( $(oncpu "$spid") - server0 ))" 'BEGIN {
    printf "  %-16s %8d requests %9.0f requests/s %6.1f cpu-us/request (user %.2f s, sys %.2f s, %.2f s)\n", n, r, r/e, (u+s)/r*1e6, u, s, e
    printf "                   client busy %.0f%%; server %.1f cpu-us/request, busy %.0f%%\n", (u+s)/e*100, sv/r/1e3, sv/(e*1e9)*100 }'
}

# one NAME BINARY: a replayctl run.
one() {
  local name=$1 bin=$2 out="$dir/$1.json"
  quiet "$spid"
  server0=$(oncpu "$spid")
  /usr/bin/time -f "%U %S %e" -o "$dir/$name.time" $client "$bin" run "$dir/http.jsonl" --speed fast --sessions "$sessions" \
    -q -o json --target "$target" ${REPLAYCTL_FLAGS:-} > "$out" 2> "$dir/$name.err" || echo "  $name: exit $? (see $dir/$name.err)"
  local n
  n=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['performance']['requests'], r['validation']['passed'], r['validation'].get('failed', 0))" "$out")
  set -- $n
  rate "$name" "$1" "$dir/$name.time"
  echo "                   answers passed $2, failed $3"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); replayctl $replayctl${BEFORE:+; before $BEFORE}"
for r in $(seq "$runs"); do
  echo "round $r (load average $(cut -d' ' -f1 /proc/loadavg))"
  if [[ -n ${BEFORE:-} ]] && { [[ ${FIRST:-} == before ]] || { [[ -z ${FIRST:-} ]] && ((r % 2 == 0)); }; }; then
    one before "$BEFORE"
    one replayctl "$replayctl"
  else
    one replayctl "$replayctl"
    [[ -z ${BEFORE:-} ]] || one before "$BEFORE"
  fi
  if [[ -n $vegeta ]]; then
    quiet "$spid"
    server0=$(oncpu "$spid")
    /usr/bin/time -f "%U %S %e" -o "$dir/vegeta.time" $client "$vegeta" attack -rate 0 -max-workers 50 -workers 50 \
      -duration "$duration" -targets "$dir/targets.txt" -output "$dir/v.bin" 2> "$dir/vegeta.err"
    n=$("$vegeta" report -type json "$dir/v.bin" | python3 -c "import json,sys; r=json.load(sys.stdin); print(r['requests'], r['status_codes'].get('200', 0))")
    set -- $n
    rate vegeta "$1" "$dir/vegeta.time"
    echo "                   status 200: $2"
  fi
  if [[ -n $wrk ]]; then
    quiet "$spid"
    server0=$(oncpu "$spid")
    /usr/bin/time -f "%U %S %e" -o "$dir/wrk.time" $client "$wrk" -t1 -c50 -d"$duration" -s "$src/scripts/wrk-tools-call.lua" "$target" > "$dir/wrk.out" 2>&1
    n=$(grep -o '[0-9]* requests in' "$dir/wrk.out" | cut -d' ' -f1)
    rate wrk "$n" "$dir/wrk.time"
    echo "                   $(grep 'without a result' "$dir/wrk.out")"
  fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "outputs in $dir"
