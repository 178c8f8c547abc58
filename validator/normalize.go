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

// The parts of the date formats timestampRe knows.
const (
	dow   = `(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)`
	month = `(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)`
	clock = `\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?`
	zone  = `[A-Z]{2,5}` // UTC, GMT, MST, CEST
)

var (
	// timestampRe matches the dates and times programs write, with their
	// time and zone when they have them:
	//   - RFC 3339 and the common ISO 8601 forms: a date, optionally a
	//     time (T or space), seconds, a fraction and a zone, and Go's
	//     time.String (2026-11-23 10:00:00.5 +0000 UTC);
	//   - JavaScript's Date.toString (Mon Nov 23 2026 10:00:00 GMT+0000
	//     (Coordinated Universal Time)) and toDateString (Mon Nov 23 2026);
	//   - RFC 1123 and RFC 822 as HTTP and toUTCString write them (Mon, 23
	//     Nov 2026 10:00:00 GMT; 23 Nov 2026 10:00 +0100);
	//   - C's asctime and Unix date (Mon Nov 23 10:00:00 2026, Mon Nov  3
	//     10:00:00 UTC 2026);
	//   - the en-US locale (toLocaleString: 11/23/2026, 10:00:00 AM);
	//   - the en-US time of day alone (toLocaleTimeString: 3:04:05 PM);
	//     a bare 10:00:00 may be a duration and stays.
	timestampRe = regexp.MustCompile(`\b(?:` +
		dow + ` ` + month + ` \d{2} \d{4}(?: ` + clock + `(?: GMT[+-]\d{4})?)?(?: \([^()\n]{1,64}\)|\b)` +
		`|(?:` + dow + `, )?\d{1,2} ` + month + ` \d{2,4} ` + clock + `(?: (?:` + zone + `|[+-]\d{4}))?\b` +
		`|` + dow + ` ` + month + ` [ \d]\d ` + clock + `(?: ` + zone + `)? \d{4}\b` +
		`|\d{1,2}/\d{1,2}/\d{4}(?:,? ` + clock + `(?: ?[AP]M)?)?\b` +
		`|\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?| [+-]\d{4}(?: ` + zone + `)?)?)?\b` +
		`|\d{1,2}:\d{2}:\d{2} ?[AP]M\b)`)
	uuidRe = regexp.MustCompile(`\b[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b`)
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

// patternNorm is a normaliser of the user's own (WithNormalizePattern):
// every match of re becomes placeholder.
type patternNorm struct {
	re          *regexp.Regexp
	placeholder string
}

// normalizer is every normaliser a validator applies: the user's patterns,
// in the order given, then the named ones.
type normalizer struct {
	patterns []patternNorm
	set      normSet
}

// apply normalises a decoded string.
func (n normalizer) apply(s string) string {
	for _, p := range n.patterns {
		s = p.re.ReplaceAllLiteralString(s, p.placeholder)
	}
	return n.set.apply(s)
}

// equal reports whether two JSON strings are equal once normalised.
func (n normalizer) equal(e, a []byte) bool {
	if n.set == 0 && len(n.patterns) == 0 {
		return false
	}
	return n.apply(decodeString(e)) == n.apply(decodeString(a))
}

// compilePattern checks a normaliser pattern: a Go regular expression
// (RE2 syntax) that matches something.
func compilePattern(pattern, placeholder string) (patternNorm, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return patternNorm{}, fmt.Errorf("%w: normaliser pattern %q: %v", ErrConfig, pattern, err)
	}
	if re.MatchString("") {
		return patternNorm{}, fmt.Errorf("%w: normaliser pattern %q matches the empty string, so it would put %q between every two characters; make it match the volatile value only", ErrConfig, pattern, placeholder)
	}
	return patternNorm{re: re, placeholder: placeholder}, nil
}
