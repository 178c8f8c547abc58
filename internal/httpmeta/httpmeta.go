// Package httpmeta is what was seen of the HTTP exchange that carried a
// message: a leaf, so that the packages that carry it beside a message
// (tape, which names it tape.HTTPMeta, and the condition language of
// internal/match) need not import each other or more.
package httpmeta

// Meta is what was seen of the HTTP exchange that carried a message.
type Meta struct {
	Status  int                 `json:"status,omitempty"`
	Headers map[string][]string `json:"headers,omitempty"`
}
