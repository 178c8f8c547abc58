package config

import (
	"strconv"
	"strings"
)

// Size is a number of bytes, written as "67108864" or with a unit:
// "64MiB", "512KiB", "1GiB" (powers of 1024) or "20MB", "500kB" (powers
// of 1000), in any case, as the command line's size flags take it. A bare
// 0 is a size too.
type Size int64

// sizeUnits are the units a Size is written in, longest first.
var sizeUnits = []struct {
	name string
	size int64
}{
	{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10},
	{"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3}, {"b", 1},
}

// parseSize reads a size of 0 or more bytes.
func parseSize(s string) (Size, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	unit := int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(t, u.name); ok {
			t, unit = strings.TrimSpace(rest), u.size
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/unit {
		return 0, false
	}
	return Size(n * unit), true
}
