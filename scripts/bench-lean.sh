#!/usr/bin/env bash
# The measuring server's own cost (the thirteenth round): the slow test
# server (Go's net/http) and tailbench hpong (one locked thread, epoll,
# raw system calls), each serving the same replay, in turn: replayctl
# replays bench-tail.sh's tape (200 tools/call at 10x, 0.2 ms apart),
# after the same warm-up, against a fresh server of each kind. Unpinned
# and at ordinary priority (nothing under chrt: bench-tail.sh measures
# the schedule; this measures the server). For each run and server:
#  - its CPU per call: the time its threads ran (/proc/PID/task/*/schedstat)
#    over the replay, divided by the calls;
#  - rx to read: from the kernel's receive stamp of each call to when the
#    server read it (its arrival log: the first field less rx=);
#  - read to written, with TAP=1 (tcpdump on lo, in a second pass of its
#    own so that the capture's cost is not in the CPU figure): from the
#    server's read of each call (its log) to its answer's packet on lo
#    (tcpdump's stamp, taken in the server's write), joined by the id;
#  - system calls per call, with COUNT=1 (strace -f -c attached to the
#    server over the replay, in a pass of its own:
#    strace slows every system call, and the runtime's own calls, sysmon's
#    sleeps and futexes, grow with it: the calls that move the requests,
#    epoll, read, recvmsg and write, are counted apart);
#  - context switches per call (/proc/PID/task/*/status), with the CPU;
#  - instructions per call, with CG=1: the server under cachegrind, the
#    instructions (user space: its own code, the runtime's, libc's) of a
#    run with the replay less those of a run with the warm-up alone, over
#    the calls. Counts, which the machine's load does not move.
#
#   RUNS=5 scripts/bench-lean.sh
#   RUNS=5 TAP=1 COUNT=1 scripts/bench-lean.sh   # read to written, system calls too (root: tcpdump, strace)
#   RUNS=3 CG=1 scripts/bench-lean.sh   # instructions per call too (valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
bench_init 18951
calls=${CALLS:-200}
bench_build
go build -o "$dir/tailbench" ./internal/testtools/tailbench
"$dir/tailbench" tape -calls "$calls" -gap 2ms -o "$dir/t.jsonl"

# start KIND LOG [WRAP...]: a fresh server of KIND on $port logging to
# LOG, run by WRAP when given; sets pid.
start() {
  local kind=$1 log=$2
  shift 2
  rm -f "$log"
  if [[ $kind == lean ]]; then
    "$@" "$dir/tailbench" hpong -addr "127.0.0.1:$port" -arrivals "$log" 2> "$log.server" &
  else
    "$@" "$dir/slow" -http "127.0.0.1:$port" -arrivals "$log" -rx 2> "$log.server" &
  fi
  pid=$!
  if ! wait_http "http://127.0.0.1:$port/mcp" "$pid"; then
    kill "$pid" 2> /dev/null || true
    echo "bench-lean: no $kind server; it said: $(cat "$log.server")" >&2
    exit 1
  fi
  "$dir/tailbench" warm -http -addr "127.0.0.1:$port" -conns 2 -calls 3
}

# stop: SIGTERM to the server, and wait for it (hpong writes its log then).
stop() {
  kill "$pid"
  wait "$pid" 2> /dev/null || true
}

# replay NAME: replayctl's run of the tape against the server on $port.
replay() {
  "$replayctl" run "$dir/t.jsonl" --speed 10x --target "http://127.0.0.1:$port/mcp" --report "$dir/$1.json" > "$dir/$1.out" 2>&1 || echo "$1: replayctl exit $?" >&2
}

# quantiles: p50, p99 and max of the numbers on stdin (µs, one a line).
quantiles() {
  sort -n | awk '{v[NR] = $1} END {if (!NR) {print "none"; exit} i = int(NR * 0.99); if (i < 1) i = 1; printf "p50 %.1f p99 %.1f max %.1f µs", v[int((NR + 1) / 2)], v[i], v[NR]}'
}

# wait_line FILE PATTERN PID TOOL: until TOOL (PID, started beside the
# server) wrote PATTERN to FILE. It gives up, saying so with what TOOL
# wrote, stopping TOOL and the server, when TOOL has exited (not root,
# not installed, ptrace refused) or after 30 s, as wait_http does.
wait_line() {
  local tries=0
  until grep -q "$2" "$1"; do
    if ! kill -0 "$3" 2> /dev/null || ((++tries >= 600)); then
      echo "bench-lean: $4 did not start (pid $3); it said: $(cat "$1")" >&2
      kill "$3" 2> /dev/null || true
      stop
      exit 1
    fi
    sleep 0.05
  done
}

# nsdiff: an awk function, A - B of two unix-ns stamps given as text,
# exact (a double holds a unix-ns stamp to 256 ns only).
nsdiff='function nsdiff(a, b) { return (substr(a, 1, length(a) - 9) - substr(b, 1, length(b) - 9)) * 1e9 + (substr(a, length(a) - 8) - substr(b, length(b) - 8)) }'

