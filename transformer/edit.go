package transformer

import "fmt"

// Edit is one change to a message: set the value at Path to Value (JSON),
// or, with Remove, remove it.
type Edit struct {
	Path   Path
	Value  []byte
	Remove bool
}

// String says what e does, for logs: "set $.result.x" (never the value,
// which may hold a secret).
func (e Edit) String() string {
	if e.Remove {
		return "remove " + e.Path.String()
	}
	return "set " + e.Path.String()
}

// ApplyEdits applies edits to raw in order (SetPath, RemovePath) and
// returns the result; raw itself when there are none. Every byte outside
// the edited values is kept.
func ApplyEdits(raw []byte, edits []Edit) ([]byte, error) {
	var err error
	for i, e := range edits {
		if e.Remove {
			raw, err = RemovePath(raw, e.Path)
		} else {
			raw, err = SetPath(raw, e.Path, e.Value)
		}
		if err != nil {
			return nil, fmt.Errorf("edit %d (%s): %w", i+1, e, err)
		}
	}
	return raw, nil
}
