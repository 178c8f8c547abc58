package tape

import (
	"bytes"
	"net/url"
	"slices"
	"strings"

	"github.com/replayctl/replayctl/internal/jsonpath"
)

// The redaction policy: the one place that says which names hold
// secrets and how their values are masked. Recording (Redactor), display
// (Mask, MaskHeaders, Sensitive: diff, serve's misses and the errors it
// sends, inspect, reports), export (EncodeHAR) and import (DecodeHAR)
// all ask it, so that what a recording hides no output shows.
//
// A name is secret when, compared case-insensitively with '-' and '_'
// ignored, it matches one of DefaultKeyGlobs or secretNames and none of
// DefaultKeyExceptions. In a URL (MaskURL, MaskURLs) the password of the
// userinfo, or the whole userinfo when it has no password, and the value
// of every credential query or fragment parameter (CredentialParam)
// become URLMask.

// DefaultKeyGlobs are the member and header names whose values are
// secret (see Redactor for how names compare), besides secretNames.
var DefaultKeyGlobs = []string{"*password*", "*passwd*", "*token*", "*secret*", "*api_key", "*access_key",
	"*private_key", "*credential", "*credentials"}

// DefaultKeyExceptions are names that the default globs would match and
// that hold no secret: MCP's progressToken and the token counts of
// sampling and model usage (maxTokens, inputTokens, cacheReadInputTokens,
// tokenCount, …). They are not redacted by the defaults; a glob the user
// adds still matches them. A list of tokens (accessTokens) is redacted.
var DefaultKeyExceptions = []string{"progressToken", "maxTokens", "totalTokens", "*inputTokens", "*outputTokens",
	"*promptTokens", "*completionTokens", "*reasoningTokens", "*cachedTokens", "*TokenCount"}

// secretNames are the whole names that hold credentials, in the form
// names compare: lower case, without '-' and '_'. Headers and members
// alike.
var secretNames = []string{
	"authorization", "proxyauthorization", "cookie", "setcookie",
	"xapikey", "apikey", "xauthtoken", "authtoken",
	"password", "passwd", "pass", "pwd", "secret", "clientsecret",
	"token", "accesstoken", "refreshtoken", "idtoken", "privatekey",
	"bearer", "jwt", "auth", "accesskey",
}

// Masked stands in for the value of a secret header or member in what
// replayctl shows (Mask, MaskHeaders); a recording writes the more
// precise markers of Redactor.
const Masked = "[redacted]"

// URLMask stands in for a credential in a URL: a word that keeps the URL
// a URL (net/url parses it; brackets would not be valid in a userinfo).
const URLMask = "redacted"

// SensitiveNames lists the names Sensitive matches exactly, for
// documentation; DefaultKeyGlobs are the patterns.
func SensitiveNames() []string {
	return []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "api_key",
		"X-Auth-Token", "auth_token", "password", "passwd", "pass", "pwd", "secret", "client_secret", "token",
		"access_token", "refresh_token", "id_token", "private_key", "bearer", "jwt", "auth", "access_key"}
}

// names is the default policy's name matcher: DefaultKeyGlobs and
// secretNames, less DefaultKeyExceptions. Read-only once built.
var names = newNamePolicy()

type namePolicy struct{ globs, except globSet }

// plainNames are member names that JSON-RPC and MCP messages carry on
// every line and that the default policy holds no secret, normalised: a
// Redactor answers them with one map lookup instead of matching each
// against every default pattern (most of the cost of masking a message).
// Built through names itself, so it can never disagree with it.
var plainNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{"jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data",
		"name", "arguments", "content", "type", "text", "isError", "structuredContent", "_meta", "meta",
		"protocolVersion", "capabilities", "clientInfo", "serverInfo", "version", "title", "description",
		"tools", "inputSchema", "outputSchema", "properties", "required", "items", "annotations",
		"resources", "uri", "mimeType", "contents", "blob", "prompts", "messages", "role", "cursor", "nextCursor",
		"level", "logger", "progress", "total", "requestId", "reason", "roots", "sampling", "elicitation",
		"listChanged", "subscribe", "logging", "completions", "experimental", "instructions", "value", "values",
		"hasMore", "argument", "ref", "model", "stopReason", "task", "taskId", "status", "ttl", "pollInterval",
		"createdAt", "lastUpdatedAt", "statusMessage", "additionalProperties", "enum", "default", "format",
		"minimum", "maximum", "size", "icons", "src", "sizes", "websiteUrl", "output", "input"} {
		k := string(normalizeInto(nil, []byte(n)))
		if !names.secret([]byte(k)) {
			m[k] = true
		}
	}
	return m
}()

