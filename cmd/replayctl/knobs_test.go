package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/internal/knobs"
	"github.com/replayctl/replayctl/validator"
)

// commandFlags is every command's own flags, by path under replayctl
// ("run", "kube render"; "" for the root's).
func commandFlags(t *testing.T) map[string]*pflag.FlagSet {
	t.Helper()
	out := map[string]*pflag.FlagSet{}
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		out[path] = c.LocalFlags()
		for _, sub := range c.Commands() {
			walk(sub, strings.TrimSpace(path+" "+sub.Name()))
		}
	}
	walk((&app{}).rootCommand(), "")
	return out
}

// TestFlagKnobs: every flag of every command that bears a knob's name has
// the type, default and usage the knobs table gives it for that command,
// and every command the table lists takes the flag; a knob without a flag
// says why, as a variant does.
func TestFlagKnobs(t *testing.T) {
	seen := map[string]bool{} // "knob@command"
	for path, fs := range commandFlags(t) {
		fs.VisitAll(func(f *pflag.Flag) {
			i := slices.IndexFunc(knobs.Table, func(k knobs.Knob) bool { return k.Name == f.Name })
			if i < 0 {
				return
			}
			k := knobs.Table[i]
			def, doc, ok := k.For(path)
			if !ok {
				t.Errorf("replayctl %s --%s: the knobs table lists neither the command nor a variant for it; add %q to the knob's Commands, or a Variant saying why it differs", path, f.Name, path)
				return
			}
			seen[k.Name+"@"+path] = true
			if got, want := f.Value.Type(), knobs.Kind(def); got != want {
				t.Errorf("replayctl %s --%s: type %s, the table's %s", path, f.Name, got, want)
			}
			if got, want := f.DefValue, knobs.DefValue(def); got != want {
				t.Errorf("replayctl %s --%s: default %q, the table's %q", path, f.Name, got, want)
			}
			if f.Usage != doc {
				t.Errorf("replayctl %s --%s: usage\n\t%q\nthe table's\n\t%q", path, f.Name, f.Usage, doc)
			}
		})
	}
	for _, k := range knobs.Table {
		if len(k.Commands)+len(k.Variants) == 0 && k.NoFlag == "" {
			t.Errorf("knob %s: no command takes it and NoFlag does not say why", k.Name)
		}
		if len(k.Commands)+len(k.Variants) > 0 && (k.NoFlag != "" || k.Doc == "") {
			t.Errorf("knob %s: a flag wants a Doc and no NoFlag", k.Name)
		}
		var cmds []string
		cmds = append(cmds, k.Commands...)
		for _, v := range k.Variants {
			if v.Why == "" {
				t.Errorf("knob %s: the variant of %s does not say why it differs", k.Name, v.Command)
			}
			if v.Default == nil && v.Doc == "" {
				t.Errorf("knob %s: the variant of %s differs in nothing; list the command in Commands", k.Name, v.Command)
			}
			cmds = append(cmds, v.Command)
		}
		for _, c := range cmds {
			if !seen[k.Name+"@"+c] {
				t.Errorf("knob %s: the table lists replayctl %s, which takes no --%s", k.Name, c, k.Name)
			}
		}
	}
}

// configKeys is the keys of config.File that may be knobs: the top-level
// keys and those of its sections, by path ("performance.max_inflight").
func configKeys() []string {
	var keys []string
	yamlName := func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			return ""
		}
		return name
	}
	top := reflect.TypeFor[config.File]()
	for i := range top.NumField() {
		f := top.Field(i)
		name := yamlName(f)
		if name == "" {
			continue
		}
		if f.Type.Kind() != reflect.Struct || f.Type == reflect.TypeFor[config.Duration]() {
			keys = append(keys, name)
			continue
		}
		for j := range f.Type.NumField() {
			if sub := yamlName(f.Type.Field(j)); sub != "" {
				keys = append(keys, name+"."+sub)
			}
		}
	}
	return keys
}

