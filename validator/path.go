package validator

import "github.com/replayctl/replayctl/internal/jsonpath"

// seg is one step of a path: a member name or an array index.
type seg = jsonpath.Seg

// renderPath writes a path in the syntax of the package documentation.
func renderPath(path []seg) string { return jsonpath.Render(path) }
