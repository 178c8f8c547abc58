#!/usr/bin/env bash
# CLI-level figures for BENCHMARKS.md: peak memory on 100k- and 1M-message
# tapes, and timing precision at 10x. Needs Go, python3 and GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/replayctl" ./cmd/replayctl
go build -o "$dir/gentape" ./internal/testtools/gentape

echo "== peak memory, fast, against the built-in mock =="
for requests in 50000 500000; do
  "$dir/gentape" -requests "$requests" -gap 1ms -o "$dir/t.jsonl"
  /usr/bin/time -f "%M" -o "$dir/rss" "$dir/replayctl" run "$dir/t.jsonl" --speed fast -o json > "$dir/r.json"
  python3 - "$dir/r.json" "$(cat "$dir/rss")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["summary"]
print(f'{s["total_messages"]:>8} messages: peak RSS {int(sys.argv[2])/1024:.1f} MiB, '
      f'{r["validation"]["passed"]} answers validated, {s["duration_ms"]/1000:.2f}s, '
      f'{r["performance"]["throughput_per_s"]:.0f} requests/s')
PY
done

echo "== timing at 10x: 5000 requests 2ms apart (a message every 1ms) =="
"$dir/gentape" -requests 5000 -gap 2ms -o "$dir/t.jsonl"
for run in 1 2 3; do
  "$dir/replayctl" run "$dir/t.jsonl" --speed 10x -o json > "$dir/r.json"
  python3 - "$dir/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); lag = r["performance"]["schedule_lag_ms"]
ideal = 5000 * 2.0 / 10  # the last request is due 10 s in, at 10x: 1000 ms
d = r["summary"]["duration_ms"]
print(f'lag p50 {lag["p50"]*1000:.0f}µs p99 {lag["p99"]*1000:.0f}µs max {lag["max"]*1000:.0f}µs; '
      f'duration {d:.1f}ms vs ideal {ideal:.0f}ms ({(d/ideal-1)*100:+.2f}%)')
PY
done
