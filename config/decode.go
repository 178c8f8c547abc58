package config

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxNodes bounds the values one file may expand to. Aliases let a few
// lines stand for a great many values ("billion laughs"); a real config
// has a few hundred.
const maxNodes = 100_000

// decoder walks a yaml.Node tree into a value by reflection, strictly: an
// unknown key, a duplicate key or a value of the wrong type is an *Error
// naming the line and the key path. It records the line of every value it
// decodes by key path, for the checks that run afterwards.
// A mapping's member or a list's item that fails is noted (errs) and the
// decoding goes on with the next, so that one pass finds every such error.
type decoder struct {
	file   string
	lines  map[string]int // key path ("validation.rules[0].mode") → line of its value
	budget int
	errs   []error // the errors noted, at most maxErrors
	more   int     // the errors past maxErrors, not kept
}

// maxErrors is the most errors one decoding lists.
const maxErrors = 50

// note keeps err (an *Error) to report once the whole file is decoded.
func (d *decoder) note(err error) {
	if len(d.errs) < maxErrors {
		d.errs = append(d.errs, err)
		return
	}
	d.more++
}

// errorLine is the line of an *Error, or 0.
func errorLine(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Line
	}
	return 0
}

// err is the errors noted, in file order, joined, or nil.
func (d *decoder) err() error {
	errs := d.errs
	slices.SortStableFunc(errs, func(a, b error) int { return cmp.Compare(errorLine(a), errorLine(b)) })
	if d.more > 0 {
		errs = append(errs, &Error{Path: d.file, Msg: fmt.Sprintf("and %d more errors", d.more)})
	}
	return errors.Join(errs...)
}

var (
	durationType   = reflect.TypeFor[Duration]()
	sizeType       = reflect.TypeFor[Size]()
	anyType        = reflect.TypeFor[any]()
	normalizerType = reflect.TypeFor[Normalizer]()
)

func (d *decoder) errorf(line int, key, format string, a ...any) *Error {
	return &Error{Path: d.file, Line: line, Key: key, Msg: fmt.Sprintf(format, a...)}
}

// resolve follows aliases and spends the node budget.
func (d *decoder) resolve(n *yaml.Node, key string) (*yaml.Node, error) {
	for n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil, d.errorf(n.Line, key, "alias %q refers to nothing", n.Value)
		}
		n = n.Alias
	}
	d.budget--
	if d.budget < 0 {
		return nil, d.errorf(n.Line, key, "the file expands to more than %d values (aliases?); write a smaller config", maxNodes)
	}
	return n, nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// value decodes n into v, which is addressable.
func (d *decoder) value(n *yaml.Node, v reflect.Value, key string) error {
	n, err := d.resolve(n, key)
	if err != nil {
		return err
	}
	d.lines[key] = n.Line
	if isNull(n) {
		return nil // an empty key leaves the zero value ("validation:" alone)
	}
	switch v.Type() {
	case durationType:
		return scalarInt(d, n, v, key, "a duration like 50ms or 1s", parseDuration)
	case sizeType:
		return scalarInt(d, n, v, key, "a size of 0 or more, e.g. 64MiB", parseSize)
	case normalizerType: // a name, or a mapping {regex, placeholder}
		switch n.Kind {
		case yaml.ScalarNode:
			v.Addr().Interface().(*Normalizer).Name = n.Value
			return nil
		case yaml.MappingNode:
			return d.structure(n, v, key)
		}
		return d.wrongType(n, key, "a normaliser: uuid, timestamp, ids, or {regex: …, placeholder: …}")
	case anyType:
		var x any
		if err := n.Decode(&x); err != nil {
			return d.errorf(n.Line, key, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := d.value(n, p.Elem(), key); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		return d.structure(n, v, key)
	case reflect.Slice:
		return d.list(n, v, key)
	case reflect.Map:
		return d.dict(n, v, key)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return d.wrongType(n, key, "a string")
		}
		v.SetString(n.Value)
		return nil
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			return d.wrongType(n, key, "true or false")
		}
		b, _ := strconv.ParseBool(strings.ToLower(n.Value))
		v.SetBool(b)
		return nil
	case reflect.Int, reflect.Int64:
		var i int64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
			return d.wrongType(n, key, "a whole number")
		}
		v.SetInt(i)
		return nil
	case reflect.Float64:
		var f float64
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || n.Decode(&f) != nil {
			return d.wrongType(n, key, "a number")
		}
		v.SetFloat(f)
		return nil
	}
	return d.errorf(n.Line, key, "cannot decode into %s (a bug in replayctl)", v.Type())
}

