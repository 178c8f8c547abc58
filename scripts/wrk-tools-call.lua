-- wrk script: POST one MCP tools/call JSON-RPC request per request, for
-- load tests of a stateless Streamable HTTP endpoint (no handshake, no
-- session id).
--
--   wrk -t2 -c50 -d5s -s scripts/wrk-tools-call.lua http://127.0.0.1:PORT/mcp
--
-- Environment:
--   WRK_TOOL              tool name (default "echo", the slow test server's tool;
--                         "test_simple_text" on the Go SDK conformance server)
--   WRK_ARGS              the arguments object as JSON (default {"text":"hi"})
--   WRK_PROTOCOL_VERSION  if set, sent as the MCP-Protocol-Version header
--   WRK_CHECK             "0" turns off the body check below
--
-- wrk reports answers that are not 2xx as "Non-2xx or 3xx responses". A
-- server can also answer 200 with a JSON-RPC error (the Go SDK's stateful
-- mode does, for a tools/call without a session), so the script counts
-- 2xx answers whose body holds no "result" and prints them at the end.

local tool = os.getenv("WRK_TOOL") or "echo"
local args = os.getenv("WRK_ARGS") or '{"text":"hi"}'

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
local version = os.getenv("WRK_PROTOCOL_VERSION")
if version and version ~= "" then
  wrk.headers["MCP-Protocol-Version"] = version
end
wrk.body = string.format(
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":%s}}',
  tool, args)

if os.getenv("WRK_CHECK") ~= "0" then
  local threads = {}

  function setup(thread)
    table.insert(threads, thread)
  end

  function init()
    failed = 0 -- per thread; read by done through thread:get
    first = nil
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
end
