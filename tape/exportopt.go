package tape

import (
	"encoding/json"
	"sort"
	"strings"
)

// ExportOption configures EncodeK6, EncodePostman and EncodeOpenAPI.
type ExportOption func(*exportConfig)

type exportConfig struct {
	url     string
	creator string
}

// ExportURL sets the MCP endpoint the export sends to or describes. The
// default is the URL the tape was recorded from (its credentials masked,
// MaskURL), or DefaultExportURL for a stdio tape, which has none.
func ExportURL(u string) ExportOption { return func(c *exportConfig) { c.url = u } }

// ExportCreator names the program and version that wrote the export
// ("replayctl v1.2.3"), for its comments and info members.
func ExportCreator(s string) ExportOption { return func(c *exportConfig) { c.creator = s } }

// DefaultExportURL is where an export of a stdio tape sends (or which it
// describes) when no ExportURL is given: a Streamable HTTP server on
// loopback, such as 'replayctl serve --listen 127.0.0.1:3001' serves.
const DefaultExportURL = "http://127.0.0.1:3001/mcp"

func newExportConfig(h Header, opts []ExportOption) exportConfig {
	c := exportConfig{creator: "replayctl"}
	for _, o := range opts {
		o(&c)
	}
	if c.url == "" {
		c.url = DefaultExportURL
		if h.Server != nil && h.Server.URL != "" {
			c.url = MaskURL(h.Server.URL)
		}
	}
	return c
}

// exportDropHeaders are request headers an export does not send as
// recorded: the HTTP client sets them, or the export sets them itself
// (the session id is the one the replay's server gives).
var exportDropHeaders = []string{"Host", "Content-Length", "Connection", "Accept-Encoding", "Transfer-Encoding",
	"Content-Type", "Accept", "Mcp-Session-Id", "Last-Event-Id", "User-Agent"}

// exportHeaders are the request headers of m an export sends as
// recorded, sorted by name: all but credentials (Sensitive) and
// exportDropHeaders.
func exportHeaders(m Message) [][2]string {
	meta := MaskHTTP(m.HTTP)
	if meta == nil {
		return nil
	}
	var out [][2]string
next:
	for k, vs := range meta.Headers {
		for _, d := range exportDropHeaders {
			if equalFold(k, d) {
				continue next
			}
		}
		for _, v := range vs {
			out = append(out, [2]string{k, v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// oneLine is s with its line breaks as spaces, for a comment.
func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ", "\u2028", " ", "\u2029", " ").Replace(s)
}

// jsString is s as a JavaScript (and JSON) string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