# rxread LOG: rx to read of each measured call (not the warm-up's), µs.
rxread() {
  awk "$nsdiff"' $2 == "tools/call" && $3 !~ /^"warm-/ && $4 ~ /^rx=/ {print nsdiff($1, substr($4, 4)) / 1000}' "$1" | quantiles
}

# switches PID: the context switches of PID's threads so far.
switches() {
  cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "CPU per call over a $calls-call replay at 10x, unpinned, slow and hpong in turn:"
for run in $(seq "$runs"); do
  for kind in slow lean; do
    name=$kind-$run
    start "$kind" "$dir/$name.log"
    cpu0=$(oncpu "$pid")
    sw0=$(switches "$pid")
    replay "$name"
    cpu1=$(oncpu "$pid")
    sw1=$(switches "$pid")
    stop
    n=$(awk '$2 == "tools/call" && $3 !~ /^"warm-/' "$dir/$name.log" | wc -l)
    printf '  %-7s %5.1f µs per call, %.1f context switches per call (%d calls logged); rx to read %s; load %s\n' \
      "$name" "$(echo "$cpu0 $cpu1 $calls" | awk '{print ($2 - $1) / $3 / 1000}')" "$(echo "$sw0 $sw1 $calls" | awk '{print ($2 - $1) / $3}')" "$n" "$(rxread "$dir/$name.log")" "$(cut -d' ' -f1 /proc/loadavg)"
  done
done

if [[ ${TAP:-0} == 1 ]]; then
  echo "read to written (the server's read, by its log, to its answer on lo, by tcpdump), a pass of its own:"
  for run in $(seq "$runs"); do
    for kind in slow lean; do
      name=tap-$kind-$run
      start "$kind" "$dir/$name.log"
      : > "$dir/$name.tcpdump"
      tcpdump -i lo -n -l --immediate-mode -tt --time-stamp-precision=nano -A "tcp src port $port" > "$dir/$name.tap" 2> "$dir/$name.tcpdump" &
      tap=$!
      # tcpdump listens once it says so.
      wait_line "$dir/$name.tcpdump" 'listening on' "$tap" tcpdump
      replay "$name"
      stop
      # tcpdump drops what it has not yet written when interrupted (under
      # load it once had written none): wait for the answers to the calls
      # (not initialize's), 5 s at most.
      for _ in $(seq 100); do
        (($(grep -o '"result":{"content"' "$dir/$name.tap" | wc -l) >= calls)) && break
        sleep 0.05
      done
      kill -INT "$tap"
      wait "$tap" || true
      printf '  %-12s read to written %s\n' "$name" "$(
        awk "$nsdiff"' NR == FNR {if ($2 == "tools/call" && $3 !~ /^"warm-/) read[$3] = $1; next}
          /^[0-9]+\.[0-9]+ IP / {split($1, t, "."); ts = t[1] t[2]; next}
          match($0, /"id":[0-9]+,"result"/) {id = substr($0, RSTART + 5, RLENGTH - 14); if ((id in read) && !(id in seen)) {seen[id] = 1; print nsdiff(ts, read[id]) / 1000}}' \
          "$dir/$name.log" "$dir/$name.tap" | quantiles)"
    done
  done
fi
if [[ ${COUNT:-0} == 1 ]]; then
  echo "system calls per call (strace -f -c over the replay), a pass of its own: all, and those that move the calls (epoll, read, recvmsg, write)"
  for run in $(seq "$runs"); do
    for kind in slow lean; do
      name=count-$kind-$run
      start "$kind" "$dir/$name.log"
      : > "$dir/$name.attach"
      strace -f -c -p "$pid" -o "$dir/$name.strace" 2> "$dir/$name.attach" &
      tr=$!
      # strace counts once it has attached every thread.
      wait_line "$dir/$name.attach" attached "$tr" strace
      replay "$name"
      kill -INT "$tr"
      wait "$tr" || true
      stop
      printf '  %-14s %s\n' "$name" "$(awk -v n="$calls" '$NF == "total" {all = $4}
        $NF ~ /^(epoll_pwait|epoll_wait|read|recvmsg|write)$/ {io += $4} END {printf "%.1f system calls per call, %.1f of them epoll, read, recvmsg or write", all / n, io / n}' "$dir/$name.strace")"
    done
  done
fi
if [[ ${CG:-0} == 1 ]]; then
  echo "instructions per call (cachegrind: a run with the replay less one with the warm-up alone), a pass of its own:"
  for run in $(seq "$runs"); do
    for kind in slow lean; do
      for part in base replay; do
        name=cg-$kind-$part-$run
        start "$kind" "$dir/$name.log" env GODEBUG=cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$dir/$name.cg"
        if [[ $part == replay ]]; then
          replay "$name"
        fi
        stop
      done
      base=$(grep -E '^summary:' "$dir/cg-$kind-base-$run.cg" | awk '{print $2}')
      full=$(grep -E '^summary:' "$dir/cg-$kind-replay-$run.cg" | awk '{print $2}')
      printf '  %-8s %d instructions per call\n' "$kind-$run" "$(((full - base) / calls))"
    done
  done
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "logs in $dir"
