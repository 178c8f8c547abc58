package tape

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// PostmanSchema is the schema URL a Postman Collection v2.1 names.
const PostmanSchema = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"

// The parts of a Postman Collection v2.1 the exporter writes.
type (
	pmInfo struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Schema      string `json:"schema"`
	}
	pmVariable struct {
		Key   string `json:"key"`
		Value string `json:"value"`
		Type  string `json:"type"`
	}
	pmItem struct {
		Name    string    `json:"name"`
		Event   []pmEvent `json:"event"`
		Request pmRequest `json:"request"`
	}
	pmEvent struct {
		Listen string   `json:"listen"`
		Script pmScript `json:"script"`
	}
	pmScript struct {
		Type string   `json:"type"`
		Exec []string `json:"exec"`
	}
	pmRequest struct {
		Method string     `json:"method"`
		Header []pmHeader `json:"header"`
		Body   pmBody     `json:"body"`
		URL    string     `json:"url"`
	}
	pmHeader struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	pmBody struct {
		Mode    string `json:"mode"`
		Raw     string `json:"raw"`
		Options struct {
			Raw struct {
				Language string `json:"language"`
			} `json:"raw"`
		} `json:"options"`
	}
)

// EncodePostman writes the tape r as a Postman Collection v2.1: a folder
// per session (in the order they first sent) holding one request per
// client message, in order, each a POST of the message to the collection
// variable mcpUrl (the export's URL, ExportURL). The session id the
// server gives on initialize is kept in the collection variable
// mcpSessionId_N (N the session's folder, from 0) by the request's test
// script and sent by the next requests' pre-request scripts, with the
// MCP-Protocol-Version initialize agreed on (or the tape's). A
// pre-request script waits the recorded time since the session's
// previous message. Each request's test checks the answer as EncodeK6's
// checks do: a result where a result was recorded, an error where an
// error was, else a 2xx status. Credentials are left out as in EncodeK6.
//
// Postman and newman run the folders one after another, not at the same
// time as they were recorded. It streams (see walkCalls). r is left at
// its end. Errors are r's (*Error) or w's.
func EncodePostman(w io.Writer, r *Reader, opts ...ExportOption) error {
	cfg := newExportConfig(r.Header(), opts)
	bw := bufio.NewWriter(w)
	last, n := -1, 0
	var prev int64
	begin := func(sessions []exportSession) error {
		vars := []pmVariable{{Key: "mcpUrl", Value: cfg.url, Type: "string"}}
		for _, s := range sessions {
			i := strconv.Itoa(s.Index)
			vars = append(vars, pmVariable{Key: "mcpSessionId_" + i, Type: "string"}, pmVariable{Key: "mcpProtocolVersion_" + i, Type: "string"})
		}
		info := pmInfo{Name: collectionName(r), Schema: PostmanSchema,
			Description: fmt.Sprintf("Written by %s from the tape %s: each session's client messages as POSTs to {{mcpUrl}}, each checked against the recorded answer.", cfg.creator, r.Path())}
		bw.WriteString("{\n  \"info\": ")
		writeIndented(bw, info, "  ")
		bw.WriteString(",\n  \"variable\": ")
		writeIndented(bw, vars, "  ")
		bw.WriteString(",\n  \"item\": [")
		return nil
	}
	each := func(s exportSession, c exportCall) error {
		if s.Index != last {
			if last >= 0 {
				bw.WriteString("\n      ]\n    },")
			}
			last, n, prev = s.Index, 0, s.Start
			fmt.Fprintf(bw, "\n    {\n      \"name\": %s,\n      \"item\": [", jsString("session "+s.Name))
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n        ")
		writeIndented(bw, postmanItem(s, c, cfg, c.Req.TUS-prev, r.Header().ProtocolVersion), "        ")
		prev = c.Req.TUS
		return bw.Flush()
	}
	if err := walkCalls(r, begin, each); err != nil {
		return err
	}
	if last >= 0 {
		bw.WriteString("\n      ]\n    }\n  ")
	}
	bw.WriteString("]\n}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write Postman collection: %w", err)
	}
	return nil
}

