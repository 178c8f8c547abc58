package tapediff

import (
	"cmp"
	"slices"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/validator"
)

// Side is one of the two tapes compared: its name (a path, for errors),
// its header and its messages in seq order.
type Side struct {
	Name     string
	Header   tape.Header
	Messages []tape.Message
}

// Option configures Compare.
type Option func(*options)

type options struct{ v *validator.Validator }

// WithValidator sets the validator that compares values (answers,
// params, members of definitions): its normalisers, ignored paths and
// tolerance apply; its mode and rules do not. The default is
// DefaultValidator.
func WithValidator(v *validator.Validator) Option { return func(o *options) { o.v = v } }

// DefaultNormalizers are the normalisers of the default validator: the
// values that differ between two runs of the same script against the
// same server.
var DefaultNormalizers = []string{"uuid", "timestamp"}

// DefaultValidator is the validator Compare uses unless WithValidator
// says otherwise: exact comparison with DefaultNormalizers.
func DefaultValidator() *validator.Validator {
	v, err := validator.New(validator.WithNormalize(DefaultNormalizers...))
	if err != nil {
		panic(err) // the names are the validator's own
	}
	return v
}

// differ collects the changes of one comparison.
type differ struct {
	v       *validator.Validator
	changes []Change
}

func (d *differ) add(c Change) {
	c.Breaking = c.Kind.Breaking()
	d.changes = append(d.changes, c)
}

// Compare says what changed from tape a to tape b, two recordings of the
// same client script (say against a server's version 1 and 2).
//
// Requests (of either side: the server's own too) are paired within a
// session and a direction: the k-th request of a method with given
// params in A with the k-th in B (params compared without _meta and
// requestState, members sorted), then those left by method and name
// (tool, prompt or URI) in order. Sessions pair by name, else by order of
// first appearance. Requests left are Unpaired.
//
// Then: the handshakes (initialize or server/discover: protocol version,
// capabilities, serverInfo, instructions), the catalogs (tools,
// resources, resource templates and prompts from every listing answer of
// each tape; a catalog compared only when both tapes listed it), and each
// pair's answers (transitions between success and error, then values).
// See Kind for what each change is and which are breaking.
//
// Compare is pure and starts no goroutines. The error is an *Error for
// a message that is not JSON-RPC 2.0.
func Compare(a, b Side, opts ...Option) (Result, error) {
	o := options{}
	for _, opt := range opts {
		opt(&o)
	}
	if o.v == nil {
		o.v = DefaultValidator()
	}
	sa, err := readSide(a)
	if err != nil {
		return Result{}, err
	}
	sb, err := readSide(b)
	if err != nil {
		return Result{}, err
	}
	d := &differ{v: o.v}
	d.compareHandshakes(sa, sb, a.Header.ProtocolVersion, b.Header.ProtocolVersion)
	d.compareCatalogs(sa, sb)
	pairs, onlyA, onlyB := pairing(sa, sb)
	for _, p := range pairs {
		d.compareAnswers(p)
	}
	res := Result{Changes: d.changes, Unpaired: []Unpaired{}}
	if res.Changes == nil {
		res.Changes = []Change{}
	}
	for _, e := range onlyA {
		res.Unpaired = append(res.Unpaired, unpaired("a", e))
	}
	for _, e := range onlyB {
		res.Unpaired = append(res.Unpaired, unpaired("b", e))
	}
	// Breaking first; then grouped by method and name, each group in the
	// order found (pairs in A's order, paths in the validator's).
	slices.SortStableFunc(res.Changes, func(x, y Change) int {
		if x.Breaking != y.Breaking {
			if x.Breaking {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(x.Method, y.Method), cmp.Compare(x.Name, y.Name))
	})
	res.Summary = Summary{
		MessagesA: sa.messages, MessagesB: sb.messages,
		RequestsA: len(sa.exchanges), RequestsB: len(sb.exchanges),
		Paired: len(pairs), UnpairedA: len(onlyA), UnpairedB: len(onlyB),
		Changes: len(res.Changes), ByKind: map[string]int{},
	}
	for _, c := range res.Changes {
		res.Summary.ByKind[string(c.Kind)]++
		if c.Breaking {
			res.Summary.Breaking++
		} else {
			res.Summary.NonBreaking++
		}
	}
	return res, nil
}

func unpaired(sideName string, e *exchange) Unpaired {
	return Unpaired{Side: sideName, Session: e.session, Seq: e.seq, Line: e.line, Dir: string(e.dir), Method: e.method, Name: e.name}
}
