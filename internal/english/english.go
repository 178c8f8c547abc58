// Package english writes counts as a person reads them: "1 session",
// "3 sessions".
package english

import (
	"strconv"
	"strings"
)

// Count is n and word, the word in the plural unless n is 1 ("1 fault",
// "0 faults"). The plural adds an s, or for a word ending in a consonant
// and y, ies ("1 entry", "2 entries"); for one ending in s, x, z, ch or
// sh, es ("1 miss", "2 misses").
func Count(n int64, word string) string {
	return strconv.FormatInt(n, 10) + " " + Plural(n, word)
}

// Plural is word, in the plural unless n is 1.
func Plural(n int64, word string) string {
	if n == 1 || word == "" {
		return word
	}
	if l := len(word); l > 1 && word[l-1] == 'y' && !isVowel(word[l-2]) {
		return word[:l-1] + "ies"
	}
	for _, end := range []string{"s", "x", "z", "ch", "sh"} {
		if strings.HasSuffix(word, end) {
			return word + "es"
		}
	}
	return word + "s"
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}
