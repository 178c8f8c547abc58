package mock

import (
	"fmt"
	"strings"

	"github.com/replayctl/replayctl/internal/jsonpath"
)

// DefaultVolatile lists the request members a Server leaves out of
// matching unless told otherwise (WithVolatile, WithoutDefaultVolatile):
// what a client sets afresh on every run or that a newer version of it
// changes, none of which changes the answer a server gives.
//
//   - params._meta.progressToken: the client's token for progress
//     notifications (the recorded notifications are sent with the live
//     token);
//   - params._meta["io.modelcontextprotocol/clientInfo"] and
//     ["io.modelcontextprotocol/clientCapabilities"]: the 2026-07-28
//     client's name, version and capabilities on each request;
//   - params._meta.traceparent, .tracestate, .baggage: W3C trace context;
//   - initialize's params.clientInfo and params.capabilities.
//
// The protocol version (initialize's params.protocolVersion, _meta's
// io.modelcontextprotocol/protocolVersion) is not volatile: a client that
// asks for another revision than the recorded one gets a miss that says
// so, rather than answers of a revision it did not ask for. Add it with
// WithVolatile when that is what you want.
func DefaultVolatile() []string {
	return []string{
		"params._meta.progressToken",
		`params._meta["io.modelcontextprotocol/clientInfo"]`,
		`params._meta["io.modelcontextprotocol/clientCapabilities"]`,
		"params._meta.traceparent",
		"params._meta.tracestate",
		"params._meta.baggage",
		"initialize:params.clientInfo",
		"initialize:params.capabilities",
	}
}

// volatile is the parsed set of volatile paths: those of every method and
// those of one method only, each as a trie over params.
type volatile struct {
	all      *trie
	byMethod map[string]*trie // the method's own paths merged with all's
	specs    map[string][]string
	global   []string
}

// trie is a set of paths inside params: a member (or any member: "*", any
// array element: "[*]", one element: "[n]") leads to a child; a leaf
// child's whole value is left out.
type trie struct {
	leaf     bool
	children map[string]*trie // keys: member names; "\x00*" any member; "\x00[*]" any element; "\x00[n]" element n
}

const (
	anyMember  = "\x00*"
	anyElement = "\x00[*]"
)

func elementKey(i int) string { return fmt.Sprintf("\x00[%d]", i) }

// parseVolatile reads volatile path specs: "[method:]params.a.b", in the
// one path language (internal/jsonpath, README "Paths") — members as
// .name or ["quoted"], "*" for any member, "[*]" any element, "[n]" one;
// a leading "$" is allowed; "**" is refused.
// A path must start at params: matching looks only at a request's method
// and params. An error names the spec and what to write.
func parseVolatile(specs []string) (*volatile, error) {
	v := &volatile{all: &trie{}, specs: map[string][]string{}}
	for _, spec := range specs {
		method, path := "", spec
		if i := strings.Index(spec, ":"); i >= 0 && !strings.ContainsAny(spec[:i], `."[`) {
			method, path = spec[:i], spec[i+1:]
		}
		segs, err := parsePath(path)
		if err != nil && method != "" {
			return nil, fmt.Errorf("volatile path of %s %w", method, err)
		}
		if err != nil {
			return nil, fmt.Errorf("volatile path %w", err) // the error quotes the path
		}
		if len(segs) < 2 || segs[0] != "params" {
			return nil, fmt.Errorf("volatile path %q: want a path inside params, such as params._meta.progressToken (matching looks at params only)", spec)
		}
		if method == "" {
			v.all.add(segs[1:])
			v.global = append(v.global, path)
		} else {
			v.specs[method] = append(v.specs[method], path)
		}
	}
	v.byMethod = make(map[string]*trie, len(v.specs))
	for method, paths := range v.specs {
		t := &trie{}
		for _, p := range append(append([]string(nil), v.global...), paths...) {
			segs, _ := parsePath(p)
			t.add(segs[1:])
		}
		v.byMethod[method] = t
	}
	return v, nil
}

// of returns the trie of method's volatile paths, nil when it has none.
func (v *volatile) of(method string) *trie {
	if v == nil {
		return nil
	}
	if t, ok := v.byMethod[method]; ok {
		return t
	}
	if len(v.all.children) == 0 {
		return nil
	}
	return v.all
}

// patterns returns method's volatile paths as validator ignore patterns.
func (v *volatile) patterns(method string) []string {
	if v == nil {
		return nil
	}
	return append(append([]string(nil), v.global...), v.specs[method]...)
}

func (t *trie) add(segs []string) {
	n := t
	for _, s := range segs {
		if n.children == nil {
			n.children = map[string]*trie{}
		}
		c := n.children[s]
		if c == nil {
			c = &trie{}
			n.children[s] = c
		}
		n = c
	}
	n.leaf = true
}

// member returns the node a member named name leads to (nil: none).
func (t *trie) member(name []byte) *trie {
	if t == nil {
		return nil
	}
	if c, ok := t.children[string(name)]; ok {
		return c
	}
	return t.children[anyMember]
}

// element returns the node array element i leads to (nil: none).
func (t *trie) element(i int) *trie {
	if t == nil || len(t.children) == 0 {
		return nil
	}
	if c, ok := t.children[anyElement]; ok {
		return c
	}
	return t.children[elementKey(i)]
}

// parsePath splits a path (the one path language, internal/jsonpath)
// into its segments: member names as they are, and anyMember, anyElement
// or elementKey(n).
func parsePath(p string) ([]string, error) {
	pat, err := jsonpath.Parse(p)
	if err != nil {
		return nil, err
	}
	segs := make([]string, 0, len(pat.Elems))
	for _, e := range pat.Elems {
		switch e.Kind {
		case jsonpath.Member:
			segs = append(segs, e.Key)
		case jsonpath.Element:
			segs = append(segs, elementKey(e.Index))
		case jsonpath.AnyMember:
			segs = append(segs, anyMember)
		case jsonpath.AnyElement:
			segs = append(segs, anyElement)
		case jsonpath.AnyDepth:
			return nil, fmt.Errorf("%q: ** is not supported in volatile paths; name the path (params._meta.traceparent)", p)
		}
	}
	return segs, nil
}
