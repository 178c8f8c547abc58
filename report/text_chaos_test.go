package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// chaosReport is a report of a chaos run: sessions s1…sN, the first
// broken ones not surviving, each with faults kinds (one fault of each).
func chaosRun(sessions, broken int, kinds ...string) Report {
	seed := int64(7)
	r := Report{Chaos: Chaos{Seed: &seed}}
	for i := 1; i <= sessions; i++ {
		name := fmt.Sprintf("s%d", i)
		sv := Survival{Session: name, Survived: i > broken, Faults: len(kinds), Notes: []string{"note of " + name}}
		for j, k := range kinds {
			f := Fault{Seq: int64(3 + 2*j), Session: name, Kind: k, Detail: "what " + k + " did #p=abc"}
			r.Chaos.Faults = append(r.Chaos.Faults, f)
			if !sv.Survived && j == 0 {
				sv.BrokenBy = &f
			}
		}
		r.Chaos.Injected += int64(len(kinds))
		r.Chaos.Survival = append(r.Chaos.Survival, sv)
	}
	return r
}

func TestWriteTextChaos(t *testing.T) {
	omitted := chaosRun(2, 0, "drop", "timeout")
	omitted.Chaos.Faults = omitted.Chaos.Faults[:3]
	omitted.Chaos.FaultsOmitted = 1
	for _, tc := range []struct {
		name        string
		r           Report
		verbose     bool
		want, avoid []string
	}{
		{
			name: "counts and one line per session",
			r:    chaosRun(2, 1, "malformed", "malformed", "timeout"),
			want: []string{
				"chaos       6 faults injected (seed 7): 1 session survived, 1 did not\n",
				"s1  did NOT survive  3 faults (2 malformed, 1 timeout): broken by seq 3 malformed (what malformed did)\n",
				"s2  survived         3 faults (2 malformed, 1 timeout)\n",
				"run -v, or see the report's chaos section",
			},
			avoid: []string{"note of", "seq 5 malformed", "#p="},
		},
		{
			name:    "verbose lists the faults and notes",
			r:       chaosRun(2, 1, "malformed", "timeout"),
			verbose: true,
			want:    []string{"s1  did NOT survive  2 faults", "    seq 3 malformed: what malformed did\n", "    seq 5 timeout: what timeout did\n", "    note: note of s2\n"},
			avoid:   []string{"run -v", "#p="},
		},
		{
			name:  "many sessions: those that did not survive",
			r:     chaosRun(30, 2, "drop"),
			want:  []string{"30 faults injected (seed 7): 28 sessions survived, 2 did not", "s1  did NOT survive", "s2  did NOT survive", "and 28 more sessions (28 survived, 0 did not)"},
			avoid: []string{"s3 "},
		},
		{
			name:  "many sessions, all survived: the counts",
			r:     chaosRun(30, 0, "drop"),
			want:  []string{"30 sessions survived, 0 did not"},
			avoid: []string{"s1 ", "more sessions"},
		},
		{
			name:    "many sessions, verbose: all",
			r:       chaosRun(12, 0, "drop"),
			verbose: true,
			want:    []string{"s1 ", "s12 "},
		},
		{
			name:  "faults left out of the report",
			r:     omitted,
			want:  []string{"4 faults injected (seed 7): 2 sessions survived, 0 did not; the report lists 3 of them", "s1  survived         2 faults (1 drop, 1 timeout)\n", "s2  survived         2 faults\n"},
			avoid: []string{"s2  survived         2 faults ("},
		},
		{
			name:  "a seed and no fault",
			r:     chaosRun(0, 0),
			want:  []string{"chaos       0 faults injected (seed 7)\n"},
			avoid: []string{"survived", "run -v"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []TextOption
			if tc.verbose {
				opts = append(opts, Verbose())
			}
			var buf bytes.Buffer
			if err := tc.r.WriteText(&buf, false, opts...); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("got:\n%s\nwant it to contain %q", got, w)
				}
			}
			for _, a := range tc.avoid {
				if strings.Contains(got, a) {
					t.Errorf("got:\n%s\nwant it not to contain %q", got, a)
				}
			}
		})
	}
}
