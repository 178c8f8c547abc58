#!/bin/sh
# mcp-session.sh URL: initialize a 2025-11-25 session on a Streamable HTTP
# endpoint, confirm it (notifications/initialized), and print its
# Mcp-Session-Id, for wrk-serve.lua's WRK_SESSION.
set -eu
url=$1
id=$(curl -sS -D - -o /dev/null "$url" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{"form":{}},"roots":{"listChanged":true}},"clientInfo":{"name":"replayctl-testtape","version":"1"}}}' |
  tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id" {print $2}')
[ -n "$id" ] || { echo "mcp-session.sh: no Mcp-Session-Id from $url" >&2; exit 1; }
curl -sS -o /dev/null "$url" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' -H "Mcp-Session-Id: $id" \
  -H 'Mcp-Protocol-Version: 2025-11-25' \
  -d '{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}'
echo "$id"
