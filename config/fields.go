package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/replayctl/replayctl/internal/editdist"
)

// fields is the yaml keys of a struct type.
type fields struct {
	index map[string]int // key → field index
	names []string       // keys in field order
}

var fieldCache sync.Map // reflect.Type → *fields

// fieldsOf lists the keys a struct type takes, from its yaml tags; a field
// tagged "-" is not a key.
func fieldsOf(t reflect.Type) *fields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*fields)
	}
	f := &fields{index: map[string]int{}}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		f.index[name] = i
		f.names = append(f.names, name)
	}
	fieldCache.Store(t, f)
	return f
}

// homes maps every key of the file to the sections that take it
// ("max_retries" → "error_handling", "validation.rules[]"), to say where a
// key that is unknown in one place belongs.
var homes = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	var walk func(t reflect.Type, at string)
	walk = func(t reflect.Type, at string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			if t.Kind() == reflect.Slice {
				at += "[]"
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == durationType {
			return
		}
		f := fieldsOf(t)
		for _, name := range f.names {
			section := at
			if section == "" {
				section = "the top level"
			}
			if !slices.Contains(m[name], section) {
				m[name] = append(m[name], section)
			}
			walk(t.Field(f.index[name]).Type, join(at, name))
		}
	}
	walk(reflect.TypeFor[File](), "")
	return m
})

// unknownKey says that name is not a key of the mapping at key (a key
// path, "" at the top), suggesting the closest known key, or the sections
// where name is a key, or else the keys that are allowed.
func unknownKey(name, key string, known []string) string {
	msg := fmt.Sprintf("unknown key %q", short(name))
	if c := editdist.Closest(name, known); c != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", c)
	}
	if where := homes()[name]; len(where) > 0 {
		return msg + fmt.Sprintf(" here; it belongs under %s", strings.Join(where, " or "))
	}
	return msg + "; want one of: " + strings.Join(known, ", ")
}