// TestConfigKnobs: every key of the config file is a knob's or says why it
// is not (knobs.ConfigOnly); every knob's key is a key of the file, named
// after its flag unless the knob says why not; a knob without a key says
// why; and where the config example says a key's default, it says the
// table's.
func TestConfigKnobs(t *testing.T) {
	keys := configKeys()
	byKey := map[string]knobs.Knob{}
	for _, k := range knobs.Table {
		switch {
		case k.ConfigKey == "" && k.NoConfig == "":
			t.Errorf("knob %s: no config key, and NoConfig does not say why", k.Name)
		case k.ConfigKey != "" && k.NoConfig != "":
			t.Errorf("knob %s: a config key %s and a NoConfig reason", k.Name, k.ConfigKey)
		case k.ConfigKey == "":
			continue
		}
		byKey[k.ConfigKey] = k
		if !slices.Contains(keys, k.ConfigKey) {
			t.Errorf("knob %s: config key %s is not a key of config.File (keys: %s)", k.Name, k.ConfigKey, strings.Join(keys, ", "))
		}
		leaf := k.ConfigKey[strings.LastIndex(k.ConfigKey, ".")+1:]
		if leaf != strings.ReplaceAll(k.Name, "-", "_") && k.Renamed == "" {
			t.Errorf("knob %s: config key %s is not named after the flag, and Renamed does not say why", k.Name, k.ConfigKey)
		}
	}
	for _, key := range keys {
		_, knob := byKey[key]
		why, only := knobs.ConfigOnly[key]
		switch {
		case !knob && !only:
			t.Errorf("config key %s is no knob's; add it to a knob's ConfigKey, or to knobs.ConfigOnly saying why it has no flag", key)
		case knob && only:
			t.Errorf("config key %s is a knob's and in knobs.ConfigOnly (%s)", key, why)
		}
	}
	for key := range knobs.ConfigOnly {
		if !slices.Contains(keys, key) {
			t.Errorf("knobs.ConfigOnly lists %s, which is not a key of config.File", key)
		}
	}
	example := strings.Split(config.Example(), "\n")
	for key, k := range byKey {
		line := exampleLine(example, key)
		if line == "" {
			t.Errorf("knob %s: the config example does not set %s", k.Name, key)
			continue
		}
		if _, said, ok := strings.Cut(line, "(default "); ok && !saysAny(said, k.Said) {
			t.Errorf("knob %s: the config example says %q, the table's default is %s (said as %q)", k.Name, line, knobs.DefValue(k.Default), k.Said)
		}
	}
}

// exampleLine is the line of the config example that sets key (a
// top-level key, or section.key), or "".
func exampleLine(lines []string, key string) string {
	section, leaf, nested := strings.Cut(key, ".")
	if !nested {
		leaf = section
	}
	in := !nested
	for _, l := range lines {
		switch {
		case nested && strings.HasPrefix(l, section+":"):
			in = true
		case nested && in && l != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "#"):
			in = false
		case in && strings.HasPrefix(strings.TrimLeft(l, " "), leaf+":") && (nested == strings.HasPrefix(l, " ")):
			return l
		}
	}
	return ""
}

// saysAny reports whether text starts with one of the ways the default is
// said, as a whole word ("1000" is not said by "10000").
func saysAny(text string, said []string) bool {
	for _, s := range said {
		rest, ok := strings.CutPrefix(text, s)
		if ok && (rest == "" || !unicode.IsLetter(rune(rest[0])) && !unicode.IsDigit(rune(rest[0]))) {
			return true
		}
	}
	return false
}

// funcDocs is the doc comments of the exported functions of the package
// in dir (its non-test files), by name, and of the exported methods of
// its exported types, by "Type.Method"; and the names of the functions
// that return the type named result.
func funcDocs(t *testing.T, dir, result string) (docs map[string]string, returning []string) {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	docs = map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv != nil { // a method option: "Target.WithHTTPClient"
				if id, ok := fd.Recv.List[0].Type.(*ast.Ident); ok && id.IsExported() {
					docs[id.Name+"."+fd.Name.Name] = fd.Doc.Text()
				}
				continue
			}
			docs[fd.Name.Name] = fd.Doc.Text()
			if r := fd.Type.Results; r != nil && len(r.List) == 1 {
				if id, ok := r.List[0].Type.(*ast.Ident); ok && id.Name == result {
					returning = append(returning, fd.Name.Name)
				}
			}
		}
	}
	return docs, returning
}

// camel is a flag name in CamelCase: "max-inflight" → "MaxInflight".
func camel(name string) string {
	parts := strings.Split(name, "-")
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	return strings.Join(parts, "")
}

