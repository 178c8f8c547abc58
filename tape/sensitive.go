package tape

import (
	"bytes"
	"encoding/json"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// Masked stands in for the value of a sensitive header or member.
const Masked = "[redacted]"

// sensitiveNames are the credentials a recorder masks and no output of
// replayctl shows, in the form Sensitive compares: lower case, without
// '-' and '_'. The one list: headers and JSON members alike.
var sensitiveNames = map[string]bool{
	"authorization":      true, // Authorization, Proxy-Authorization below
	"proxyauthorization": true,
	"cookie":             true,
	"setcookie":          true,
	"xapikey":            true, // X-Api-Key, x_api_key
	"apikey":             true, // api_key, api-key, apiKey
	"xauthtoken":         true,
	"authtoken":          true,
	"password":           true,
	"passwd":             true,
	"secret":             true,
	"clientsecret":       true, // client_secret, clientSecret
	"token":              true,
	"accesstoken":        true,
	"refreshtoken":       true,
	"idtoken":            true,
	"privatekey":         true,
}

// SensitiveNames lists the names Sensitive matches, for documentation.
func SensitiveNames() []string {
	return []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "api_key",
		"X-Auth-Token", "auth_token", "password", "passwd", "secret", "client_secret", "token",
		"access_token", "refresh_token", "id_token", "private_key"}
}

// Sensitive reports whether a header or JSON member of that name holds a
// credential, whose value is masked wherever it is shown. Names compare
// case-insensitively with '-' and '_' ignored, and whole: "api_key",
// "API-Key" and "apiKey" are sensitive, "maxTokens" and "progressToken"
// are not.
func Sensitive(name string) bool { return sensitive(name) }

func sensitive[T string | []byte](name T) bool {
	if len(name) < 5 || len(name) > 32 {
		return false
	}
	var b [32]byte
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-' || c == '_':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b[n] = c
		n++
	}
	return sensitiveNames[string(b[:n])]
}

// MaskHeaders returns h with the value of every sensitive header replaced
// by Masked; h itself when it has none.
func MaskHeaders(h map[string][]string) map[string][]string {
	var masked map[string][]string // nil until a header is masked
	for k, vs := range h {
		if !Sensitive(k) {
			continue
		}
		if masked == nil {
			masked = make(map[string][]string, len(h))
			for k2, v2 := range h {
				masked[k2] = v2
			}
		}
		m := make([]string, len(vs))
		for i := range m {
			m[i] = Masked
		}
		masked[k] = m
	}
	if masked == nil {
		return h
	}
	return masked
}

// Mask returns the JSON document doc with the value of every member whose
// name is Sensitive, at any depth, replaced by the string Masked (a null
// stays null). A document with no such member, or that is not JSON past
// the point reached, comes back as it is (the same slice when nothing
// was masked). It is for showing a message, never for sending it.
func Mask(doc []byte) []byte {
	var out []byte // nil until something is masked
	done := 0      // doc[:done] is in out
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		end, err := jsonscan.SkipValue(doc, i)
		if err != nil {
			break
		}
		key := doc[i+1 : end-1]
		j := jsonscan.SkipSpace(doc, end)
		if j >= len(doc) || doc[j] != ':' || !sensitiveKey(key) {
			i = end - 1
			continue
		}
		vs := jsonscan.SkipSpace(doc, j+1)
		ve, err := jsonscan.SkipValue(doc, vs)
		if err != nil {
			break
		}
		if bytes.Equal(doc[vs:ve], []byte("null")) {
			i = ve - 1
			continue
		}
		out = append(append(out, doc[done:vs]...), `"`+Masked+`"`...)
		done, i = ve, ve-1
	}
	if out == nil {
		return doc
	}
	return append(out, doc[done:]...)
}

// sensitiveKey reports whether the raw bytes of a member name (escapes
// not decoded) name a sensitive member.
func sensitiveKey(raw []byte) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return sensitive(raw)
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
		return false
	}
	return Sensitive(s)
}