// wrongType is the error for a value that is not what the key takes.
func (d *decoder) wrongType(n *yaml.Node, key, want string) *Error {
	return d.errorf(n.Line, key, "want %s, got %s", want, describe(n))
}

// describe says what a node is, for "got …".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(short(n.Value))
}

// short cuts a long value for an error message.
func short(s string) string {
	const limit = 60
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}

// scalarInt sets v, a Duration or a Size, to the scalar n read by parse;
// anything else is the wrong type, described by want.
func scalarInt[T Duration | Size](d *decoder, n *yaml.Node, v reflect.Value, key, want string, parse func(string) (T, bool)) error {
	if n.Kind != yaml.ScalarNode {
		return d.wrongType(n, key, want)
	}
	x, ok := parse(n.Value)
	if !ok {
		return d.wrongType(n, key, want)
	}
	v.SetInt(int64(x))
	return nil
}

func (d *decoder) list(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.SequenceNode {
		want := "a list"
		if v.Type().Elem().Kind() == reflect.String {
			want = "a list of strings"
			if n.Kind == yaml.ScalarNode {
				want += " (write [" + short(n.Value) + "])"
			}
		}
		return d.wrongType(n, key, want)
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		if err := d.value(item, s.Index(i), fmt.Sprintf("%s[%d]", key, i)); err != nil {
			d.note(err)
		}
	}
	v.Set(s)
	return nil
}

func (d *decoder) dict(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.MappingNode {
		return d.wrongType(n, key, "a mapping (name: value)")
	}
	pairs, err := d.pairs(n, key)
	if err != nil {
		return err
	}
	m := reflect.MakeMapWithSize(v.Type(), len(pairs))
	for _, p := range pairs {
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := d.value(p.v, elem, join(key, p.k.Value)); err != nil {
			d.note(err)
			continue
		}
		m.SetMapIndex(reflect.ValueOf(p.k.Value), elem)
	}
	v.Set(m)
	return nil
}

func (d *decoder) structure(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.MappingNode {
		return d.wrongType(n, key, "a mapping (key: value)")
	}
	pairs, err := d.pairs(n, key)
	if err != nil {
		return err
	}
	fields := fieldsOf(v.Type())
	for _, p := range pairs {
		i, ok := fields.index[p.k.Value]
		if !ok {
			d.note(d.errorf(p.k.Line, key, "%s", unknownKey(p.k.Value, key, fields.names)))
			continue
		}
		if err := d.value(p.v, v.Field(i), join(key, p.k.Value)); err != nil {
			d.note(err)
		}
	}
	return nil
}

// pair is one key and its value in a mapping.
type pair struct{ k, v *yaml.Node }

// pairs lists a mapping's members with merge keys ("<<: *base") expanded:
// keys written in the mapping win over merged ones, and among merged ones
// the first wins. A key written twice is an error.
func (d *decoder) pairs(n *yaml.Node, key string) ([]pair, error) {
	var own, merged []pair
	seen := make(map[string]int, len(n.Content)/2) // key → line
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, d.errorf(k.Line, key, "a key must be a plain word, got %s", describe(k))
		}
		if k.ShortTag() == "!!merge" {
			ms, err := d.merge(v, key)
			if err != nil {
				return nil, err
			}
			merged = append(merged, ms...)
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.note(d.errorf(k.Line, key, "key %q appears twice (first on line %d); keep one", short(k.Value), first))
			continue
		}
		seen[k.Value] = k.Line
		own = append(own, pair{k, v})
	}
	for _, p := range merged {
		if _, dup := seen[p.k.Value]; !dup {
			seen[p.k.Value] = p.k.Line
			own = append(own, p)
		}
	}
	return own, nil
}

// merge reads the value of a merge key: a mapping or a list of mappings.
func (d *decoder) merge(v *yaml.Node, key string) ([]pair, error) {
	v, err := d.resolve(v, key)
	if err != nil {
		return nil, err
	}
	switch v.Kind {
	case yaml.MappingNode:
		return d.pairs(v, key)
	case yaml.SequenceNode:
		var out []pair
		for _, item := range v.Content {
			item, err := d.resolve(item, key)
			if err != nil {
				return nil, err
			}
			if item.Kind != yaml.MappingNode {
				return nil, d.wrongType(item, key, "a mapping to merge (<<: *name)")
			}
			ps, err := d.pairs(item, key)
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
		}
		return out, nil
	}
	return nil, d.wrongType(v, key, "a mapping to merge (<<: *name)")
}

// join appends a member name to a key path.
func join(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

// parseDuration reads "50ms", "1.5s", "2m" or a bare "0".
func parseDuration(s string) (Duration, bool) {
	if s == "0" {
		return 0, true
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, false
	}
	return Duration(v), true
}
