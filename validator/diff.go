package validator

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/tape"
)

// walker collects the differences between two well-formed JSON values.
type walker struct {
	ignore     []pattern
	structural bool // values of the same JSON type are equal
	norm       normalizer
	tol        tolerance

	path    []seg
	diffs   []Difference
	omitted int
}

func (w *walker) result() []Difference {
	if w.omitted > 0 {
		w.diffs = append(w.diffs, Difference{
			Kind:   DiffTruncated,
			Actual: json.RawMessage(strconv.Itoa(w.omitted)),
		})
	}
	return w.diffs
}

// root compares whole messages: like value, but the top-level "id" and
// "jsonrpc" members are left out.
func (w *walker) root(e, a []byte) {
	if w.ignored() {
		return
	}
	if e[0] == '{' && a[0] == '{' {
		w.object(e, a, true)
		return
	}
	w.value(e, a)
}

func (w *walker) ignored() bool {
	for _, p := range w.ignore {
		if p.Match(w.path) {
			return true
		}
	}
	return false
}

func (w *walker) add(kind DiffKind, e, a []byte) {
	w.addAt(renderPath(w.path), kind, e, a)
}

func (w *walker) addAt(path string, kind DiffKind, e, a []byte) {
	if len(w.diffs) == MaxDifferences {
		w.omitted++
		return
	}
	w.diffs = append(w.diffs, Difference{
		Path:     path,
		Expected: compact(e),
		Actual:   compact(a),
		Kind:     kind,
	})
}

func compact(v []byte) json.RawMessage {
	if v == nil {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return bytes.Clone(v)
	}
	return b.Bytes()
}

// jsonType is the first byte's class: '{', '[', '"', 't' (booleans), 'n',
// or '0' (numbers).
func jsonType(v []byte) byte {
	switch c := v[0]; c {
	case '{', '[', '"', 'n':
		return c
	case 't', 'f':
		return 't'
	}
	return '0'
}

// value compares two values at the current path.
func (w *walker) value(e, a []byte) {
	if w.ignored() || bytes.Equal(e, a) {
		return
	}
	te, ta := jsonType(e), jsonType(a)
	if te == '"' && w.redacted(e, a, te == ta) {
		return
	}
	if te != ta {
		w.add(DiffType, e, a)
		return
	}
	equal := false
	switch te {
	case '{':
		w.object(e, a, false)
		return
	case '[':
		w.array(e, a)
		return
	case '"':
		if stringsEqual(e, a) || w.embedded(e, a) {
			return
		}
		equal = w.structural || w.norm.equal(e, a)
	case '0':
		equal = w.structural || w.tol.equal(e, a)
	case 't':
		equal = w.structural
	case 'n':
		equal = true
	}
	if !equal {
		w.add(DiffChanged, e, a)
	}
}

// redacted judges a recorded value that a redaction left a marker in
// (tape.MatchRedacted): the marker stands for any live value of its kind
// and it reports true, after adding a difference if the live value is
// not one. Values without a marker report false.
func (w *walker) redacted(e, a []byte, sameType bool) bool {
	isMarker, ok := tape.MatchRedacted(e, a)
	if !isMarker {
		return false
	}
	// A key marker of another kind than string stood for a value of
	// that kind: a string now is another type.
	otherKind := bytes.Contains(e, []byte("[redacted:key:")) && !bytes.Contains(e, []byte("[redacted:key:string]"))
	switch {
	case ok:
	case sameType && !otherKind:
		if !w.structural {
			w.add(DiffChanged, e, a)
		}
	default:
		w.add(DiffType, e, a)
	}
	return true
}

type member struct {
	key string
	val []byte
}

// members returns an object's members sorted by decoded name; of
// duplicate names the last one counts, as with encoding/json.
func members(obj []byte, skipEnvelope bool) []member {
	var ms []member
	_ = jsonscan.Members(obj, func(m jsonscan.Member) bool {
		key := string(m.Key)
		if m.KeyEscaped || !utf8.Valid(m.Key) {
			key = decodeString(append(append([]byte{'"'}, m.Key...), '"'))
		}
		if skipEnvelope && (key == "id" || key == "jsonrpc") {
			return true
		}
		ms = append(ms, member{key, obj[m.Start:m.End]})
		return true
	})
	slices.SortStableFunc(ms, func(x, y member) int { return cmp.Compare(x.key, y.key) })
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue
		}
		out = append(out, m)
	}
	return out
}

