package jsonscan

// Hex reads digits, 1 to 8 hexadecimal digits of either case, as a number:
// the four of a \u escape, and the other escapes report decodes. ok is
// false when there are none, more than 8, or a byte is not a hex digit.
func Hex(digits []byte) (v uint64, ok bool) {
	if len(digits) < 1 || len(digits) > 8 {
		return 0, false
	}
	for _, c := range digits {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(c)
	}
	return v, true
}