func newNamePolicy() namePolicy {
	var p namePolicy
	for _, g := range DefaultKeyGlobs {
		p.globs.add(normalizeName(g))
	}
	for _, n := range secretNames {
		p.globs.add(n)
	}
	for _, g := range DefaultKeyExceptions {
		p.except.add(normalizeName(g))
	}
	return p
}

// secret reports whether a normalised name is secret.
func (p *namePolicy) secret(n []byte) bool { return p.globs.match(n) && !p.except.match(n) }

// Sensitive reports whether a header or JSON member of that name holds a
// credential, whose value is masked wherever it is recorded or shown.
// Names compare case-insensitively with '-' and '_' ignored: "api_key",
// "API-Key" and "apiKey" are sensitive, and so are "db_password" and
// "session_secret" (by pattern); "maxTokens" and "progressToken" are
// not.
func Sensitive(name string) bool { return sensitive(name) }

func sensitive[T string | []byte](name T) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	var b [64]byte
	return names.secret(normalizeInto(b[:0], []byte(name)))
}

// credentialParams are query parameter names that hold credentials
// besides the Sensitive ones, normalised.
var credentialParams = []string{"key", "sig", "signature"}

// CredentialParam reports whether a URL query (or fragment) parameter of
// that name holds a credential: a Sensitive name (api_key, token,
// access_token, password, secret, auth, …), or key, sig, signature, or
// a name ending in signature or credential (X-Amz-Signature,
// X-Amz-Credential).
func CredentialParam(name string) bool {
	if Sensitive(name) {
		return true
	}
	n := normalizeName(name)
	return slices.Contains(credentialParams, n) || strings.HasSuffix(n, "signature") || strings.HasSuffix(n, "credential")
}

// MaskURL returns the URL u with its credentials replaced by URLMask: the
// password of its userinfo (the whole userinfo when it has no password:
// a token as user name), and the value of each credential parameter
// (CredentialParam) of its query and fragment. The rest stays as written.
// Text that is not a URL comes back as it is.
func MaskURL(u string) string {
	i := strings.Index(u, "://")
	if i <= 0 || !validScheme(u[:i]) {
		return u
	}
	return maskURLAt(u, i)
}

// MaskURLs returns text with every URL in it (scheme://… up to a space, a
// quote or an angle bracket, less punctuation at its end) passed through
// MaskURL: for error messages,
// banners and logs that quote a URL.
func MaskURLs(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	var b strings.Builder
	done := 0
	for from := 0; ; {
		k := strings.Index(text[from:], "://")
		if k < 0 {
			break
		}
		sep := from + k
		start := sep
		for start > done && schemeByte(text[start-1]) {
			start--
		}
		end := sep + 3
		for end < len(text) && !urlStop(text[end]) {
			end++
		}
		for end > sep+3 && strings.IndexByte(".,:;!?)", text[end-1]) >= 0 {
			end-- // punctuation after the URL, as in "… to http://h/x."
		}
		if start < sep && validScheme(text[start:sep]) {
			b.WriteString(text[done:start])
			b.WriteString(maskURLAt(text[start:end], sep-start))
			done = end
		}
		from = end
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

func schemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func validScheme(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !schemeByte(s[i]) {
			return false
		}
	}
	return true
}

// urlStop reports whether c ends a URL quoted in text.
func urlStop(c byte) bool {
	return c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' || c == '\\' || c == 0x7f
}

// maskURLAt masks the URL u whose "://" is at sep.
func maskURLAt(u string, sep int) string {
	rest := u[sep+3:]
	authEnd := strings.IndexAny(rest, "/?#")
	if authEnd < 0 {
		authEnd = len(rest)
	}
	var b strings.Builder
	b.WriteString(u[:sep+3])
	auth := rest[:authEnd]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		user, _, hasPass := strings.Cut(auth[:at], ":")
		switch {
		case hasPass:
			b.WriteString(user + ":" + URLMask)
		case auth[:at] != "":
			b.WriteString(URLMask)
		}
		auth = auth[at:]
	}
	b.WriteString(auth)
	rest = rest[authEnd:]
	path, query := rest, ""
	if q := strings.IndexAny(rest, "?#"); q >= 0 {
		path, query = rest[:q], rest[q:]
	}
	b.WriteString(path)
	// The query, then the fragment: each "?…" or "#…" part, its
	// parameters split at '&' and ';'.
	for query != "" {
		b.WriteByte(query[0])
		part := query[1:]
		next := ""
		if query[0] == '?' {
			if h := strings.IndexByte(part, '#'); h >= 0 {
				part, next = part[:h], part[h:]
			}
		}
		b.WriteString(maskParams(part))
		query = next
	}
	return b.String()
}

