package validator

import (
	"fmt"
	"regexp"
	"strings"
)

// normSet is a set of normalisers, applied in a fixed order: timestamp,
// uuid, ids.
type normSet uint8

const (
	normTimestamp normSet = 1 << iota
	normUUID
	normIDs
)

// normalizers are the known normalisers by name.
var normalizers = []struct {
	name string
	bit  normSet
}{
	{"uuid", normUUID},
	{"timestamp", normTimestamp},
	{"ids", normIDs},
}

// NormalizerNames lists the names WithNormalize knows.
func NormalizerNames() []string {
	out := make([]string, len(normalizers))
	for i, n := range normalizers {
		out[i] = n.name
	}
	return out
}

func parseNormalizers(names []string) (normSet, error) {
	var set normSet
next:
	for _, s := range names {
		for _, n := range normalizers {
			if s == n.name {
				set |= n.bit
				continue next
			}
		}
		return 0, fmt.Errorf("%w: unknown normaliser %q; known: %s", ErrConfig, s, strings.Join(NormalizerNames(), ", "))
	}
	return set, nil
}

var (
	// timestampRe matches RFC 3339 and the common ISO 8601 forms: a date,
	// optionally a time (T or space), seconds, a fraction and a zone.
	timestampRe = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?\b`)
	uuidRe      = regexp.MustCompile(`\b[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b`)
	// tokenRe matches words: letters, digits and '_', joined by '-'.
	tokenRe = regexp.MustCompile(`[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*`)
)

// The placeholders normalised values become; none holds a digit, so
// normalising twice changes nothing more.
const (
	phTimestamp = "<timestamp>"
	phUUID      = "<uuid>"
	phID        = "<id>"
)

// apply normalises a decoded string.
func (n normSet) apply(s string) string {
	if n&normTimestamp != 0 {
		s = timestampRe.ReplaceAllLiteralString(s, phTimestamp)
	}
	if n&normUUID != 0 {
		s = uuidRe.ReplaceAllLiteralString(s, phUUID)
	}
	if n&normIDs != 0 {
		s = tokenRe.ReplaceAllStringFunc(s, func(tok string) string {
			if isID(tok) {
				return phID
			}
			return tok
		})
	}
	return s
}

// isID reports whether a word is an identifier for the "ids" normaliser:
// it holds a digit and is either all digits or at least 8 characters
// long ("1234", "req_8f3a2b9c", a UUID), so that "v2" and "mp3" stay.
func isID(tok string) bool {
	digits := 0
	for i := 0; i < len(tok); i++ {
		if tok[i] >= '0' && tok[i] <= '9' {
			digits++
		}
	}
	return digits > 0 && (digits == len(tok) || len(tok) >= 8)
}

// equal reports whether two JSON strings are equal once normalised.
func (n normSet) equal(e, a []byte) bool {
	if n == 0 {
		return false
	}
	return n.apply(decodeString(e)) == n.apply(decodeString(a))
}
