#!/usr/bin/env bash
# The coordinated shards of issue 25 (BENCHMARKS.md, "Coordinated shards"):
# 1, 2 and 4 shard processes of one run, coordinated by `replayctl
# coordinate` (a process of its own, so that its CPU and memory are its
# own), replaying a tape of 9 requests × SESSIONS against the slow test
# server over HTTP (each tools/call answered after DELAY, 20ms), all on
# loopback. Prints,
# per shard count, the merged throughput, each shard's first request
# after the common start and the skew, the intervals and their bytes,
# and the coordinator's CPU (user+sys seconds) and peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
SESSIONS=${SESSIONS:-1000}
SPEED=${SPEED:-fast}
PORT=${PORT:-18941}
CPORT=${CPORT:-18942}
bin=$(mktemp -d)/replayctl
go build -o "$bin" ./cmd/replayctl
slow=$(dirname "$bin")/slow
go build -o "$slow" ./internal/testserver/slow
tape=$(dirname "$bin")/bench.jsonl
# The tape: initialize, initialized and 8 tools/call echo, recorded over
# stdio from the same server.
{
	echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
	echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	for i in 1 2 3 4 5 6 7 8; do echo "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"call $i\"}}}"; done
	sleep 1
} | "$bin" record -o "$tape" --force -- "$slow" >/dev/null 2>&1
"$slow" -http 127.0.0.1:$PORT -delay "${DELAY:-20ms}" &
serve=$!
trap 'kill $serve 2>/dev/null' EXIT
until curl -s -o /dev/null http://127.0.0.1:$PORT/mcp; do sleep 0.1; done
export REPLAYCTL_COORDINATOR_TOKEN=bench-$RANDOM$RANDOM
out=$(mktemp -d)
for n in ${SHARDS:-1 2 4}; do
	/usr/bin/time -f '%U %S %M' -o "$out/time-$n" \
		"$bin" coordinate --shards "$n" --listen 127.0.0.1:$CPORT -o json >"$out/coord-$n.json" 2>"$out/coord-$n.err" &
	coord=$!
	until grep -q 'listening on' "$out/coord-$n.err" 2>/dev/null; do sleep 0.05; done
	pids=()
	for i in $(seq 0 $((n - 1))); do
		REPLAYCTL_SHARD_INDEX=$i "$bin" run "$tape" --target http://127.0.0.1:$PORT/mcp \
			--sessions "$SESSIONS" --speed "$SPEED" --shards "$n" --coordinator http://127.0.0.1:$CPORT -q >/dev/null 2>"$out/shard-$n-$i.err" &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	wait "$coord" || true
	read -r user sys rss < <(tail -1 "$out/time-$n")
	jq -c --arg n "$n" --arg user "$user" --arg sys "$sys" --arg rss "$rss" '{
		shards: ($n | tonumber),
		passed: .summary.passed,
		requests: .performance.requests,
		throughput_per_s: (.performance.throughput_per_s | floor),
		intended_per_s: (.load.intended_rate_per_s // null),
		first_sent_ms: [.coordination.shards[].first_sent_ms],
		skew_ms: .coordination.skew_ms,
		intervals: [.coordination.shards[].intervals],
		bytes_per_interval: [.coordination.shards[] | if .intervals > 0 then (.interval_bytes / .intervals | floor) else 0 end],
		coordinator_cpu_s: (($user | tonumber) + ($sys | tonumber)),
		coordinator_rss_kib: ($rss | tonumber)
	}' "$out/coord-$n.json"
done
