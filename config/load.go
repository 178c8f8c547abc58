package config

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads and parses the config file at path. Every error is an *Error
// (a file that cannot be read has Line 0), or several joined (see Parse).
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *os.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		return nil, &Error{Path: path, Msg: "cannot read the config file: " + msg}
	}
	return Parse(path, data)
}

// Parse decodes a config file's contents; name is the file's name for
// error messages. Decoding is strict: an unknown key, a duplicate key, a
// value of the wrong type, a value a key does not allow (an enum, a
// seq_range that is not two ascending numbers, a rule whose action does
// nothing) is an *Error naming the file, line and key. The file is read
// whole, and the error lists every such *Error (at most 50, joined with
// errors.Join; errors.As finds the first): each key and item that fails
// to decode, or, when all decode, each section's and each rule's first
// failed check. An empty file, or
// one of comments only, is an empty config. Transformation.Line and
// ValidationRule.Line are set to where each rule starts.
func Parse(name string, data []byte) (*File, error) {
	f := &File{}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		return nil, syntaxError(name, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, &Error{Path: name, Line: extra.Line, Msg: "a second YAML document (after ---); a config file holds one"}
	case !errors.Is(err, io.EOF):
		return nil, syntaxError(name, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return f, nil
		}
		root = root.Content[0]
	}
	d := &decoder{file: name, lines: map[string]int{}, budget: maxNodes}
	if r, err := d.resolve(root, ""); err == nil && r.Kind != yaml.MappingNode && !isNull(r) {
		return nil, d.errorf(r.Line, "", "want a mapping of keys (speed: 10x, validation: …) at the top, got %s", describe(r))
	}
	if err := d.value(root, reflect.ValueOf(f).Elem(), ""); err != nil {
		d.note(err)
	}
	if err := d.err(); err != nil {
		return nil, err // the checks below would only repeat what is missing
	}
	c := &checker{file: name, lines: d.lines}
	if err := c.check(f); err != nil {
		return nil, err
	}
	f.Warnings = c.warnings
	return f, nil
}

// yamlLine finds the line number in a go-yaml error ("yaml: line 3: …").
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// syntaxError turns a go-yaml parse error into an *Error with its line.
func syntaxError(name string, err error) *Error {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	return &Error{Path: name, Line: line, Msg: "not valid YAML: " + msg}
}
