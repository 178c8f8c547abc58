#!/usr/bin/env bash
# The recording proxy's resend against a real upstream that closes idle
# kept-alive connections (README, record over HTTP): server-everything
# (Node, Streamable HTTP; its keep-alive close after about 6 s idle), the
# replayctl binaries given recording it, and 100 clients
# (internal/testtools/keepalive) posting initialize, then again 5.95-6.05
# s later, each on a connection of its own, so that the proxy's 100 idle
# upstream connections are being closed as the second posts arrive. Per
# run: the statuses of the second round (a 502 is the proxy's: the
# upstream closed the connection the request went on). A run straight to
# the server ("direct") shows how many second posts its close cuts.
#
#   RUNS=5 scripts/bench-keepalive.sh /tmp/old/replayctl /tmp/new/replayctl
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
. scripts/bench-lib.sh
bench_init 13321
everything=$src/testdata/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[[ -f $everything ]] || { echo "bench-keepalive.sh: server-everything is not installed (npm ci in testdata)" >&2; exit 2; }
go build -o "$dir/keepalive" ./internal/testtools/keepalive
(($# > 0)) || { bench_build; set -- "$replayctl"; }

# one BINARY|direct: a run, through BINARY recording or straight to the server.
one() {
  local log=$dir/server.log url pids
  PORT=$port node "$everything" streamableHttp > /dev/null 2> "$log" &
  pids=$!
  until grep -q listening "$log"; do sleep 0.1; done
  url=http://127.0.0.1:$port/mcp
  if [[ $1 != direct ]]; then
    rm -f "$dir/t.jsonl" "$dir/record.log"
    "$1" record -o "$dir/t.jsonl" --listen "127.0.0.1:$((port + 1))" --upstream "$url" 2> "$dir/record.log" &
    pids="$! $pids"
    until grep -q recording "$dir/record.log"; do sleep 0.1; done
    url=http://127.0.0.1:$((port + 1))/mcp
  fi
  echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) $1: $("$dir/keepalive" -url "$url" -n "${CLIENTS:-100}")"
  kill -INT $pids
  wait $pids 2> /dev/null || true
}

for r in $(seq "$runs"); do
  for b in "$@" direct; do one "$b"; done
done
echo "outputs in $dir"
