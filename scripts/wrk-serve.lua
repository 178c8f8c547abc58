-- wrk script: POST one stateless MCP 2026-07-28 tools/call per request,
-- with the standard headers that revision requires (Mcp-Protocol-Version,
-- Mcp-Method, Mcp-Name) and the request's _meta as the Go SDK client sends
-- it. The same request goes to `replayctl serve` of a tape the Go SDK
-- client recorded against the Go SDK conformance server, and to that
-- server itself (-stateless), for a side-by-side measure:
--
--   replayctl serve --listen 127.0.0.1:8931 examples/go-sdk-2026.jsonl &
--   wrk -t2 -c50 -d5s -s scripts/wrk-serve.lua http://127.0.0.1:8931/mcp
--
-- Environment:
--   WRK_TOOL     the tool (default "test_simple_text"; arguments are {})
--   WRK_SESSION  an Mcp-Session-Id already initialized (see
--                scripts/mcp-session.sh): then the request is a
--                session-based 2025-11-25 tools/call in that session
--
-- Answers that are 2xx but hold no "result" (a miss is a JSON-RPC error)
-- are counted and printed at the end; wrk counts the others as non-2xx.

local tool = os.getenv("WRK_TOOL") or "test_simple_text"

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
local session = os.getenv("WRK_SESSION")
if session and session ~= "" then
  wrk.headers["Mcp-Session-Id"] = session
  wrk.headers["Mcp-Protocol-Version"] = "2025-11-25"
  wrk.body = string.format(
    '{"jsonrpc":"2.0","id":%%d,"method":"tools/call","params":{"name":"%s","arguments":{}}}', tool)
else
  wrk.headers["Mcp-Protocol-Version"] = "2026-07-28"
  wrk.headers["Mcp-Method"] = "tools/call"
  wrk.headers["Mcp-Name"] = tool
  wrk.body = string.format(
    '{"jsonrpc":"2.0","id":%%d,"method":"tools/call","params":{"_meta":{' ..
    '"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{"form":{}},"roots":{"listChanged":true}},' ..
    '"io.modelcontextprotocol/clientInfo":{"name":"replayctl-testtape","version":"1"},' ..
    '"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"%s","arguments":{}}}',
    tool)
end

-- Each request has an id of its own (a session-based server refuses two
-- requests in flight with the same id): the thread's number, then a count.
local template = wrk.body
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init()
  failed = 0 -- per thread; read by done through thread:get
  first = nil
  count = 0
end

function request()
  count = count + 1
  return wrk.format(nil, nil, nil, string.format(template, tid * 1000000000 + count))
end

function response(status, headers, body)
  if status >= 200 and status < 300 and not string.find(body, '"result"', 1, true) then
    failed = failed + 1
    first = first or body
  end
end

function done(summary, latency, requests)
  local total, example = 0, nil
  for _, thread in ipairs(threads) do
    total = total + thread:get("failed")
    example = example or thread:get("first")
  end
  io.write(string.format("2xx answers without a result: %d\n", total))
  if example then
    io.write("  first: " .. string.sub(example, 1, 300) .. "\n")
  end
end
