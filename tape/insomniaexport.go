package tape

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"time"
)

// InsomniaExportFormat is the __export_format of the Insomnia exports
// EncodeInsomnia writes (Insomnia's "v4" JSON export).
const InsomniaExportFormat = 4

// The resources of an Insomnia v4 export the exporter writes. Field names
// and the members each _type has are Insomnia's (its export of a
// collection, and the insomnia-importers package's ImportRequest).
type (
	inWorkspace struct {
		ID          string  `json:"_id"`
		Type        string  `json:"_type"`
		ParentID    *string `json:"parentId"`
		Modified    int64   `json:"modified"`
		Created     int64   `json:"created"`
		Name        string  `json:"name"`
		Description string  `json:"description"`
		Scope       string  `json:"scope"`
	}
	inEnvironment struct {
		ID                string              `json:"_id"`
		Type              string              `json:"_type"`
		ParentID          string              `json:"parentId"`
		Modified          int64               `json:"modified"`
		Created           int64               `json:"created"`
		Name              string              `json:"name"`
		Data              map[string]string   `json:"data"`
		DataPropertyOrder map[string][]string `json:"dataPropertyOrder"`
		Color             *string             `json:"color"`
		IsPrivate         bool                `json:"isPrivate"`
		MetaSortKey       int64               `json:"metaSortKey"`
	}
	inGroup struct {
		ID          string            `json:"_id"`
		Type        string            `json:"_type"`
		ParentID    string            `json:"parentId"`
		Modified    int64             `json:"modified"`
		Created     int64             `json:"created"`
		Name        string            `json:"name"`
		Description string            `json:"description"`
		Environment map[string]string `json:"environment"`
		MetaSortKey int64             `json:"metaSortKey"`
	}
	inRequest struct {
		ID                              string         `json:"_id"`
		Type                            string         `json:"_type"`
		ParentID                        string         `json:"parentId"`
		Modified                        int64          `json:"modified"`
		Created                         int64          `json:"created"`
		URL                             string         `json:"url"`
		Name                            string         `json:"name"`
		Description                     string         `json:"description"`
		Method                          string         `json:"method"`
		Body                            inBody         `json:"body"`
		Parameters                      []inNameValue  `json:"parameters"`
		Headers                         []inNameValue  `json:"headers"`
		Authentication                  map[string]any `json:"authentication"`
		MetaSortKey                     int64          `json:"metaSortKey"`
		IsPrivate                       bool           `json:"isPrivate"`
		SettingStoreCookies             bool           `json:"settingStoreCookies"`
		SettingSendCookies              bool           `json:"settingSendCookies"`
		SettingDisableRenderRequestBody bool           `json:"settingDisableRenderRequestBody"`
		SettingEncodeURL                bool           `json:"settingEncodeUrl"`
		SettingRebuildPath              bool           `json:"settingRebuildPath"`
		SettingFollowRedirects          string         `json:"settingFollowRedirects"`
	}
	inBody struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	inNameValue struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
)

// insomniaAnswerExcerpt is how much of a recorded answer a request's
// description shows.
const insomniaAnswerExcerpt = 4 << 10