// TestDocsKnobOptions: every library option a knob names exists, is named
// after the flag (unless the knob says why not), and its doc comment says
// the table's default; every option of package replay is a knob's or says
// why not (knobs.OptionOnly); and the CLI's names for replay's option
// errors (flagOf) name each knob's flag.
func TestDocsKnobOptions(t *testing.T) {
	docs := map[string]map[string]string{} // package → func → doc
	pkgDocs := func(pkg string) map[string]string {
		if docs[pkg] == nil {
			docs[pkg], _ = funcDocs(t, filepath.Join("..", "..", pkg), "")
		}
		return docs[pkg]
	}
	named := map[string]bool{} // replay options the table names
	for _, k := range knobs.Table {
		if len(k.Options) == 0 && k.NoOption == "" {
			t.Errorf("knob %s: no library option, and NoOption does not say why", k.Name)
		}
		for _, opt := range k.Options {
			pkg, fn, _ := strings.Cut(opt, ".")
			if pkg == "replay" {
				named[fn] = true
			}
			doc, ok := pkgDocs(pkg)[fn]
			if !ok {
				t.Errorf("knob %s: option %s is not an exported function of package %s", k.Name, opt, pkg)
				continue
			}
			base := strings.TrimPrefix(strings.TrimPrefix(fn, "With"), "Stdio")
			if base != camel(k.Name) && k.Renamed == "" {
				t.Errorf("knob %s: option %s is not named %s, and Renamed does not say why", k.Name, opt, camel(k.Name))
			}
			if len(k.Said) > 0 && !slices.ContainsFunc(k.Said, func(s string) bool { return strings.Contains(doc, s) }) {
				t.Errorf("knob %s: the doc comment of %s does not say the default (%s, said as one of %q):\n%s", k.Name, opt, knobs.DefValue(k.Default), k.Said, doc)
			}
		}
		if slices.Contains(k.Commands, "run") {
			flag := "--" + k.Name
			hasOpt := slices.ContainsFunc(k.Options, func(o string) bool { return strings.HasPrefix(o, "replay.") })
			if hasOpt && !slices.Contains(slices.Collect(mapValues(flagOf)), flag) {
				t.Errorf("knob %s: flagOf, the names of replay's option errors, does not name %s", k.Name, flag)
			}
		}
	}
	_, options := funcDocs(t, filepath.Join("..", "..", "replay"), "Option")
	for _, o := range options {
		why, only := knobs.OptionOnly[o]
		switch {
		case !named[o] && !only:
			t.Errorf("replay.%s is no knob's option; name it in a knob's Options, or add it to knobs.OptionOnly saying why", o)
		case named[o] && only:
			t.Errorf("replay.%s is a knob's option and in knobs.OptionOnly (%s)", o, why)
		}
	}
	for o := range knobs.OptionOnly {
		if !slices.Contains(options, o) {
			t.Errorf("knobs.OptionOnly lists replay.%s, which is not an option of package replay", o)
		}
	}
}

// mapValues yields the values of m.
func mapValues(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// TestDocsKnobReadme: every --flag the README's Commands section names is
// a flag of some command, and where it says a knob's default ("(default
// …)"), it says the table's.
func TestDocsKnobReadme(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Commands\n")
	if !ok {
		t.Fatal("README.md has no Commands section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, section, _ = strings.Cut(section, "```\n") // the code block: the prose after it names flags as examples
	section, _, _ = strings.Cut(section, "```")
	all := map[string]bool{"help": true, "version": true}
	for _, fs := range commandFlags(t) {
		fs.VisitAll(func(f *pflag.Flag) { all[f.Name] = true })
	}
	flagRE := regexp.MustCompile(`--([a-z][a-z0-9-]*)`)
	for _, line := range strings.Split(section, "\n") {
		for _, m := range flagRE.FindAllStringSubmatchIndex(line, -1) {
			name := line[m[2]:m[3]]
			if !all[name] {
				t.Errorf("README Commands names --%s, which no command takes: %q", name, line)
			}
			rest := line[m[1]:]
			if next := flagRE.FindStringIndex(rest); next != nil {
				rest = rest[:next[0]]
			}
			_, said, ok := strings.Cut(rest, "(default ")
			i := slices.IndexFunc(knobs.Table, func(k knobs.Knob) bool { return k.Name == name })
			if ok && i >= 0 && !saysAny(said, knobs.Table[i].Said) {
				t.Errorf("README Commands says --%s %q; the table's default is %s (said as %q)", name, "(default "+said, knobs.DefValue(knobs.Table[i].Default), knobs.Table[i].Said)
			}
		}
	}
}

// TestFlagKnobValues: the usage of a knob whose values are a package's
// one list names each of them: --validation every validator.Modes(),
// --chaos every chaos.Kinds() (serve's: every chaos.ServeKinds()).
func TestFlagKnobValues(t *testing.T) {
	lists := []struct {
		knob, command string
		values        []string
	}{
		{"validation", "run", names(validator.Modes())},
		{"chaos", "run", names(chaos.Kinds())},
		{"chaos", "serve", names(chaos.ServeKinds())},
	}
	for _, l := range lists {
		_, doc, ok := knobs.Get(l.knob).For(l.command)
		if !ok {
			t.Fatalf("the knobs table has no --%s for %s", l.knob, l.command)
		}
		for _, v := range l.values {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(v) + `\b`).MatchString(doc) {
				t.Errorf("replayctl %s --%s: the usage does not name %s:\n%s", l.command, l.knob, v, doc)
			}
		}
	}
}

// names is the values of a list of string kinds.
func names[K ~string](ks []K) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}
