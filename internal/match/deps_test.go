package match

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNoTape keeps the condition language a leaf: the packages
// that use it (controller, transformer, validator, engine, replay) do not
// pull the tape package in through it.
func TestImportsNoTape(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, "github.com/replayctl/replayctl/") && p != "github.com/replayctl/replayctl/internal/httpmeta" {
				t.Errorf("%s imports %s; internal/match imports no package of the module but internal/httpmeta", f, p)
			}
		}
	}
}
