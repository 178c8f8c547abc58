package shrink

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/report"
)

// WriteTape writes the smallest tape to path atomically (a reader sees
// the old file or the whole new one).
func (r *Result) WriteTape(path string) error {
	return writeAtomic(path, r.Tape)
}

// Plan is the smallest chaos plan in the shape of a JSON report's chaos
// section, which replay.ChaosFrom (run --chaos-from) reads.
type Plan struct {
	Summary struct {
		Tape string `json:"tape"`
	} `json:"summary"`
	Chaos struct {
		Seed   int64          `json:"seed"`
		Faults []report.Fault `json:"faults"`
	} `json:"chaos"`
}

// WritePlan writes the smallest chaos plan to path atomically, for
// `replayctl run --chaos-from PATH`; tapeName is the tape it goes with
// (the path WriteTape wrote).
func (r *Result) WritePlan(path, tapeName string) error {
	var p Plan
	p.Summary.Tape = filepath.Base(tapeName)
	p.Chaos.Seed = r.Seed
	p.Chaos.Faults = r.Faults
	if p.Chaos.Faults == nil {
		p.Chaos.Faults = []report.Fault{}
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

// Summary is the shrink's report as JSON.
type Summary struct {
	Tape          string         `json:"tape"`
	Failure       Failure        `json:"failure"`
	Before        Size           `json:"before"`
	After         Size           `json:"after"`
	Baseline      Rate           `json:"baseline"`
	Deterministic bool           `json:"deterministic"`
	RunsPerTry    int            `json:"runs_per_try"`
	Need          int            `json:"need"`
	Runs          int            `json:"runs"`
	Tries         int            `json:"tries"`
	DurationMS    float64        `json:"duration_ms"`
	Proof         Rate           `json:"proof"`
	ProofHolds    bool           `json:"proof_holds"`
	Exhausted     bool           `json:"exhausted"`
	Interrupted   bool           `json:"interrupted"`
	Simplified    int            `json:"simplified"`
	Units         []Unit         `json:"units"`
	Faults        []report.Fault `json:"faults"`
	Seed          int64          `json:"seed"`
}

// Summary is the result as its JSON report says it; tapeName is the
// tape that was shrunk.
func (r *Result) Summary(tapeName string) Summary {
	faults := r.Faults
	if faults == nil {
		faults = []report.Fault{}
	}
	return Summary{
		Tape: tapeName, Failure: r.Failure, Before: r.Before, After: r.After,
		Baseline: r.Baseline, Deterministic: r.Deterministic, RunsPerTry: r.RunsPerTry, Need: r.Need,
		Runs: r.Runs, Tries: r.Tries, DurationMS: float64(r.Duration.Microseconds()) / 1000,
		Proof: r.Proof, ProofHolds: r.ProofHolds, Exhausted: r.Exhausted, Interrupted: r.Interrupted, Simplified: r.Simplified,
		Units: r.Units, Faults: faults, Seed: r.Seed,
	}
}

// WriteReport writes the JSON report (Summary) to path atomically.
func (r *Result) WriteReport(path, tapeName string) error {
	b, err := json.MarshalIndent(r.Summary(tapeName), "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

// WriteText writes a few lines for a person: the failure, the sizes
// before and after, the runs and the proof.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "failure:  %s\n", r.Failure)
	if r.Failure.Detail != "" {
		fmt.Fprintf(&b, "          %s\n", oneLine(r.Failure.Detail, 160))
	}
	fmt.Fprintf(&b, "before:   %s\n", r.Before)
	fmt.Fprintf(&b, "after:    %s\n", r.After)
	for _, u := range r.Units {
		what := u.Method
		if u.Name != "" {
			what += " " + u.Name
		}
		if u.Handshake {
			what += " (handshake)"
		}
		fmt.Fprintf(&b, "  %s seq %v %s\n", u.Session, u.Seqs, what)
	}
	for _, f := range r.Faults {
		fmt.Fprintf(&b, "  fault %s at %s seq %d (%s)\n", f.Kind, f.Session, f.Seq, f.Detail)
	}
	if r.Simplified > 0 {
		fmt.Fprintf(&b, "simplified: the parameters of %s\n", english.Count(int64(r.Simplified), "message"))
	}
	fmt.Fprintf(&b, "baseline: %d of %s failed; %d of %s per try\n", r.Baseline.Failed, english.Count(int64(r.Baseline.Runs), "run"), r.Need, english.Count(int64(r.RunsPerTry), "run"))
	fmt.Fprintf(&b, "runs:     %d (%s) in %s\n", r.Runs, english.Count(int64(r.Tries), "try"), r.Duration.Round(1e6))
	verdict := "holds"
	if !r.ProofHolds {
		verdict = "does NOT hold"
	}
	if r.Interrupted {
		b.WriteString("proof:    not made: the shrink was interrupted\n")
		b.WriteString("note:     interrupted: this is the smallest tape found so far, not proved to fail the same way\n")
	} else {
		fmt.Fprintf(&b, "proof:    %d of %d runs failed the same way: %s\n", r.Proof.Failed, r.Proof.Runs, verdict)
	}
	if r.Exhausted {
		b.WriteString("note:     the run budget (--max-runs) ran out: the tape may shrink further\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String is the size in one line: "20 sessions, 540 units, 1080 messages, 3 faults".
func (s Size) String() string {
	return fmt.Sprintf("%s, %s, %s (%d from the client, %s), %s", english.Count(int64(s.Sessions), "session"), english.Count(int64(s.Units), "unit"),
		english.Count(int64(s.Messages), "message"), s.ClientMessages, english.Count(int64(s.Bytes), "byte"), english.Count(int64(s.Faults), "fault"))
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func writeAtomic(path string, b []byte) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(b); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
