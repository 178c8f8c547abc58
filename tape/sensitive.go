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