func (w *walker) object(e, a []byte, skipEnvelope bool) {
	em, am := members(e, skipEnvelope), members(a, skipEnvelope)
	i, j := 0, 0
	for i < len(em) || j < len(am) {
		var c int
		switch {
		case i == len(em):
			c = 1
		case j == len(am):
			c = -1
		default:
			c = cmp.Compare(em[i].key, am[j].key)
		}
		switch {
		case c == 0:
			w.path = append(w.path, seg{Key: em[i].key})
			w.value(em[i].val, am[j].val)
			i, j = i+1, j+1
		case c < 0:
			w.path = append(w.path, seg{Key: em[i].key})
			if !w.ignored() {
				w.add(DiffRemoved, em[i].val, nil)
			}
			i++
		default:
			w.path = append(w.path, seg{Key: am[j].key})
			if !w.ignored() {
				w.add(DiffAdded, nil, am[j].val)
			}
			j++
		}
		w.path = w.path[:len(w.path)-1]
	}
}

// elements returns the values of an array.
func elements(arr []byte) [][]byte {
	var out [][]byte
	i := jsonscan.SkipSpace(arr, 1)
	for i < len(arr) && arr[i] != ']' {
		end, err := jsonscan.SkipValue(arr, i)
		if err != nil {
			break // cannot happen: both sides passed json.Valid
		}
		out = append(out, arr[i:end])
		i = jsonscan.SkipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = jsonscan.SkipSpace(arr, i+1)
		}
	}
	return out
}

func (w *walker) array(e, a []byte) {
	ee, ae := elements(e), elements(a)
	for k := 0; k < max(len(ee), len(ae)); k++ {
		w.path = append(w.path, seg{Index: k, IsIndex: true})
		switch {
		case k < len(ee) && k < len(ae):
			w.value(ee[k], ae[k])
		case k < len(ee):
			if !w.ignored() {
				w.add(DiffRemoved, ee[k], nil)
			}
		default:
			if !w.ignored() {
				w.add(DiffAdded, nil, ae[k])
			}
		}
		w.path = w.path[:len(w.path)-1]
	}
}

// embedded compares two strings that both hold a JSON object or both a
// JSON array as JSON, at the same path, and reports whether it did.
func (w *walker) embedded(e, a []byte) bool {
	ej, ok := embeddedJSON(e)
	if !ok {
		return false
	}
	aj, ok := embeddedJSON(a)
	if !ok || ej[0] != aj[0] {
		return false
	}
	w.value(ej, aj)
	return true
}

// embeddedJSON returns the JSON object or array a JSON string holds.
func embeddedJSON(q []byte) ([]byte, bool) {
	// A cheap test before decoding: the text must start with '{' or '[',
	// after spaces or escaped \n, \t, \r.
	i := 1
	for i < len(q) && (q[i] == ' ' || q[i] == '\\' && i+1 < len(q) && (q[i+1] == 'n' || q[i+1] == 't' || q[i+1] == 'r')) {
		if q[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(q) || (q[i] != '{' && q[i] != '[') {
		return nil, false
	}
	b := bytes.TrimSpace([]byte(decodeString(q)))
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') || !json.Valid(b) {
		return nil, false
	}
	return b, true
}

// stringsEqual compares two JSON strings by their decoded text.
func stringsEqual(e, a []byte) bool {
	if bytes.IndexByte(e, '\\') < 0 && bytes.IndexByte(a, '\\') < 0 {
		return bytes.Equal(e, a)
	}
	return decodeString(e) == decodeString(a)
}

func decodeString(q []byte) string {
	var s string
	if json.Unmarshal(q, &s) != nil {
		return string(q)
	}
	return s
}