// maskParams masks the credential parameters of a query string.
func maskParams(q string) string {
	var b strings.Builder
	for q != "" {
		i := strings.IndexAny(q, "&;")
		kv, sep := q, ""
		if i >= 0 {
			kv, sep, q = q[:i], q[i:i+1], q[i+1:]
		} else {
			q = ""
		}
		k, v, ok := strings.Cut(kv, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if ok && v != "" && CredentialParam(name) {
			kv = k + "=" + URLMask
		}
		b.WriteString(kv + sep)
	}
	return b.String()
}

// MaskHTTP returns the HTTP metadata of a message without its credential
// headers (Sensitive), as an export writes it and an import takes it:
// m itself when it has none, nil for nil.
func MaskHTTP(m *HTTPMeta) *HTTPMeta {
	if m == nil {
		return nil
	}
	var h map[string][]string
	for k := range m.Headers {
		if Sensitive(k) {
			if h == nil {
				h = make(map[string][]string, len(m.Headers))
				for k2, v2 := range m.Headers {
					h[k2] = v2
				}
			}
			delete(h, k)
		}
	}
	if h == nil {
		return m
	}
	if len(h) == 0 {
		h = nil
	}
	return &HTTPMeta{Status: m.Status, Headers: h}
}

// MaskHeader returns h with the URLs it carries masked (MaskURL): the
// server's URL, URLs in its command line and in its tags. Every tape
// header written (NewWriter) and exported (EncodeHAR) goes through it.
func MaskHeader(h Header) Header {
	if h.Server != nil {
		s := *h.Server
		s.URL = MaskURL(s.URL)
		if slices.ContainsFunc(s.Command, func(a string) bool { return MaskURLs(a) != a }) {
			s.Command = slices.Clone(s.Command)
			for i := range s.Command {
				s.Command[i] = MaskURLs(s.Command[i])
			}
		}
		h.Server = &s
	}
	for _, v := range h.Tags {
		if MaskURLs(v) != v {
			tags := make(map[string]string, len(h.Tags))
			for k, v := range h.Tags {
				tags[k] = MaskURLs(v)
			}
			h.Tags = tags
			break
		}
	}
	return h
}

// SecretPath reports whether a path to a value in a message
// (result.content[0].text, params["api-key"], headers.Authorization, as
// validator and diff write them, in the path language of
// internal/jsonpath) goes through a member whose name is Sensitive: the
// value is a secret, or inside one. Text that is not a path (none that
// replayctl writes) counts as secret, so that its values are masked
// rather than shown; "" and "$" do not.
func SecretPath(path string) bool {
	if path == "" || path == "$" {
		return false
	}
	p, err := jsonpath.Parse(path)
	if err != nil {
		return true
	}
	for _, e := range p.Elems {
		if e.Kind == jsonpath.Member && Sensitive(e.Key) {
			return true
		}
	}
	return false
}

// MaskMember returns the value v of a member named name as it may be
// shown: Masked (as a JSON string) when the name is Sensitive and v is
// not null, else v with its own secret members masked (Mask).
func MaskMember(name string, v []byte) []byte {
	if Sensitive(name) && !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return []byte(`"` + Masked + `"`)
	}
	return Mask(v)
}
