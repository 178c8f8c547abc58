package validator

import (
	"bytes"
	"math"
	"strconv"
)

// decimal is a JSON number in canonical form: value = ±digits × 10^exp,
// digits without leading or trailing zeros (empty for zero).
type decimal struct {
	neg    bool
	digits []byte
	exp    int64
}

// parseDecimal canonicalises a JSON number. ok is false for text that is
// not a JSON number or whose exponent does not fit an int64.
func parseDecimal(n []byte) (d decimal, ok bool) {
	i := 0
	if i < len(n) && n[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(n) && n[i] >= '0' && n[i] <= '9' {
		d.digits = append(d.digits, n[i])
		i++
	}
	if i == start {
		return d, false
	}
	if i < len(n) && n[i] == '.' {
		i++
		fs := i
		for i < len(n) && n[i] >= '0' && n[i] <= '9' {
			d.digits = append(d.digits, n[i])
			i++
		}
		if i == fs {
			return d, false
		}
		d.exp = -int64(i - fs)
	}
	if i < len(n) && (n[i] == 'e' || n[i] == 'E') {
		i++
		neg := false
		if i < len(n) && (n[i] == '+' || n[i] == '-') {
			neg = n[i] == '-'
			i++
		}
		es := i
		for i < len(n) && n[i] == '0' {
			i++
		}
		ds := i
		for i < len(n) && n[i] >= '0' && n[i] <= '9' {
			i++
		}
		if i == es || i-ds > 15 {
			return d, false
		}
		var e int64
		if i > ds {
			e, _ = strconv.ParseInt(string(n[ds:i]), 10, 64)
		}
		if neg {
			e = -e
		}
		d.exp += e
	}
	if i != len(n) {
		return d, false
	}
	d.digits = bytes.TrimLeft(d.digits, "0")
	for len(d.digits) > 0 && d.digits[len(d.digits)-1] == '0' {
		d.digits = d.digits[:len(d.digits)-1]
		d.exp++
	}
	if len(d.digits) == 0 {
		d.neg, d.exp = false, 0
	}
	return d, true
}

// numbersEqual reports whether two JSON numbers have the same value,
// exactly: 1 == 1.0 == 1e0, -0 == 0, 12345678901234567890 != ...891.
func numbersEqual(a, b []byte) bool {
	x, okx := parseDecimal(a)
	y, oky := parseDecimal(b)
	if !okx || !oky {
		return bytes.Equal(a, b)
	}
	return x.neg == y.neg && x.exp == y.exp && bytes.Equal(x.digits, y.digits)
}

// tolerance is the allowed numeric difference: absolute, or relative to
// the expected value. The zero tolerance allows none.
type tolerance struct {
	abs, rel float64
}

// equal reports whether two JSON numbers are equal, or differ by no more
// than the tolerance.
func (t tolerance) equal(e, a []byte) bool {
	if numbersEqual(e, a) {
		return true
	}
	if t.abs == 0 && t.rel == 0 {
		return false
	}
	x, err := strconv.ParseFloat(string(e), 64)
	if err != nil || math.IsInf(x, 0) {
		return false
	}
	y, err := strconv.ParseFloat(string(a), 64)
	if err != nil || math.IsInf(y, 0) {
		return false
	}
	// The bounds are inclusive; the slack keeps them so despite binary
	// rounding (18.01 - 18.0 is 0.010000000000000675).
	const slack = 1 + 1e-9
	d := math.Abs(x - y)
	return d <= t.abs*slack || d <= t.rel*math.Abs(x)*slack
}

// isInteger reports whether a JSON number has an integer value (1, 1.0,
// 1e3; not 1.5).
func isInteger(n []byte) bool {
	d, ok := parseDecimal(n)
	return ok && d.exp >= 0
}
