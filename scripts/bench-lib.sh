# Sourced by bench-side.sh, bench-server-cost.sh, bench-tail.sh and bench-keepalive.sh: what
# they share (where outputs go, pinning, the binaries, waiting for a quiet
# machine, reading CPU time) and what bench-side.sh and
# bench-server-cost.sh both send. scripts/bench-lib-test.sh checks the
# helpers that read other tools' output.

# bench_init PORT: the settings every script takes from the environment:
# dir (OUT, a new temporary folder by default), runs (RUNS, 3), port
# (PORT, the script's own default given), client and server (CLIENT,
# SERVER: the commands that pin them, each to a core of its own under
# SCHED_FIFO; set them empty to run without, as a user who is not root
# must).
bench_init() {
  dir=${OUT:-$(mktemp -d)}
  mkdir -p "$dir"
  runs=${RUNS:-3}
  port=${PORT:-$1}
  client=${CLIENT-chrt -f 50 taskset -c 0}
  server=${SERVER-chrt -f 50 taskset -c 1}
}

# bench_build: builds, into $dir, the slow test server (slow) and, unless
# REPLAYCTL names one, replayctl; sets replayctl to the binary to measure.
bench_build() {
  replayctl=${REPLAYCTL:-}
  if [[ -z $replayctl ]]; then
    go build -o "$dir/replayctl" ./cmd/replayctl
    replayctl=$dir/replayctl
  fi
  go build -o "$dir/slow" ./internal/testserver/slow
}

# wait_http URL [PID]: until a server answers at URL (any status). It
# gives up, saying so, when PID (the server) has exited or after 30 s,
# rather than wait for ever on a server that did not start.
wait_http() {
  local tries=0
  until curl -s -o /dev/null "$1"; do
    if [[ -n ${2:-} ]] && ! kill -0 "$2" 2>/dev/null; then
      echo "wait_http: the server (pid $2) exited before it answered at $1" >&2
      return 1
    fi
    if ((++tries >= 600)); then
      echo "wait_http: nothing answered at $1 in 30 s" >&2
      return 1
    fi
    sleep 0.05
  done
}

# oncpu PID: the nanoseconds PID's threads have run (schedstat).
oncpu() {
  cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {printf "%.0f", s}'
}

# quiet [PID]: waits (up to QUIET tenths of a second, 600 by default)
# until no real-time process runs but PID (the server, when given) and
# the kernel's own threads: another job pinned under SCHED_FIFO at the
# same priority holds a core until it blocks, and a run it overlaps
# measures that job (stalls of tens of milliseconds).
quiet() {
  local i
  for i in $(seq "${QUIET:-600}"); do
    if ! ps -eo pid=,ppid=,cls= | awk -v s="${1:-}" '($3=="FF"||$3=="RR") && $2!=2 && $1!=2 && $1!=s {found=1} END {exit !found}'; then
      return 0
    fi
    sleep 0.1
  done
  echo "  another real-time process is running: measuring anyway" >&2
}

# time_figures FILE: the figures /usr/bin/time -o wrote to FILE, on one
# line as its -f format says. When the command exits non-zero, GNU time
# writes "Command exited with non-zero status N" on a line before them:
# they are the last line either way.
time_figures() {
  tail -n 1 "$1"
}

# side_tape FILE CALLS: the session bench-side.sh and bench-server-cost.sh
# replay, as recorded against the slow test server (initialize,
# initialized, CALLS tools/call echo).
side_tape() {
  awk -v calls="$2" 'BEGIN {
  print "{\"type\":\"header\",\"format\":\"replayctl-tape\",\"version\":1,\"protocol_version\":\"2025-06-18\",\"transport\":\"http\"}"
  m = "{\"type\":\"message\",\"seq\":%d,\"t_us\":%d,\"session\":\"s1\",\"dir\":\"%s\",\"msg\":%s}\n"
  printf m, 0, 0, "c2s", "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"b\",\"version\":\"1\"}}}"
  printf m, 1, 100, "s2c", "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"slow\",\"version\":\"1\"}}}"
  printf m, 2, 200, "c2s", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
  for (i = 1; i <= calls; i++) {
    printf m, 2*i+1, 100*(2*i+1), "c2s", "{\"jsonrpc\":\"2.0\",\"id\":" i ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}"
    printf m, 2*i+2, 100*(2*i+2), "s2c", "{\"jsonrpc\":\"2.0\",\"id\":" i ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}"
  }
}' > "$1"
}

# side_body FILE: the one tools/call vegeta and wrk post.
side_body() {
  printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}' > "$1"
}
