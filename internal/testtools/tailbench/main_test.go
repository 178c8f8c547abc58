package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDeviations(t *testing.T) {
	const gap = 200 * time.Microsecond
	us := time.Microsecond
	tests := []struct {
		name          string
		at            []time.Duration
		wantDev, gaps []time.Duration // sorted
	}{
		{"on time, late start", []time.Duration{1000 * us, 1200 * us, 1400 * us}, []time.Duration{0, 0, 0}, []time.Duration{0, 0}},
		// The median anchor: a late first call does not shift the others.
		{"first late", []time.Duration{50 * us, 200 * us, 400 * us, 600 * us}, []time.Duration{0, 0, 0, 50 * us}, []time.Duration{0, 0, 50 * us}},
		{"one late in the middle", []time.Duration{0, 500 * us, 400 * us, 600 * us}, []time.Duration{0, 0, 0, 300 * us}, []time.Duration{0, 300 * us, 300 * us}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dev, gaps := deviations(tt.at, gap)
			if !equal(dev, tt.wantDev) || !equal(gaps, tt.gaps) {
				t.Errorf("got %v %v, want %v %v", dev, gaps, tt.wantDev, tt.gaps)
			}
		})
	}
}

func equal(a, b []time.Duration) bool {
	return strings.Join(strs(a), ",") == strings.Join(strs(b), ",")
}

func strs(d []time.Duration) (s []string) {
	for _, x := range d {
		s = append(s, x.String())
	}
	return s
}

func TestStatsReadsOnlyCalls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "arrivals")
	log := "1000000 initialize 0\n1000000 notifications/initialized -\n2000000 tools/call 1\n2200000 tools/call 2\n2400000 tools/call 3\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := statsCmd([]string{"-gap", "200us", "-calls", "2", path}, &out); err != nil {
		t.Fatal(err)
	}
	if want := ": 2 calls; arrival vs schedule p50 0.000 p99 0.000 max 0.000 ms"; !strings.Contains(out.String(), want) {
		t.Errorf("got %q, want it to contain %q", out.String(), want)
	}
	if err := os.WriteFile(path, []byte("x tools/call 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := statsCmd([]string{path}, &out); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a bad line: got %v, want an error naming line 1", err)
	}
}
