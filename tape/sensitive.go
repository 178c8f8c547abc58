package tape

// MaskHeaders returns h with the value of every sensitive header replaced
// by Masked; h itself when it has none.
func MaskHeaders(h map[string][]string) map[string][]string {
	var masked map[string][]string // nil until a header is masked
	for k, vs := range h {
		if !Sensitive(k) {
			continue
		}
		if masked == nil {
			masked = make(map[string][]string, len(h))
			for k2, v2 := range h {
				masked[k2] = v2
			}
		}
		m := make([]string, len(vs))
		for i := range m {
			m[i] = Masked
		}
		masked[k] = m
	}
	if masked == nil {
		return h
	}
	return masked
}

// displayRedactor masks for Mask: the policy's names, no environment
// values, nothing counted, so that it is safe for concurrent use.
var displayRedactor = &Redactor{defaults: true, display: true}

// Mask returns the JSON document doc with the value of every member whose
// name is Sensitive, at any depth, replaced by the string Masked (a null
// stays null), also inside strings that hold JSON text (see Redactor). A
// document with no such member, or that is not JSON past the point
// reached, comes back as it is (the same slice when nothing was masked).
// It is for showing a message, never for sending it.
func Mask(doc []byte) []byte {
	out, _ := displayRedactor.redactJSON(doc)
	return out
}

// maskedJSON is Masked as a JSON value.
var maskedJSON = []byte(`"` + Masked + `"`)

// MaskDifference returns the expected and the actual value of a
// difference at path (JSON, as validator and diff write them), masked
// for showing: at a SecretPath each value is Masked whole, saying that
// the credential differs, never what it is (absent and null are kept: they
// show no secret); elsewhere each is Masked where it holds a Sensitive
// member (Mask). A value with nothing to mask comes back as it is (the
// same slice). It is the one masker of differences: reports, the diff of
// two tapes and a mock's misses show them through it.
func MaskDifference(path string, expected, actual []byte) (e, a []byte) {
	if SecretPath(path) {
		return maskedValue(expected), maskedValue(actual)
	}
	return maskPresent(expected), maskPresent(actual)
}

func maskedValue(v []byte) []byte {
	if len(v) == 0 || string(v) == "null" {
		return v
	}
	return maskedJSON
}

func maskPresent(v []byte) []byte {
	if len(v) == 0 {
		return v
	}
	return Mask(v)
}
