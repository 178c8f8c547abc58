package tape

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/replayctl/replayctl/jsonrpc"
)

// EncodePlaywright writes the tape r as a Playwright Test spec (an ES
// module, e.g. replay.spec.mjs) that replays each session through the
// MCP TypeScript SDK's client over Streamable HTTP: one test per session
// (Playwright runs a file's tests one after another unless told to run
// them in parallel), whose client has the clientInfo and
// capabilities of the recorded initialize and connects without sending
// the SDK's own initialize, then sends each recorded request and
// notification, initialize as recorded among them, at its recorded time
// after the session's start, and expects each request to be answered as
// recorded: a result where a result was recorded, a JSON-RPC error where
// an error was.
// The client's answers to the server's requests are not sent as
// recorded (the SDK client answers what it has handlers for), nor are
// batches.
//
// The spec sends to the environment variable MCP_URL, or else the
// export's URL (ExportURL); it imports @playwright/test and
// @modelcontextprotocol/sdk, which the project running it installs. It
// streams (see walkCalls). r is left at its end. Errors are r's (*Error)
// or w's.
func EncodePlaywright(w io.Writer, r *Reader, opts ...ExportOption) error {
	cfg := newExportConfig(r.Header(), opts)
	bw := bufio.NewWriter(w)
	last := -1
	begin := func(sessions []exportSession) error {
		calls := 0
		for _, s := range sessions {
			calls += s.Calls
		}
		fmt.Fprintf(bw, `// A Playwright Test spec written by %s from the tape %s: %d sessions,
// %d client messages, replayed through the MCP TypeScript SDK client.
//
//   MCP_URL=%s npx playwright test replay.spec.mjs
import { test, expect } from "@playwright/test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { McpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js";

const MCP_URL = process.env.MCP_URL || %s;
%s`, oneLine(cfg.creator), jsString(r.Path()), len(sessions), calls, oneLine(cfg.url), jsString(cfg.url), playwrightHelpers)
		return nil
	}
	each := func(s exportSession, c exportCall) error {
		if s.Index != last {
			if last >= 0 {
				bw.WriteString("  } finally {\n    await s.client.close();\n  }\n});\n")
			}
			last = s.Index
			info, caps := `{ name: "replayctl-playwright", version: "1" }`, "{}"
			if c.Method == "initialize" {
				var p struct {
					ClientInfo   json.RawMessage `json:"clientInfo"`
					Capabilities json.RawMessage `json:"capabilities"`
				}
				if m, err := jsonrpc.Parse(c.Req.Msg); err == nil && json.Unmarshal(m.Params(), &p) == nil {
					if len(p.ClientInfo) > 0 {
						info = string(p.ClientInfo)
					}
					if len(p.Capabilities) > 0 {
						caps = string(p.Capabilities)
					}
				}
			}
			fmt.Fprintf(bw, "\n// Session %s: %d client messages.\ntest(%s, async () => {\n  const s = await begin(%s, %s);\n  try {\n",
				jsString(s.Name), s.Calls, jsString("session "+s.Name), info, caps)
		}
		label := fmt.Sprintf("seq %d %s", c.Req.Seq, callLabel(c))
		at := k6ms(c.Req.TUS - s.Start)
		params := "undefined"
		if m, err := jsonrpc.Parse(c.Req.Msg); err == nil && len(m.Params()) > 0 {
			params = string(m.Params())
		}
		switch {
		case c.Method == "":
			fmt.Fprintf(bw, "    // %s: not sent (the SDK client answers the server's requests itself).\n", label)
		case c.ID == "":
			fmt.Fprintf(bw, "    await notify(s, %s, %s, %s);\n", at, jsString(c.Method), params)
		default:
			want := c.Want
			if c.AnswerID != c.ID {
				// An error with a null id: the SDK client cannot tie it to
				// the request, so it is sent and not awaited.
				fmt.Fprintf(bw, "    // The next request was answered by an error with a null id (HTTP %d): sent, not awaited.\n", c.Status)
				want = ""
			}
			fmt.Fprintf(bw, "    await call(s, %s, %s, %s, %s, %s);\n", at, jsString(label), jsString(c.Method), params, jsString(want))
		}
		return bw.Flush()
	}
	if err := walkCalls(r, begin, each); err != nil {
		return err
	}
	if last >= 0 {
		bw.WriteString("  } finally {\n    await s.client.close();\n  }\n});\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write Playwright spec: %w", err)
	}
	return nil
}

// playwrightHelpers are the functions every exported spec shares.
const playwrightHelpers = `
// begin makes a client as the session's recorded one and connects it
// without the SDK's own initialize (Client.connect would send one with
// the SDK's protocol version): the recorded initialize is sent as
// recorded. It starts the session's clock.
async function begin(clientInfo, capabilities) {
  const client = new Client(clientInfo, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL));
  await Protocol.prototype.connect.call(client, transport);
  return { client, transport, t0: Date.now() };
}

// pace waits until at ms after the session began.
async function pace(s, at) {
  const wait = s.t0 + at - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

// call sends a recorded request at its time and expects the answer
// recorded: want is "result", "error", or "" (no answer was recorded: it
// is sent, not awaited).
async function call(s, at, label, method, params, want) {
  await pace(s, at);
  const sent = s.client.request({ method, params }, ResultSchema);
  if (want === "") {
    sent.catch(() => {});
    return;
  }
  let got = "result";
  try {
    const result = await sent;
    if (method === "initialize" && result.protocolVersion) s.transport.setProtocolVersion(result.protocolVersion);
  } catch (e) {
    if (!(e instanceof McpError)) throw e;
    got = "error";
  }
  expect(got, label).toBe(want);
}

// notify sends a recorded notification at its time.
async function notify(s, at, method, params) {
  await pace(s, at);
  await s.client.notification({ method, params });
}
`
