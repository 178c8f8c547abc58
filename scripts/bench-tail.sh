#!/usr/bin/env bash
# The schedule's tail over HTTP, measured where the requests arrive (issue
# 24): 200 tools/call recorded 2 ms apart, replayed at 10x (0.2 ms apart,
# 5,000/s), against the slow test server answering at once, which logs
# when each call arrives (-arrivals). The same calls from vegeta (-rate
# 5000/s) and GoReplay (its file at 1000%) when they are installed. Each
# client runs pinned to core 0 and the server to core 1, both SCHED_FIFO
# (root; set CLIENT= SERVER= to run without). tailbench stats prints the
# deviation of each arrival from the ideal schedule.
#
#   RUNS=3 BEFORE=/path/to/old/replayctl VEGETA=vegeta GOR=goreplay scripts/bench-tail.sh
#   REPLAYCTL_FLAGS="--order none" RUNS=3 BEFORE=… scripts/bench-tail.sh   # both replayctl runs get the flags
#   CALLS=2000 GODEBUG=gctrace=1 scripts/bench-tail.sh   # a longer run; each client's collections in $OUT/NAME.out
#   DELAY=250us RUNS=3 scripts/bench-tail.sh   # the server answers each call this late
#   REPLAYCTL=/path/to/replayctl scripts/bench-tail.sh   # no build
#   IDLESPIN=1 RUNS=10 QUIET=20 scripts/bench-tail.sh   # the cores kept from halting, for every client (below)
#   WARM=0 RUNS=10 scripts/bench-tail.sh   # cold servers: no warm-up before each client (below)
#   OPEN=1 RUNS=5 scripts/bench-tail.sh   # replayctl also with --order none ("rc-open"), the open model of vegeta and GoReplay
#   SERVER_KIND=lean RUNS=3 scripts/bench-tail.sh   # every client against tailbench hpong, not the slow server (below)
#
# Each client meets a fresh server, and a fresh server's first calls run
# its code for the first time (page faults, its first buffers, a new
# goroutine's stack): measured cold, they put the server's start into
# the first calls' deviations, and every later call held behind their
# answers (the default order) with them, whoever the client. So by
# default (WARM=1) the script warms each server before each client's
# run, every client alike: tailbench warm makes 2 connections of 3
# calls each to the slow server (tools/call with the ids "warm-1" ..
# "warm-6") and to the floor's pong (started with -warm 2), then the
# client runs. The warm calls stay in the slow server's arrival log but
# tailbench stats and split skip them by their id; pong does not log
# them. What is left at the start is the client's own: its first
# connection (each client but replayctl dials it when the schedule
# begins; replayctl's handshake made it), its own code run the first
# time. WARM=0 measures cold servers, as the rounds before the eleventh
# did; the summary says which.
# Each arrival is taken twice (the twelfth round): when the server's
# handler read the call (the first field of the slow server's log; the
# figure of every round before) and when the call reached the server's
# socket, the kernel's receive time (slow -rx, rxstamp; pong the same).
# Over loopback the kernel stamps a packet in the sender's write, so the
# second is the client's own schedule as it left the client, with none
# of the server's wake-up and scheduling in it: beside tcpdump the two
# agree within a microsecond (p50 0.2 µs), where the handler read calls up to 1.1 ms
# after they came. What a late answer holds back (causal order: a call
# waits for the answer before it) stays in both. Both are printed for
# each run and in the summary, for every client alike.
# QUIET is how many tenths of a second to wait for other real-time jobs
# before each run (600). BURN=0 keeps a CPU burner (yes, an ordinary
# process) on core 0, the client's, for the whole script, BURN=1 on the
# server's: a disturbed minute made on purpose. Both clients and the
# server are real-time, so the burner never holds their core; what it
# changes is the machine around them (the other core's speed, the
# kernel's deferred network work, which runs at ordinary priority). Each replayctl run writes its report beside its
# log ($OUT/replayctl-1.json), and tailbench split prints its calls' way
# up, way back and held (the time a call waited for an answer).
#
# SERVER_KIND=lean (the thirteenth round) measures every client, the
# bare HTTP client included, against tailbench hpong instead of the slow
# server (SERVER_KIND=slow, the default, so that earlier figures keep
# their meaning): the same answers, the same arrival log with rx=, the
# same warm-up, pinning and summary, from one locked thread of raw system
# calls over epoll (internal/testtools/tailbench/hpong.go) where the slow
# server is Go's net/http, its goroutines' threads waiting for each other
# on the server's core. A measuring instrument, not replayctl: what
# changes is how much of the server is in every client's figure alike.
# hpong keeps its log in memory and writes it when the script stops it
# (SIGTERM); it has no -delay (DELAY must be 0 with it).
#
# Each run begins with the machine's floor (FLOOR=0: none): tailbench
# ping and pong, a bare loopback TCP ping-pong with the same pacing and
# cores, no HTTP and no Go network poller (internal/testtools/tailbench,
# floor.go). A run whose floor misses 0.2 ms was a slow minute of the
# machine, not of the client. Then the same bare client over HTTP
# against the slow server (tailbench ping -http, "bare"): what is late
# there and not in the floor is the server's; what is late in replayctl
# and not there, replayctl's. IDLESPIN=1 keeps an idle-class busy loop
# (SCHED_IDLE, which runs only when nothing else would) on both cores
# for the whole script, for every client alike: the processors never
# halt, so a wake-up is not a halted virtual processor's. At the end a
# summary: each client's p99 per run and how many met 0.2 ms, and its
# calls more than 0.2 ms from the schedule, at the start (calls 0-5: a
# slow first round trip holds the calls after it) and later.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
bench_init 18941
calls=${CALLS:-200}
warm=${WARM:-1}
kind=${SERVER_KIND:-slow}
if [[ $kind != slow && $kind != lean ]]; then
  echo "bench-tail.sh: SERVER_KIND=$kind: want slow (the slow test server, the default) or lean (tailbench hpong)" >&2
  exit 2