// EncodeInsomnia writes the tape r as an Insomnia v4 JSON export
// (_type "export", __export_format 4), which Insomnia imports (Import →
// From File) as a collection: a workspace named after the tape's server,
// its base environment holding the endpoint (mcpUrl: the export's URL,
// ExportURL), a request group ("folder") per session in the order they
// first sent, and in it one request per client message, in order: a POST
// of the message (its exact bytes, application/json) to {{ _.mcpUrl }},
// with the Accept and MCP-Protocol-Version headers the protocol asks for,
// the request headers the tape recorded (credentials left out as in
// EncodeK6), and the Mcp-Session-Id the server gave when the session's
// initialize was sent (an Insomnia response tag on that request's
// answer). Each request's description names its seq and time and shows
// the recorded answer (its first 4 KiB).
//
// Ids are made from the tape's path and the resource's place, so that
// exporting a tape again gives the same ids (Insomnia then updates the
// collection it imported before rather than adding a second). Insomnia
// sends the requests one at a time, as the user clicks or its collection
// runner goes; the recorded pacing and answers are not checked. It
// streams (see walkCalls). r is left at its end. Errors are r's (*Error)
// or w's.
func EncodeInsomnia(w io.Writer, r *Reader, opts ...ExportOption) error {
	cfg := newExportConfig(r.Header(), opts)
	bw := bufio.NewWriter(w)
	now := time.Now().UnixMilli()
	if t, err := time.Parse(time.RFC3339Nano, r.Header().CreatedAt); err == nil {
		now = t.UnixMilli() // the same tape, the same export
	}
	id := func(prefix string, parts ...any) string {
		h := sha256.Sum256([]byte(fmt.Sprint(append([]any{r.Path()}, parts...)...)))
		return prefix + "_" + hex.EncodeToString(h[:16])
	}
	workspace := id("wrk", "workspace")
	version := r.Header().ProtocolVersion
	var initID string // the request id of the current session's initialize, if any
	last := -1
	begin := func(sessions []exportSession) error {
		fmt.Fprintf(bw, "{\n  \"_type\": \"export\",\n  \"__export_format\": %d,\n  \"__export_date\": %s,\n  \"__export_source\": %s,\n  \"resources\": [",
			InsomniaExportFormat, jsString(time.UnixMilli(now).UTC().Format("2006-01-02T15:04:05.000Z")), jsString(cfg.creator))
		writeResource(bw, inWorkspace{ID: workspace, Type: "workspace", Modified: now, Created: now, Name: collectionName(r), Scope: "collection",
			Description: fmt.Sprintf("Written by %s from the tape %s: each session's client messages as POSTs to {{ _.mcpUrl }}.", cfg.creator, r.Path())}, true)
		writeResource(bw, inEnvironment{ID: id("env", "base"), Type: "environment", ParentID: workspace, Modified: now, Created: now,
			Name: "Base Environment", Data: map[string]string{"mcpUrl": cfg.url}, DataPropertyOrder: map[string][]string{"&": {"mcpUrl"}},
			MetaSortKey: now}, false)
		for _, s := range sessions {
			writeResource(bw, inGroup{ID: id("fld", "session", s.Index), Type: "request_group", ParentID: workspace, Modified: now, Created: now,
				Name: "session " + s.Name, Description: fmt.Sprintf("The %d client messages of the recorded session %s, in order.", s.Calls, s.Name),
				Environment: map[string]string{}, MetaSortKey: int64(s.Index)}, false)
		}
		return nil
	}
	each := func(s exportSession, c exportCall) error {
		if s.Index != last {
			last, initID = s.Index, ""
		}
		req := insomniaRequest(c, cfg, version, initID)
		req.ID, req.ParentID = id("req", "seq", c.Req.Seq), id("fld", "session", s.Index)
		req.Modified, req.Created, req.MetaSortKey = now, now, c.Req.Seq
		req.Description = fmt.Sprintf("seq %d of session %s, sent at %s after the session's first message. ", c.Req.Seq, s.Name, time.Duration(c.Req.TUS-s.Start)*time.Microsecond) + req.Description
		if c.Method == "initialize" {
			initID = req.ID
		}
		writeResource(bw, req, false)
		return bw.Flush()
	}
	if err := walkCalls(r, begin, each); err != nil {
		return err
	}
	bw.WriteString("\n  ]\n}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write Insomnia export: %w", err)
	}
	return nil
}

// writeResource writes v as an element of the resources array.
func writeResource(w *bufio.Writer, v any, first bool) {
	if !first {
		w.WriteByte(',')
	}
	w.WriteString("\n    ")
	writeIndented(w, v, "    ")
}

// insomniaRequest is the request of the call c but for its ids, times
// and where it stands; initID is the request id of its session's
// initialize ("" when it is that, or there is none).
func insomniaRequest(c exportCall, cfg exportConfig, version, initID string) inRequest {
	req := inRequest{Type: "request", URL: "{{ _.mcpUrl }}", Name: fmt.Sprintf("seq %d %s", c.Req.Seq, callLabel(c)), Method: "POST",
		Body:       inBody{MimeType: "application/json", Text: string(c.Req.Msg)},
		Parameters: []inNameValue{}, Authentication: map[string]any{},
		SettingStoreCookies: true, SettingSendCookies: true, SettingEncodeURL: true, SettingRebuildPath: true, SettingFollowRedirects: "global",
		Headers: []inNameValue{{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}}}
	recorded := exportHeaders(c.Req)
	hasVersion := false
	for _, h := range recorded {
		hasVersion = hasVersion || equalFold(h[0], "MCP-Protocol-Version")
	}
	if version != "" && c.Method != "initialize" && !hasVersion {
		req.Headers = append(req.Headers, inNameValue{"MCP-Protocol-Version", version})
	}
	if initID != "" {
		// Insomnia's response tag: the header of the latest answer to the
		// session's initialize, its name base64-encoded as Insomnia writes
		// a tag's arguments.
		name := base64.StdEncoding.EncodeToString([]byte("Mcp-Session-Id"))
		req.Headers = append(req.Headers, inNameValue{"Mcp-Session-Id", "{% response 'header', '" + initID + "', 'b64::" + name + "::46b', 'never', 60 %}"})
	}
	for _, h := range recorded {
		req.Headers = append(req.Headers, inNameValue{h[0], h[1]})
	}
	switch c.Want {
	case "":
		req.Description = "No answer recorded (a notification, or a response to the server): a 2xx status is expected."
	default:
		answer := string(c.Answer.Msg)
		if len(answer) > insomniaAnswerExcerpt {
			answer = answer[:insomniaAnswerExcerpt] + "… (" + strconv.Itoa(len(c.Answer.Msg)) + " bytes)"
		}
		req.Description = "The recorded answer (" + c.Want + "):\n\n```json\n" + answer + "\n```"
	}
	return req
}
