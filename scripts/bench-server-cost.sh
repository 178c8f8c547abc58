#!/usr/bin/env bash
# What each client's requests cost the server, measured in the same
# minutes (issue 24). bench-side.sh runs the clients one after the other,
# so a round in which the server's core runs slow (this VM's vCPU does,
# now and then, by 30-50%) lands on one client only and reads as that
# client's requests being dearer to serve. Here replayctl, vegeta and wrk
# run at the same time, each against a server of its own (the slow test
# server answering tools/call echo at once), all servers on core 1 under
# SCHED_FIFO, all clients on core 0, SCHED_FIFO too (at ordinary
# priority they share core 0 with every other job on the machine: at a
# load average of 40 they made 500-2,700 requests/s each). A slow stretch
# of core 1 then slows every server alike. Under SCHED_FIFO a client runs
# until it blocks, so the three do not get equal shares of core 0 (wrk,
# one thread, now and then gets little): the rates differ, and the figure
# compared is the server's cost per request, not the rate. Per client and round: the requests it made, and its
# server's CPU (its threads' time on core, /proc/PID/task/*/schedstat),
# system calls and context switches (perf stat -p) per request. The
# server's CPU per request depends on its request rate (fewer requests
# per wake-up cost more each), so compare clients of similar rates.
#
# replayctl replays 50 sessions of one recorded session (initialize,
# initialized, CALLS tools/call echo): every answer validated. vegeta and
# wrk post the same tools/call for DURATION with 50 workers /
# connections; set DURATION near replayctl's time so that the three
# overlap (the script prints each one's).
#
#   RUNS=3 VEGETA=/tmp/tailbin/vegeta scripts/bench-server-cost.sh
#   REPLAYCTL=/path/to/replayctl DURATION=10s scripts/bench-server-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
. scripts/bench-lib.sh
bench_init 18961
calls=${CALLS:-2000}
duration=${DURATION:-8s}
bench_build
vegeta=${VEGETA:-$(command -v vegeta || true)}
wrk=${WRK:-$(command -v wrk || true)}
if [[ -z $vegeta || -z $wrk ]]; then
  echo "bench-server-cost.sh: vegeta and wrk are needed (VEGETA=, WRK=)" >&2
  exit 2
fi
side_tape "$dir/http.jsonl" "$calls"
side_body "$dir/body.json"

names=(replayctl vegeta wrk)
declare -A spid pport cpu0 perfpid elapsed reqs
cleanup() {
  local n
  for n in "${names[@]}"; do
    [[ -z ${perfpid[$n]:-} ]] || kill -INT "${perfpid[$n]}" 2>/dev/null || true
    [[ -z ${spid[$n]:-} ]] || kill "${spid[$n]}" 2>/dev/null || true
  done
}
trap cleanup EXIT

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); replayctl $replayctl"
for r in $(seq "$runs"); do
  i=0
  for n in "${names[@]}"; do
    pport[$n]=$((port + i))
    i=$((i + 1))
    $server "$dir/slow" -http "127.0.0.1:${pport[$n]}" -delay 0s &
    spid[$n]=$!
  done
  for n in "${names[@]}"; do
    wait_http "http://127.0.0.1:${pport[$n]}/mcp" "${spid[$n]}" || exit 1
    perf stat -x, -e raw_syscalls:sys_enter,context-switches -p "${spid[$n]}" -o "$dir/$n.perf" &
    perfpid[$n]=$!
  done
  sleep 0.3 # perf attached
  for n in "${names[@]}"; do cpu0[$n]=$(oncpu "${spid[$n]}"); done
  /usr/bin/time -f "%e" -o "$dir/replayctl.time" $client "$replayctl" run "$dir/http.jsonl" --speed fast --sessions 50 \
    -q -o json --target "http://127.0.0.1:${pport[replayctl]}/mcp" > "$dir/replayctl.json" 2> "$dir/replayctl.err" &
  a=$!
  printf 'POST http://127.0.0.1:%s/mcp\nContent-Type: application/json\nAccept: application/json, text/event-stream\n@%s\n' \
    "${pport[vegeta]}" "$dir/body.json" > "$dir/targets.txt"
  /usr/bin/time -f "%e" -o "$dir/vegeta.time" $client "$vegeta" attack -rate 0 -max-workers 50 -workers 50 \
    -duration "$duration" -targets "$dir/targets.txt" -output "$dir/v.bin" 2> "$dir/vegeta.err" &
  b=$!
  /usr/bin/time -f "%e" -o "$dir/wrk.time" $client "$wrk" -t1 -c50 -d"$duration" -s "$src/scripts/wrk-tools-call.lua" \
    "http://127.0.0.1:${pport[wrk]}/mcp" > "$dir/wrk.out" 2>&1 &
  c=$!
  wait $a || echo "  replayctl: exit $? (see $dir/replayctl.err)"
  wait $b $c
  reqs[replayctl]=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['performance']['requests'])" "$dir/replayctl.json")
  reqs[vegeta]=$("$vegeta" report -type json "$dir/v.bin" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])")
  reqs[wrk]=$(grep -o '[0-9]* requests in' "$dir/wrk.out" | cut -d' ' -f1)
  echo "round $r (load average $(cut -d' ' -f1 /proc/loadavg))"
  for n in "${names[@]}"; do
    cpu=$(( $(oncpu "${spid[$n]}") - ${cpu0[$n]} ))
    kill -INT "${perfpid[$n]}"
    wait "${perfpid[$n]}" || true
    perfpid[$n]=
    kill "${spid[$n]}"
    wait "${spid[$n]}" 2>/dev/null || true
    spid[$n]=
    awk -F, -v n="$n" -v q="${reqs[$n]}" -v c="$cpu" -v e="$(time_figures "$dir/$n.time")" '
      /sys_enter/ {sc = $1} /context-switches/ {cs = $1}
      END {printf "  %-10s %7d requests in %5.2f s (%6.0f/s); its server %5.1f cpu-us, %4.2f syscalls, %5.3f context switches per request\n", n, q, e, q/e, c/q/1e3, sc/q, cs/q}' "$dir/$n.perf"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "outputs in $dir"
