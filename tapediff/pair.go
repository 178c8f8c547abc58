package tapediff

import (
	"bytes"
	"encoding/json"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// exchange is a request of one tape and the answer it got.
type exchange struct {
	session string
	dir     tape.Dir // of the request
	method  string
	name    string // tools/call and prompts/get: params.name; resources/*: params.uri
	seq     int64
	line    int64
	params  []byte // raw
	canon   string // canonicalParams(params)
	answer  *jsonrpc.Message
	ansSeq  int64
}

// side is one tape, read into exchanges.
type side struct {
	name      string
	messages  int
	exchanges []exchange
	sessions  []string // in order of first appearance
}

// readSide parses s's messages into exchanges: every request, either
// way, with the answer of the same session and id. A message that is not
// JSON-RPC is an *Error.
func readSide(s Side) (*side, error) {
	out := &side{name: s.Name, messages: len(s.Messages)}
	pending := map[string]int{} // dir + session + id of a request not yet answered → its exchange
	seen := map[string]bool{}
	for _, m := range s.Messages {
		if !seen[m.Session] {
			seen[m.Session] = true
			out.sessions = append(out.sessions, m.Session)
		}
		rpc, err := jsonrpc.ParseStrict(m.Msg)
		if err != nil {
			return nil, &Error{Tape: s.Name, Line: m.Line, Seq: m.Seq, Err: err}
		}
		parts := []jsonrpc.Message{rpc}
		if rpc.Kind == jsonrpc.KindBatch {
			if parts, err = rpc.Batch(); err != nil {
				return nil, &Error{Tape: s.Name, Line: m.Line, Seq: m.Seq, Err: err}
			}
		}
		for _, p := range parts {
			switch {
			case p.Kind == jsonrpc.KindRequest:
				pending[string(m.Dir)+"\x00"+m.Session+"\x00"+jsonrpc.IDKey(p.ID)] = len(out.exchanges)
				out.exchanges = append(out.exchanges, exchange{
					session: m.Session, dir: m.Dir, method: p.Method, name: nameOf(p.Method, p.Params()),
					seq: m.Seq, line: m.Line, params: p.Params(), canon: canonicalParams(p.Params()), ansSeq: -1,
				})
			case jsonrpc.IsResponseKind(p.Kind):
				key := string(other(m.Dir)) + "\x00" + m.Session + "\x00" + jsonrpc.IDKey(p.ID)
				if i, ok := pending[key]; ok {
					delete(pending, key)
					p := p
					out.exchanges[i].answer, out.exchanges[i].ansSeq = &p, m.Seq
				}
			}
		}
	}
	return out, nil
}

func other(d tape.Dir) tape.Dir {
	if d == tape.C2S {
		return tape.S2C
	}
	return tape.C2S
}

// nameOf is what a request is about: the tool or prompt name, or the
// resource URI.
func nameOf(method string, params []byte) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	switch method {
	case "tools/call", "prompts/get", "resources/read", "resources/subscribe", "resources/unsubscribe":
		_ = json.Unmarshal(params, &p)
	}
	if p.Name != "" {
		return p.Name
	}
	return p.URI
}

// pair is an exchange of A and its partner in B.
type pair struct{ a, b *exchange }

// pairing pairs the exchanges of a and b: within a session (sessions
// pair by name, those of one name only by order of appearance) and a
// direction, the k-th request of a method with given params in A with
// the k-th in B; then what is left, by method and name in order. It
// returns the pairs in A's order and the exchanges left unpaired.
func pairing(a, b *side) (pairs []pair, onlyA, onlyB []*exchange) {
	sess := sessionMap(a.sessions, b.sessions)
	keyOf := func(e *exchange, fromB bool, loose bool) string {
		s := e.session
		if fromB {
			s = sess[s]
		}
		k := s + "\x00" + string(e.dir) + "\x00" + e.method + "\x00"
		if loose {
			return k + e.name
		}
		return k + e.canon
	}
	partner := make([]*exchange, len(a.exchanges))
	takenB := make([]bool, len(b.exchanges))
	for _, loose := range []bool{false, true} {
		queues := map[string][]int{}
		for i := range b.exchanges {
			if !takenB[i] {
				k := keyOf(&b.exchanges[i], true, loose)
				queues[k] = append(queues[k], i)
			}
		}
		for i := range a.exchanges {
			if partner[i] != nil {
				continue
			}
			k := keyOf(&a.exchanges[i], false, loose)
			if q := queues[k]; len(q) > 0 {
				partner[i], takenB[q[0]] = &b.exchanges[q[0]], true
				queues[k] = q[1:]
			}
		}
	}
	for i := range a.exchanges {
		if partner[i] == nil {
			onlyA = append(onlyA, &a.exchanges[i])
			continue
		}
		pairs = append(pairs, pair{&a.exchanges[i], partner[i]})
	}
	for i := range b.exchanges {
		if !takenB[i] {
			onlyB = append(onlyB, &b.exchanges[i])
		}
	}
	return pairs, onlyA, onlyB
}

// sessionMap maps B's session names to A's: a name both tapes have to
// itself, the others in order of first appearance; B's sessions beyond
// A's count keep their names.
func sessionMap(a, b []string) map[string]string {
	inA := map[string]bool{}
	for _, s := range a {
		inA[s] = true
	}
	inB := map[string]bool{}
	for _, s := range b {
		inB[s] = true
	}
	var freeA []string
	for _, s := range a {
		if !inB[s] {
			freeA = append(freeA, s)
		}
	}
	m := make(map[string]string, len(b))
	for _, s := range b {
		switch {
		case inA[s]:
			m[s] = s
		case len(freeA) > 0:
			m[s], freeA = freeA[0], freeA[1:]
		default:
			m[s] = "\x01b:" + s // pairs with none of A's
		}
	}
	return m
}

// VolatileParams are the members of params that differ from run to run
// of the same script: _meta (progress tokens, the 2026 client info), and
// a multi-round retry's requestState. Package compare leaves them out
// too.
var VolatileParams = []string{"_meta", "requestState"}

// canonicalParams is params as a comparable key: members sorted, white
// space gone, the volatile members left out. Params that are not an
// object are their compacted bytes.
func canonicalParams(params []byte) string {
	if len(params) == 0 {
		return ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(params, &obj); err != nil {
		var buf bytes.Buffer
		if json.Compact(&buf, params) != nil {
			return string(params)
		}
		return buf.String()
	}
	for _, k := range VolatileParams {
		delete(obj, k)
	}
	return canonical(obj)
}

// canonical encodes v with object members sorted (encoding/json sorts
// map keys) and numbers as written.
func canonical(v any) string {
	b, err := json.Marshal(normalize(v))
	if err != nil {
		return ""
	}
	return string(b)
}

// normalize decodes raw members so that Marshal sorts nested objects too.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]json.RawMessage:
		m := make(map[string]any, len(x))
		for k, raw := range x {
			m[k] = decode(raw)
		}
		return m
	case json.RawMessage:
		return decode(x)
	}
	return v
}

// decode decodes raw JSON, numbers kept as written; nil when raw is not
// JSON.
func decode(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}
