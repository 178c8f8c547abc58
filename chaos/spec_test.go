package chaos

import (
	"maps"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		spec    string
		want    map[Kind]float64
		wantErr string
	}{
		{"", map[Kind]float64{}, ""},
		{"timeout=0.05,disconnect=0.01,malformed=0.02", map[Kind]float64{Timeout: 0.05, Disconnect: 0.01, Malformed: 0.02}, ""},
		{" Unknown_Method = 0.5 , ,drop=0.5,", map[Kind]float64{UnknownMethod: 0.5, Drop: 0.5}, ""},
		{"invalid=0.1,duplicate=0.2,burst=0.7", map[Kind]float64{Invalid: 0.1, Duplicate: 0.2, Burst: 0.7}, ""}, // sums to 1.0000000000000002
		{"drop=1", map[Kind]float64{Drop: 1}, ""},
		{"drop", nil, `chaos spec item 1 "drop": want kind=probability`},
		{"explode=0.1", nil, `unknown fault kind "explode"; known kinds: malformed, invalid, unknown-method`},
		{"drop=lots", nil, `probability "lots" is not a number`},
		{"drop=1.5", nil, "probability 1.5 is outside [0, 1]"},
		{"drop=-0", map[Kind]float64{Drop: 0}, ""},
		{"drop=NaN", nil, "outside [0, 1]"},
		{"drop=0.1,drop=0.2", nil, "drop is given twice"},
		{"drop=0.6,timeout=0.6", nil, "add up to 1.2, more than 1"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ParseSpec(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseFaults(t *testing.T) {
	got, err := ParseFaults(map[string]float64{"malformed": 0.05, "Timeout": 0.02})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[Kind]float64{Malformed: 0.05, Timeout: 0.02}; !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []map[string]float64{
		{"nope": 0.1},
		{"bad-params": 0.1, "bad_params": 0.1},
		{"drop": 0.7, "burst": 0.7},
	} {
		if _, err := ParseFaults(bad); err == nil {
			t.Errorf("ParseFaults(%v): got no error, want one", bad)
		}
	}
}

func TestKinds(t *testing.T) {
	ks := Kinds()
	if len(ks) != 16 {
		t.Fatalf("got %d kinds, want 16", len(ks))
	}
	ks[0] = "changed" // a copy: the package's order is safe
	if Kinds()[0] != Malformed {
		t.Errorf("Kinds returned the package's own array")
	}
	inbound := map[Kind]bool{Timeout: true, NetworkError: true, InvalidResponse: true, ErrorResponse: true}
	// Faults that change what the server got (a call missing, doubled,
	// under another id, cancelled), and those whose message never
	// reaches it.
	alters := map[Kind]bool{Drop: true, NetworkError: true, Disconnect: true, Duplicate: true, DuplicateID: true, Cancel: true}
	unreached := map[Kind]bool{Drop: true, NetworkError: true}
	for _, k := range Kinds() {
		if got := k.Outbound(); got != !inbound[k] {
			t.Errorf("%s.Outbound(): got %v, want %v", k, got, !inbound[k])
		}
		if got := k.Alters(); got != alters[k] {
			t.Errorf("%s.Alters(): got %v, want %v", k, got, alters[k])
		}
		if got := k.Reaches(); got != !unreached[k] {
			t.Errorf("%s.Reaches(): got %v, want %v", k, got, !unreached[k])
		}
		if k, err := ParseKind(strings.ToUpper(string(k))); err != nil {
			t.Errorf("ParseKind(%q): %v", k, err)
		}
		if detail(k, 12345) == "" {
			t.Errorf("%s: no detail", k)
		}
	}
	if Kind("nope").Outbound() {
		t.Errorf("an unknown kind is Outbound")
	}
}
