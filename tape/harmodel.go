package tape

// The parts of an HTTP Archive (HAR 1.2,
// http://www.softwareishard.com/blog/har-12-spec/) that carry Streamable
// HTTP MCP traffic. The importer decodes these and ignores the rest;
// the exporter writes every member HAR 1.2 requires.

type harLog struct {
	Version string `json:"version"`
	// Replayctl is the tape's header, written by replayctl's exporter.
	Replayctl *harHeader `json:"_replayctl,omitempty"`
	Creator   harCreator `json:"creator"`
	Pages     []any      `json:"pages,omitempty"`
	Entries   []harEntry `json:"entries"`
	Comment   string     `json:"comment,omitempty"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harEntry struct {
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"` // ms, the whole exchange
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         harTimings  `json:"timings"`
	// Replayctl is written by replayctl's exporter: what a HAR cannot
	// say (session names, each message's time). Other tools ignore it.
	Replayctl *harExtra `json:"_replayctl,omitempty"`
}

type harExtra struct {
	Session string `json:"session,omitempty"`
	// TUS is each message's time: the request's, then the response's.
	TUS []int64 `json:"t_us,omitempty"`
	// Seq is each message's seq on the tape, in the same order.
	Seq []int64 `json:"seq,omitempty"`
	// Meta is the rest of each message's line, in the same order, so that
	// the importer writes it again byte for byte: what a HAR keeps of
	// headers, statuses and SSE framing is less exact (a stdio message
	// has none; a GET stream's messages have no request).
	Meta []harMeta `json:"meta,omitempty"`
}

// harMeta is a message's http, sse and unknown members as on its line
// (unknown members as JSON text, kept byte for byte).
type harMeta struct {
	HTTP  *HTTPMeta         `json:"http,omitempty"`
	SSE   *SSEMeta          `json:"sse,omitempty"`
	Extra map[string]string `json:"extra,omitempty"`
}

// harHeader is a tape's header as the exporter writes it, with its
// members this version does not know as JSON text.
type harHeader struct {
	Header
	Unknown map[string]string `json:"_unknown,omitempty"`
}

type harNV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harRequest struct {
	Method      string       `json:"method"`
	URL         string       `json:"url"`
	HTTPVersion string       `json:"httpVersion"`
	Cookies     []harNV      `json:"cookies"`
	Headers     []harNV      `json:"headers"`
	QueryString []harNV      `json:"queryString"`
	PostData    *harPostData `json:"postData,omitempty"`
	HeadersSize int64        `json:"headersSize"`
	BodySize    int64        `json:"bodySize"`
}

type harPostData struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	// Encoding is not HAR 1.2 for postData, but some recorders write it
	// as for content.
	Encoding string `json:"encoding,omitempty"`
}

type harResponse struct {
	Status      int        `json:"status"`
	StatusText  string     `json:"statusText"`
	HTTPVersion string     `json:"httpVersion"`
	Cookies     []harNV    `json:"cookies"`
	Headers     []harNV    `json:"headers"`
	Content     harContent `json:"content"`
	RedirectURL string     `json:"redirectURL"`
	HeadersSize int64      `json:"headersSize"`
	BodySize    int64      `json:"bodySize"`
}

type harContent struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Encoding string `json:"encoding,omitempty"`
}

// harTimings are milliseconds; -1 means "does not apply".
type harTimings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// harRoot is a HAR document.
type harRoot struct {
	Log harLog `json:"log"`
}

// header returns the first value of the header name (case-insensitive).
func header(h []harNV, name string) string {
	for _, nv := range h {
		if equalFold(nv.Name, name) {
			return nv.Value
		}
	}
	return ""
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
