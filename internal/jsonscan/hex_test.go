package jsonscan

import "testing"

func TestHex(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"2B", 0x2b, true},
		{"d83D", 0xd83d, true},
		{"0010FFFF", 0x10ffff, true},
		{"FFFFFFFF", 0xffffffff, true},
		{"", 0, false},
		{"123456789", 0, false},
		{"12g4", 0, false},
		{"-1", 0, false},
	} {
		v, ok := Hex([]byte(tc.in))
		if ok != tc.ok || (ok && v != tc.want) {
			t.Errorf("Hex(%q) = %#x, %v; want %#x, %v", tc.in, v, ok, tc.want, tc.ok)
		}
	}
}
