package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/internal/knobs"
)

// byteSize is a flag of a number of bytes: "16777216", or with a unit,
// "16MiB", "512KiB", "1GiB" (powers of 1024) or "20MB", "500kB" (powers of
// 1000); units are read in any case, a space before them is allowed.
type byteSize int

var sizeUnits = []struct {
	name string
	size int
}{
	{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10},
	{"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3}, {"b", 1},
}

// String is the size in the largest binary unit it is a whole number of,
// as the knobs' table shows a default.
func (b *byteSize) String() string { return knobs.Size(*b).String() }

// Set reads a size; it must be at least one byte.
func (b *byteSize) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

// Type names the value in --help.
func (b *byteSize) Type() string { return "size" }

// byteSizeOrZero is a byteSize whose flag documents 0 as a setting of its
// own (--gc-headroom 0: Go's own pace).
type byteSizeOrZero byteSize

func (b *byteSizeOrZero) String() string { return (*byteSize)(b).String() }

// Set reads a size; 0 (with or without a unit) is allowed.
func (b *byteSizeOrZero) Set(s string) error {
	n, err := parseSizeFrom(s, 0)
	if err != nil {
		return err
	}
	*b = byteSizeOrZero(n)
	return nil
}

// Type names the value in --help.
func (b *byteSizeOrZero) Type() string { return "size" }

// parseSize reads a size of at least one byte.
func parseSize(s string) (int, error) { return parseSizeFrom(s, 1) }

// parseSizeFrom reads a size of at least least bytes (0 or 1).
func parseSizeFrom(s string, least int64) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	unit := 1
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(t, u.name); ok {
			t, unit = strings.TrimSpace(rest), u.size
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a size: want bytes, e.g. 16777216, or a number with a unit: 16MiB, 512KiB, 20MB", s)
	case n < least:
		return 0, fmt.Errorf("want at least %s", english.Count(least, "byte"))
	case n > math.MaxInt/int64(unit):
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int(n) * unit, nil
}
