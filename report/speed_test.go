package report

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/scheduler"
)

// speedOf is the speed s as the engine gives it to Meta: nil for "", not
// known. s must be valid.
func speedOf(s string) *scheduler.Speed {
	if s == "" {
		return nil
	}
	v, err := scheduler.Parse(s)
	if err != nil {
		panic(err)
	}
	return &v
}

// TestSpeedReadBack: the report writes its speed as the command line takes
// it and reads the same value back; no speed is left out and reads back as
// not known.
func TestSpeedReadBack(t *testing.T) {
	for _, in := range []string{"realtime", "10x", "0.5x", "fixed:50ms", "rps:12.5", "fast", "stepped", ""} {
		t.Run(in, func(t *testing.T) {
			r := NewCollector().Report(Meta{Tape: "t.jsonl", Speed: speedOf(in)})
			var buf strings.Builder
			if err := r.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			if got, has := strings.Contains(buf.String(), `"speed": "`+in+`"`), in != ""; got != has {
				t.Errorf("speed %q written: %v, want %v in\n%s", in, got, has, buf.String())
			}
			back, err := Parse([]byte(buf.String()))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := speedText(back.Summary.Speed), in; got != want {
				t.Errorf("read back %q, want %q", got, want)
			}
		})
	}
}

// TestSpeedReadBad: a report whose speed is not one names the field and
// says what a speed may be.
func TestSpeedReadBad(t *testing.T) {
	tests := []struct {
		doc  string
		want string
	}{
		{`{"summary":{"speed":"10y"}}`, `summary.speed: speed "10y": want realtime, fast, stepped, Nx (e.g. 10x), fixed:<duration> (e.g. fixed:50ms) or rps:<N>`},
		{`{"summary":{"speed":"0x"}}`, `summary.speed: speed "0x": the factor must be a finite number above 0`},
		{`{"summary":{"speed":10}}`, `summary.speed: a JSON number where a string belongs`},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			if !errors.Is(err, ErrBadReport) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want ErrBadReport containing %q", err, tt.want)
			}
		})
	}
}

// TestMergeSpeeds: reports of one speed merge into a report of it, with a
// load section; of different speeds into one of no known speed, with a
// warning and no load section.
func TestMergeSpeeds(t *testing.T) {
	half := func(speed string) *Report {
		c := NewCollector()
		for _, r := range every(3, time.Second, constant(0), constant(0)) {
			c.Add(r)
		}
		return throughJSON(t, c.Report(Meta{Tape: "t.jsonl", Sessions: 1, Speed: speedOf(speed)}))
	}
	tests := []struct {
		speeds  []string
		want    string
		paced   bool
		warning string
	}{
		{[]string{"10x", "10X"}, "10x", true, ""},
		{[]string{"fast", "fast"}, "fast", false, ""},
		{[]string{"10x", "rps:5"}, "", false, "merged reports of different speeds (10x, rps:5): the load section does not apply"},
		{[]string{"10x", ""}, "", false, "merged reports of different speeds (10x, ): the load section does not apply"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.speeds, "+"), func(t *testing.T) {
			var rs []*Report
			for _, s := range tt.speeds {
				rs = append(rs, half(s))
			}
			m, err := Merge(rs)
			if err != nil {
				t.Fatal(err)
			}
			if got := speedText(m.Summary.Speed); got != tt.want {
				t.Errorf("speed %q, want %q", got, tt.want)
			}
			if m.Load.Applicable != tt.paced {
				t.Errorf("load applicable %v, want %v (%s)", m.Load.Applicable, tt.paced, m.Load.Verdict)
			}
			if tt.warning != "" && !strings.Contains(strings.Join(m.Summary.Warnings, "\n"), tt.warning) {
				t.Errorf("warnings %q, want %q", m.Summary.Warnings, tt.warning)
			}
		})
	}
}
