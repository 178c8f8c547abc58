package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/internal/jsonpath"
	"github.com/replayctl/replayctl/validator"
)

// Schema is a JSON Schema (a subset of draft 2020-12: type, properties,
// required, items, enum, format) inferred from the values seen, with the
// number of values it rests on (x-samples). The zero Schema allows any
// value.
type Schema struct {
	Type       Types              `json:"type,omitempty"`
	Format     string             `json:"format,omitempty"`
	Enum       []string           `json:"enum,omitempty"`
	Properties map[string]*Schema `json:"properties,omitempty"`
	Required   []string           `json:"required,omitempty"`
	Items      *Schema            `json:"items,omitempty"`
	Samples    int                `json:"x-samples"`

	// What inference counts before Finish: objects seen, and in how many
	// each member was; string values (distinct, up to maxEnum+1) and the
	// formats every one of them has.
	objects  int
	present  map[string]int
	strings  int
	distinct map[string]bool
	formats  map[string]bool
}

// Types are the JSON types a value may have: "null", "boolean",
// "integer", "number", "string", "array", "object". One type is written
// as a string, several as an array.
type Types []string

// MarshalJSON writes one type as a string.
func (t Types) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

// UnmarshalJSON reads a type or an array of types.
func (t *Types) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*t = Types{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("type: want a JSON type or an array of them")
	}
	*t = many
	return nil
}

// allows reports whether a value of JSON type t is one of the types (an
// integer is a number; no types: any).
func (t Types) allows(typ string) bool {
	return len(t) == 0 || slices.Contains(t, typ) || (typ == "integer" && slices.Contains(t, "number"))
}

// What makes an enum and a format of the strings seen: an enum when the
// values repeat (at least 3 samples, at most a third as many distinct
// values, at most maxEnum of them, each short); a format when every one
// of at least 2 samples has it.
const (
	maxEnum        = 16
	maxEnumValue   = 64
	minEnumSamples = 3
	minFormat      = 2
)

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// formatsOf are the formats the string s has.
func formatsOf(s string) map[string]bool {
	f := map[string]bool{}
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		f["date-time"] = true
	}
	if uuidRE.MatchString(s) {
		f["uuid"] = true
	}
	if !strings.ContainsAny(s, " \t\r\n") && strings.Contains(s, "://") {
		if u, err := url.Parse(s); err == nil && u.Scheme != "" {
			f["uri"] = true
		}
	}
	return f
}

// hasFormat reports whether s has the format f.
func hasFormat(s, f string) bool { return formatsOf(s)[f] }

// typeOf is the JSON type of a value decoded with UseNumber.
func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// decode reads JSON keeping numbers as written.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Observe adds the value v (decoded with UseNumber) to what s rests on.
func (s *Schema) Observe(v any) {
	s.Samples++
	s.addType(typeOf(v))
	switch x := v.(type) {
	case map[string]any:
		s.objects++
		if s.Properties == nil {
			s.Properties, s.present = map[string]*Schema{}, map[string]int{}
		}
		for k, val := range x {
			s.present[k]++
			p := s.Properties[k]
			if p == nil {
				p = &Schema{}
				s.Properties[k] = p
			}
			p.Observe(val)
		}
	case []any:
		if s.Items == nil {
			s.Items = &Schema{}
		}
		for _, e := range x {
			s.Items.Observe(e)
		}
	case string:
		s.strings++
		if s.distinct == nil {
			s.distinct = map[string]bool{}
		}
		if len(s.distinct) <= maxEnum {
			s.distinct[x] = true
		}
		f := formatsOf(x)
		if s.strings == 1 {
			s.formats = f
		} else {
			maps.DeleteFunc(s.formats, func(k string, _ bool) bool { return !f[k] })
		}
	}
}

// addType adds a JSON type; an integer is a number once a number that
// is not one has been seen.
func (s *Schema) addType(t string) {
	switch {
	case slices.Contains(s.Type, t), t == "integer" && slices.Contains(s.Type, "number"):
		return
	case t == "number":
		s.Type = slices.DeleteFunc(s.Type, func(x string) bool { return x == "integer" })
	}
	s.Type = append(s.Type, t)
	sort.Strings(s.Type)
}

// Finish turns what was counted into required members, an enum and a
// format, here and below.
func (s *Schema) Finish() {
	for k, p := range s.Properties {
		if s.present[k] == s.objects {
			s.Required = append(s.Required, k)
		}
		p.Finish()
	}
	sort.Strings(s.Required)
	if s.Items != nil {
		s.Items.Finish()
	}
	if s.strings >= minEnumSamples && len(s.distinct) <= maxEnum && len(s.distinct)*3 <= s.strings {
		short := true
		for v := range s.distinct {
			short = short && len(v) <= maxEnumValue
		}
		if short && len(s.Type) == 1 {
			s.Enum = slices.Sorted(maps.Keys(s.distinct))
		}
	}
	if s.strings >= minFormat && len(s.formats) == 1 {
		for f := range s.formats {
			s.Format = f
		}
	}
	s.objects, s.present, s.strings, s.distinct, s.formats = 0, nil, 0, nil, nil
}

// The kinds of difference a contract finds besides the validator's type
// and missing: a string not among the enum's values, or without the
// format.
const (
	DiffEnum   validator.DiffKind = "enum"
	DiffFormat validator.DiffKind = "format"
)

// check appends to ds where v, at path, is not what s allows. Members s
// does not know are allowed (a server may add to its answers).
func (s *Schema) check(path elems, v any, ds []validator.Difference) []validator.Difference {
	if s == nil {
		return ds
	}
	t := typeOf(v)
	if !s.Type.allows(t) {
		return append(ds, diff(path, validator.DiffType, s.Type, v))
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range s.Required {
			if _, ok := x[k]; !ok {
				var want Types
				if p := s.Properties[k]; p != nil {
					want = p.Type
				}
				ds = append(ds, diff(append(path, member(k)), validator.DiffMissing, want, nil))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			ds = s.Properties[k].check(append(path, member(k)), x[k], ds)
		}
	case []any:
		for i, e := range x {
			ds = s.Items.check(append(path, element(i)), e, ds)
		}
	case string:
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, x) {
			ds = append(ds, diff(path, DiffEnum, s.Enum, x))
		}
		if s.Format != "" && !hasFormat(x, s.Format) {
			ds = append(ds, diff(path, DiffFormat, "format "+s.Format, x))
		}
	}
	return ds
}

// diff is one difference at path: what the contract expects, and the
// value (nil: absent).
func diff(path elems, kind validator.DiffKind, expected, actual any) validator.Difference {
	e, _ := json.Marshal(expected)
	d := validator.Difference{Path: render(path), Expected: e, Kind: kind}
	if actual != nil || kind != validator.DiffMissing {
		d.Actual, _ = json.Marshal(actual)
	}
	return d
}

// elems is where a value sits in a message: members, array indexes, and
// any index ([*], in a contract diff), as internal/jsonpath elements.
type elems = []jsonpath.Elem

func member(name string) jsonpath.Elem { return jsonpath.Elem{Key: name} }
func element(i int) jsonpath.Elem      { return jsonpath.Elem{Kind: jsonpath.Element, Index: i} }

var anyElement = jsonpath.Elem{Kind: jsonpath.AnyElement}

// render writes a path as the validator does (the one path language,
// internal/jsonpath): members after dots, bracketed and quoted when not
// plain, indexes in brackets, "$" for the root.
func render(path elems) string { return jsonpath.Pattern{Elems: path}.String() }