// collectionName names the collection after the tape's server, else its file.
func collectionName(r *Reader) string {
	if s := r.Header().Server; s != nil && s.Name != "" {
		return s.Name + " (replayctl tape)"
	}
	return r.Path() + " (replayctl tape)"
}

func writeIndented(w *bufio.Writer, v any, indent string) {
	b, _ := json.MarshalIndent(v, indent, "  ") // the collection's types always marshal
	w.Write(b)
}

func postmanItem(s exportSession, c exportCall, cfg exportConfig, gap int64, version string) pmItem {
	i := strconv.Itoa(s.Index)
	label := fmt.Sprintf("seq %d %s", c.Req.Seq, callLabel(c))
	pre := []string{
		"// Sends the session id and protocol version this session was given, after the recorded pause.",
		fmt.Sprintf(`const sid = pm.collectionVariables.get("mcpSessionId_%s");`, i),
		`if (sid) pm.request.headers.upsert({ key: "Mcp-Session-Id", value: sid });`,
	}
	if c.Method != "initialize" {
		pre = append(pre,
			fmt.Sprintf(`const version = pm.collectionVariables.get("mcpProtocolVersion_%s") || %s;`, i, jsString(version)),
			`if (version && !pm.request.headers.has("MCP-Protocol-Version")) pm.request.headers.upsert({ key: "MCP-Protocol-Version", value: version });`)
	}
	if ms := gap / 1000; ms > 0 {
		pre = append(pre, fmt.Sprintf("setTimeout(function () {}, %d);", ms))
	}
	test := []string{
		fmt.Sprintf("const want = %s, idText = %s;", jsString(c.Want), jsString(c.AnswerID)),
		`const sid = pm.response.headers.get("Mcp-Session-Id");`,
		fmt.Sprintf(`if (sid) pm.collectionVariables.set("mcpSessionId_%s", sid);`, i),
		"// answerOf returns the JSON-RPC response with the id idText in the body",
		"// (application/json or text/event-stream), or null.",
		"function answerOf() {",
		`  const body = pm.response.text();`,
		`  const docs = [];`,
		`  if (String(pm.response.headers.get("Content-Type") || "").startsWith("text/event-stream")) {`,
		`    for (const event of body.split(/\r?\n\r?\n/)) {`,
		`      const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));`,
		`      if (data.length > 0) docs.push(data.join("\n"));`,
		`    }`,
		`  } else if (body !== "") {`,
		`    docs.push(body);`,
		`  }`,
		`  for (const doc of docs) {`,
		`    let msg;`,
		`    try { msg = JSON.parse(doc); } catch (e) { continue; }`,
		`    for (const m of Array.isArray(msg) ? msg : [msg]) {`,
		`      if (m && ("result" in m || "error" in m) && JSON.stringify(m.id) === idText) return m;`,
		`    }`,
		`  }`,
		`  return null;`,
		"}",
		fmt.Sprintf(`pm.test(%s + (want || "2xx"), function () {`, jsString(label+": ")),
		`  if (want === "") {`,
		`    pm.expect(pm.response.code).to.be.within(200, 299);`,
		`    return;`,
		`  }`,
		`  const answer = answerOf();`,
		`  pm.expect(answer, "an answer with id " + idText).to.not.equal(null);`,
		`  pm.expect(answer).to.have.property(want);`,
		`});`,
	}
	if c.Method == "initialize" {
		test = append(test,
			`const init = want === "result" ? answerOf() : null;`,
			fmt.Sprintf(`if (init && init.result && init.result.protocolVersion) pm.collectionVariables.set("mcpProtocolVersion_%s", init.result.protocolVersion);`, i))
	}
	item := pmItem{Name: label,
		Event: []pmEvent{{Listen: "prerequest", Script: pmScript{Type: "text/javascript", Exec: pre}}, {Listen: "test", Script: pmScript{Type: "text/javascript", Exec: test}}},
		Request: pmRequest{Method: "POST", URL: "{{mcpUrl}}",
			Header: []pmHeader{{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}}}}
	for _, h := range exportHeaders(c.Req) {
		item.Request.Header = append(item.Request.Header, pmHeader{h[0], h[1]})
	}
	item.Request.Body.Mode, item.Request.Body.Raw = "raw", string(c.Req.Msg)
	item.Request.Body.Options.Raw.Language = "json"
	return item
}
