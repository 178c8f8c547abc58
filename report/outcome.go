package report

// The exit statuses of DESIGN.md, as Report.ExitStatus gives them.
const (
	ExitPassed      = 0   // every answer judged matched, every threshold held
	ExitFailed      = 1   // a failed answer, error, timeout or threshold
	ExitBadInput    = 2   // the tape, the config or an option is wrong
	ExitTarget      = 3   // the target failed (a crash, a refused connection)
	ExitInterrupted = 130 // the replay was interrupted
)

// StopKind is why a replay stopped before the end of its tape.
type StopKind string

// The kinds of early stop.
const (
	// StopInterrupted: the run's context ended (Ctrl-C, a deadline).
	StopInterrupted StopKind = "interrupted"
	// StopTarget: the target failed.
	StopTarget StopKind = "target"
	// StopFailure: stopped at the first failure (on error: stop), or
	// stepped input ended.
	StopFailure StopKind = "failure"
	// StopBadInput: a bad line further down the tape, a rule that could
	// not be applied.
	StopBadInput StopKind = "bad_input"
)

// Stop is how a replay ended: the zero value is at the end of its tape.
type Stop struct {
	Kind StopKind
	// Why says what happened; a stop with a reason is an abort (the
	// report says so and does not pass).
	Why string
}

// Conclude applies the outcome policy to a finished replay: it records
// how the replay ended (an early stop with a reason aborts the report)
// and judges the thresholds. Call it once, when the replay has returned.
func (r *Report) Conclude(stop Stop, ts []Threshold) {
	r.Summary.Stopped = stop.Kind
	r.Load = r.Load.cutShort(stop.Kind)
	if stop.Why != "" {
		r.Abort(stop.Why)
	}
	r.ApplyThresholds(ts)
}

// Interrupted marks a report that stopped early as interrupted (Ctrl-C):
// a merge of shards that their coordinator stopped when it was itself
// interrupted. Its load, cut short, says so.
func (r *Report) Interrupted() {
	r.Summary.Stopped = StopInterrupted
	r.Load = r.Load.cutShort(StopInterrupted)
}

// ExitStatus is the exit status the outcome calls for: ExitInterrupted
// or ExitTarget for those stops, ExitBadInput for a bad tape line met on
// the way, else ExitPassed when the report passed and ExitFailed when not.
func (r Report) ExitStatus() int {
	switch r.Summary.Stopped {
	case StopInterrupted:
		return ExitInterrupted
	case StopTarget:
		return ExitTarget
	case StopBadInput:
		return ExitBadInput
	}
	if r.Passed() {
		return ExitPassed
	}
	return ExitFailed
}
