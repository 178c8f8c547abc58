package tape

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// EncodeK6 writes the tape r as a k6 (https://k6.io) script that replays
// its Streamable HTTP sessions as plain HTTP POSTs: one scenario per
// session (one VU, one iteration), started at the session's recorded
// offset, that sends each client message of the session in order, at
// its recorded time after the session's start (it sleeps until then;
// a slow answer delays what follows, never skips it). The Mcp-Session-Id
// the server gives (on the initialize answer) is sent with every later
// request of the session, and MCP-Protocol-Version once initialize agreed
// on one. Each request gets a k6 check: a request recorded with a result
// must get a result with its id, one recorded with an error an error
// (with its id, or with a null id when that is what was recorded)
// (in an application/json or a text/event-stream body); anything else
// (notifications, responses to the server) a 2xx status.
//
// The script sends to the URL in the environment variable MCP_URL, or
// else the export's URL (ExportURL). Recorded request headers are sent
// but for credentials and transport headers (exportDropHeaders): a
// token the server needs goes into MCP_HEADERS (a JSON object of headers).
// What plain HTTP cannot replay is not in the script: the server's GET
// streams, and an answer the server waits for while a POST's stream is
// open (a sampling request answered mid-stream is sent after the stream
// ends).
//
// It streams (see walkCalls). r is left at its end. Errors are r's
// (*Error) or w's.
func EncodeK6(w io.Writer, r *Reader, opts ...ExportOption) error {
	cfg := newExportConfig(r.Header(), opts)
	bw := bufio.NewWriter(w)
	var last string
	begin := func(sessions []exportSession) error {
		writeK6Head(bw, r, cfg, sessions)
		return nil
	}
	each := func(s exportSession, c exportCall) error {
		if s.Name != last {
			if last != "" {
				bw.WriteString("}\n\n")
			}
			last = s.Name
			fmt.Fprintf(bw, "// Session %s: %d client messages.\nexport function session%d() {\n  const s = begin();\n", jsString(s.Name), s.Calls, s.Index)
		}
		hs := exportHeaders(c.Req)
		hdr := "{}"
		if len(hs) > 0 {
			parts := make([]string, len(hs))
			for i, h := range hs {
				parts[i] = jsString(h[0]) + ": " + jsString(h[1])
			}
			hdr = "{ " + strings.Join(parts, ", ") + " }"
		}
		fmt.Fprintf(bw, "  call(s, %s, %s, %s, %s, %s, %s, %s);\n", k6ms(c.Req.TUS-s.Start), jsString(fmt.Sprintf("seq %d %s", c.Req.Seq, callLabel(c))),
			jsString(c.Method), jsString(c.AnswerID), jsString(c.Want), hdr, jsString(string(c.Req.Msg)))
		return bw.Flush() // keeps what is buffered small, and reports w's errors as they happen
	}
	if err := walkCalls(r, begin, each); err != nil {
		return err
	}
	if last != "" {
		bw.WriteString("}\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write k6 script: %w", err)
	}
	return nil
}

// callLabel names a call in checks and requests: its method, or what it is.
func callLabel(c exportCall) string {
	switch {
	case c.Method != "":
		return c.Method
	case c.ID == "" && strings.HasPrefix(strings.TrimSpace(string(c.Req.Msg)), "["):
		return "batch"
	default:
		return "response"
	}
}

// k6ms is a time in µs as milliseconds, for the script.
func k6ms(us int64) string {
	return fmt.Sprintf("%d.%03d", us/1000, us%1000)
}

func writeK6Head(w *bufio.Writer, r *Reader, cfg exportConfig, sessions []exportSession) {
	calls := 0
	for _, s := range sessions {
		calls += s.Calls
	}
	fmt.Fprintf(w, `// A k6 script written by %s from the tape %s: %d sessions, %d client
// messages, replayed as plain HTTP POSTs at their recorded pacing.
//
//   k6 run -e MCP_URL=%s script.js
//
// MCP_HEADERS (a JSON object) adds headers to every request, e.g. a token.
import http from "k6/http";
import { check, sleep } from "k6";

const URL = __ENV.MCP_URL || %s;
const EXTRA_HEADERS = __ENV.MCP_HEADERS ? JSON.parse(__ENV.MCP_HEADERS) : {};
// The protocol version the tape's header names: sent with requests
// after initialize when the server's answer did not name one.
const PROTOCOL_VERSION = %s;

export const options = {
  scenarios: {
`, oneLine(cfg.creator), jsString(r.Path()), len(sessions), calls, oneLine(cfg.url), jsString(cfg.url), jsString(r.Header().ProtocolVersion))
	first := int64(0)
	for i, s := range sessions {
		if i == 0 || s.Start < first {
			first = s.Start
		}
	}
	for _, s := range sessions {
		fmt.Fprintf(w, "    %s: { executor: \"per-vu-iterations\", vus: 1, iterations: 1, maxDuration: \"24h\", startTime: \"%sms\", exec: \"session%d\" },\n",
			jsString(fmt.Sprintf("session%d", s.Index)), k6ms(s.Start-first), s.Index)
	}
	w.WriteString(k6Helpers)
}

// k6Helpers are the functions every exported script shares.
const k6Helpers = `  },
};

// begin starts a session: its clock, its session id and protocol version.
function begin() {
  return { t0: Date.now(), sid: "", version: "" };
}

// answerOf returns the JSON-RPC response with the id idText (its JSON
// text: the request's, or "null" for an error the server did not tie to
// it) in the body of res, an application/json or a text/event-stream
// body, or null.
function answerOf(res, idText) {
  const body = typeof res.body === "string" ? res.body : "";
  const docs = [];
  const type = String(res.headers["Content-Type"] || "");
  if (type.startsWith("text/event-stream")) {
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
      if (data.length > 0) docs.push(data.join("\n"));
    }
  } else if (body !== "") {
    docs.push(body);
  }
  for (const doc of docs) {
    let msg;
    try {
      msg = JSON.parse(doc);
    } catch (e) {
      continue;
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      if (m && ("result" in m || "error" in m) && JSON.stringify(m.id) === idText) return m;
    }
  }
  return null;
}

// call sends one recorded client message at its time (ms after the
// session began) and checks the answer against the recorded one: want
// is "result", "error", or "" (a 2xx status is enough).
function call(s, at, label, method, idText, want, recorded, body) {
  const wait = s.t0 + at - Date.now();
  if (wait > 0) sleep(wait / 1000);
  const headers = Object.assign({ "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, recorded, EXTRA_HEADERS);
  if (s.sid) headers["Mcp-Session-Id"] = s.sid;
  if (method !== "initialize" && !Object.keys(headers).some((k) => k.toLowerCase() === "mcp-protocol-version")) {
    const version = s.version || PROTOCOL_VERSION;
    if (version) headers["MCP-Protocol-Version"] = version;
  }
  const res = http.post(URL, body, { headers: headers, tags: { name: method || label } });
  const sid = res.headers["Mcp-Session-Id"];
  if (sid) s.sid = sid;
  if (want === "") {
    check(res, { [label + ": 2xx"]: (r) => r.status >= 200 && r.status < 300 });
    return;
  }
  const answer = answerOf(res, idText);
  check(answer, { [label + ": " + want]: (a) => a !== null && want in a });
  if (method === "initialize" && answer && answer.result && answer.result.protocolVersion) {
    s.version = answer.result.protocolVersion;
  }
}

`