fi
if [[ $kind == lean && ${DELAY:-0} != 0 ]]; then
  echo "bench-tail.sh: DELAY=$DELAY: tailbench hpong answers at once; drop DELAY or use SERVER_KIND=slow" >&2
  exit 2
fi
if [[ $warm != 0 && $warm != 1 ]]; then
  echo "bench-tail.sh: WARM=$warm: want 1 (warm each server before each client, the default) or 0 (cold servers)" >&2
  exit 2
fi
vegeta=${VEGETA:-$(command -v vegeta || true)}
gor=${GOR:-$(command -v goreplay || command -v gor || true)}
bench_build
go build -o "$dir/tailbench" ./internal/testtools/tailbench
"$dir/tailbench" tape -calls "$calls" -gap 2ms -o "$dir/t.jsonl"
"$dir/tailbench" gor -calls "$calls" -gap 2ms -host "127.0.0.1:$port" -o "$dir/t.gor"
"$dir/tailbench" body -o "$dir/body.json"
: > "$dir/p99s"
printf 'POST http://127.0.0.1:%s/mcp\nContent-Type: application/json\nAccept: application/json, text/event-stream\n@%s\n' "$port" "$dir/body.json" > "$dir/targets.txt"

# others PID: the nanoseconds the real-time processes but PID (and the
# kernel's threads) have run, and ksoftirqd/0's and ksoftirqd/1's (the
# kernel's network work deferred to ordinary priority): "RT KS0 KS1".
# Taken before and after a run, the difference says whether another
# job's real-time process, or deferred network work, took a core while
# the calls were due.
others() {
  local rt=0 p
  for p in $(ps -eo pid=,ppid=,cls= | awk -v s="$1" '($3=="FF"||$3=="RR") && $2!=2 && $1!=2 && $1!=s {print $1}'); do
    rt=$((rt + $(cat /proc/"$p"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f", s}')))
  done
  echo "$rt $(awk '{printf "%s", $1}' /proc/"$(pgrep -x ksoftirqd/0)"/schedstat) $(awk '{printf "%s", $1}' /proc/"$(pgrep -x ksoftirqd/1)"/schedstat)"
}

# measure NAME CMD...: one run of CMD against a fresh server.
measure() {
  local name=$1 log="$dir/$1.log"
  shift
  quiet
  rm -f "$log"
  if [[ $kind == lean ]]; then
    $server "$dir/tailbench" hpong -addr "127.0.0.1:$port" -arrivals "$log" 2> "$dir/$name.server" &
  else
    $server "$dir/slow" -http "127.0.0.1:$port" -arrivals "$log" -rx -delay "${DELAY:-0}" &
  fi
  local pid=$!
  if ! wait_http "http://127.0.0.1:$port/mcp" "$pid"; then
    echo "$name: no server, no run" >&2
    kill "$pid" 2>/dev/null || true # alive when it did not answer in 30 s
    wait "$pid" 2>/dev/null || true
    if [[ $kind == lean ]]; then
      sed 's/^/  /' "$dir/$name.server" >&2 # why hpong did not start
    fi
    return 0
  fi
  if [[ $warm == 1 ]]; then
    "$dir/tailbench" warm -http -addr "127.0.0.1:$port" -conns 2 -calls 3 || echo "$name: warm-up failed (this run meets a cold server)" >&2
  fi
  local cpu0 o0 o1
  cpu0=$(oncpu "$pid")
  o0=$(others "$pid")
  # Bounded: GoReplay 1.3 spins at the end of its file until killed.
  timeout -k 2 ${LIMIT:-10} $client "$@" > "$dir/$name.out" 2>&1 || echo "$name: exit $?" >&2
  o1=$(others "$pid")
  echo "$name: the server on its core $(( ($(oncpu "$pid") - cpu0) / calls / 1000 )) µs per call"
  echo "$o0 $o1" | awk '{printf "  meanwhile: other real-time processes ran %.1f ms, ksoftirqd/0 %.1f ms, ksoftirqd/1 %.1f ms\n", ($4-$1)/1e6, ($5-$2)/1e6, ($6-$3)/1e6}'
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  if [[ $kind == lean ]]; then
    sed 's/^/  /' "$dir/$name.server" # its connections, requests and read-to-written times
  fi
  report "$name"
}

# report NAME: the run's deviations, by the handler's time and by the
# kernel's receive time (rx), its calls' way up and back where it has a
# report, and its p99s kept for the summary.
report() {
  local name=$1 log="$dir/$1.log" line linerx
  line=$("$dir/tailbench" stats -gap 200us -calls "$calls" "$log")
  echo "$line"
  local fields='s/.*schedule p50 [0-9.]* p99 \([0-9.]*\) .*late > [^:]*: \([0-9]*\) at the start [^,]*, \([0-9]*\) later$/\1 \2 \3/'
  local atrx="x x x" # no receive stamps: counted as neither met nor late
  if linerx=$("$dir/tailbench" stats -rx -gap 200us -calls "$calls" "$log" 2>&1); then
    echo "  at the socket: ${linerx#*: }"
    atrx=$(sed "$fields" <<< "$linerx")
  else
    echo "  at the socket: none ($linerx)"
  fi
  echo "${name%-*} $(sed "$fields" <<< "$line") $atrx" >> "$dir/p99s"
  if [[ -f $dir/$name.json ]]; then
    "$dir/tailbench" split -report "$dir/$name.json" "$log"
    "$dir/tailbench" split -rx -gap 200us -report "$dir/$name.json" "$log" 2>&1 | grep -v 'held by the answer before them; the replayer' | sed 's/^/  at the socket: /'
  fi
}

# floor NAME: the machine's floor, ping against pong on the cores and at
# the priority of the client and the server.
floor() {
  local name=$1 fport=$((port + 1))
  quiet
  rm -f "$dir/$name.log"
  $server timeout ${LIMIT:-10} "$dir/tailbench" pong -addr "127.0.0.1:$fport" -arrivals "$dir/$name.log" -warm $((warm * 2)) &
  local pid=$!
  if [[ $warm == 1 ]]; then
    "$dir/tailbench" warm -addr "127.0.0.1:$fport" -conns 2 -calls 3 || echo "$name: warm-up failed" >&2
  fi
  $client "$dir/tailbench" ping -addr "127.0.0.1:$fport" -calls "$calls" -gap 200us -report "$dir/$name.json" || echo "$name: ping failed" >&2
  if ! wait "$pid" || [[ ! -s $dir/$name.log ]]; then
    echo "$name: pong failed, no floor for this run" >&2
    return 0
  fi
  echo "$name: the bare ping-pong"
  report "$name"
}

bg=()
trap 'if ((${#bg[@]})); then kill "${bg[@]}"; fi' EXIT
if [[ -n ${BURN:-} ]]; then
  taskset -c "$BURN" yes > /dev/null &
  bg+=($!)
  echo "a burner on core $BURN"
fi
if [[ ${IDLESPIN:-0} == 1 ]]; then
  for core in 0 1; do
    chrt -i 0 taskset -c "$core" awk 'BEGIN { for (;;) ; }' &
    bg+=($!)
  done
  echo "an idle-class spinner on cores 0 and 1 (every client alike)"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "the server every client meets: $kind ($([[ $kind == lean ]] && echo "tailbench hpong" || echo "the slow test server"))"
warmth() {
  if [[ $warm == 1 ]]; then
    echo "servers warmed before each client's run (WARM=1: 2 connections of 3 calls, kept out of the figures)"
  else
    echo "cold servers (WARM=0: no warm-up; a client's first calls meet the server's start)"
  fi
}
warmth
for run in $(seq "$runs"); do
  if [[ ${FLOOR:-1} != 0 ]]; then
    floor "floor-$run"
    measure "bare-$run" "$dir/tailbench" ping -http -addr "127.0.0.1:$port" -calls "$calls" -gap 200us -report "$dir/bare-$run.json"
  fi
  if [[ -n ${BEFORE:-} ]]; then
    measure "before-$run" "$BEFORE" run "$dir/t.jsonl" --speed 10x --target "http://127.0.0.1:$port/mcp" --report "$dir/before-$run.json" ${REPLAYCTL_FLAGS:-}
  fi
  measure "replayctl-$run" "$replayctl" run "$dir/t.jsonl" --speed 10x --target "http://127.0.0.1:$port/mcp" --report "$dir/replayctl-$run.json" ${REPLAYCTL_FLAGS:-}
  if [[ ${OPEN:-0} == 1 ]]; then
    measure "rc-open-$run" "$replayctl" run "$dir/t.jsonl" --speed 10x --order none --target "http://127.0.0.1:$port/mcp" --report "$dir/rc-open-$run.json" ${REPLAYCTL_FLAGS:-}
  fi
  if [[ -n $vegeta ]]; then
    measure "vegeta-$run" "$vegeta" attack -rate 5000/s -duration "$((calls / 5 + 1))ms" -targets "$dir/targets.txt" -output /dev/null
  fi
  if [[ -n $gor ]]; then
    measure "goreplay-$run" "$gor" --input-file "$dir/t.gor|1000%" --output-http "http://127.0.0.1:$port" --exit-after 2s
  fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
summary() {
  local col=$1
  awk -v c="$col" '{p[$1] = p[$1] (n[$1]++ ? ", " : "") $c; if ($c != "x" && $c <= 0.2) ok[$1]++}
    END {for (k in p) printf "  %-10s %s: %d of %d\n", k, p[k], ok[k], n[k]}' "$dir/p99s" | sort
}
late() {
  local col=$1
  awk -v c="$col" '{s[$1] += $c; l[$1] += $(c+1); if ($c > 0) rs[$1]++; if ($(c+1) > 0) rl[$1]++}
    END {for (k in s) printf "  %-10s %d (%d runs), %d (%d runs)\n", k, s[k], rs[k], l[k], rl[k]}' "$dir/p99s" | sort
}
echo "p99 per run (ms), and the runs at or under 0.2 ms, against the $kind server; $(warmth):"
echo " by the server's handler (when it read each call):"
summary 2
echo " at the server's socket (the kernel's receive time: when each call reached the server):"
summary 5
echo "calls more than 0.2 ms from the schedule, all runs: at the start (calls 0-5; in how many runs), later (in how many runs):"
echo " by the handler:"
late 3
echo " at the socket:"
late 6
echo "logs in $dir"
