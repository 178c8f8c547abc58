package report

import (
	"encoding/json"
	"slices"

	"github.com/replayctl/replayctl/tape"
)

// Mask returns res with the credentials recorded in a tape or sent by a
// server masked in what it shows: the value of every header or member
// that tape.Sensitive names (authorization, password, api_key, token, …)
// in its messages and its differences. A difference at or under such a
// member shows both values as "[redacted]": it says that the credential
// differs, never what it is. Judging is done before: Mask is for showing.
func Mask(res Result) Result {
	res.Out, res.Answer, res.Recorded = tape.Mask(res.Out), tape.Mask(res.Answer), tape.Mask(res.Recorded)
	res.Differences = MaskDifferences(res.Differences)
	return res
}

// MaskDifferences is Mask for differences; ds itself when nothing is
// masked (the slice is copied otherwise).
func MaskDifferences(ds []Difference) []Difference {
	var out []Difference
	for i, d := range ds {
		x := d
		if sensitivePath(d.Path) {
			x.Expected, x.Actual = maskedValue(d.Expected), maskedValue(d.Actual)
		} else {
			x.Expected, x.Actual = tape.Mask(d.Expected), tape.Mask(d.Actual)
		}
		if !sameBytes(x.Expected, d.Expected) || !sameBytes(x.Actual, d.Actual) {
			if out == nil {
				out = slices.Clone(ds)
			}
			out[i] = x
		}
	}
	if out == nil {
		return ds
	}
	return out
}

var maskedJSON = json.RawMessage(`"` + tape.Masked + `"`)

// maskedValue is "[redacted]" for a value, absent and null as they are.
func maskedValue(v json.RawMessage) json.RawMessage {
	if len(v) == 0 || string(v) == "null" {
		return v
	}
	return maskedJSON
}

// sensitivePath reports whether a validator path (result.content[0].text,
// params["api-key"], headers.Authorization) goes through a member that
// tape.Sensitive names.
func sensitivePath(path string) bool {
	for i := 0; i < len(path); {
		switch path[i] {
		case '.', '$':
			i++
		case '[':
			if i+1 < len(path) && path[i+1] == '"' {
				j := i + 2
				for j < len(path) && path[j] != '"' {
					if path[j] == '\\' {
						j++
					}
					j++
				}
				var key string
				if j < len(path) && json.Unmarshal([]byte(path[i+1:j+1]), &key) == nil && tape.Sensitive(key) {
					return true
				}
				i = j + 1
				continue
			}
			for i < len(path) && path[i] != ']' {
				i++
			}
			i++
		case ']':
			i++
		default:
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			if tape.Sensitive(path[i:j]) {
				return true
			}
			i = j
		}
	}
	return false
}
