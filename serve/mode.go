package serve

import "fmt"

// Mode is what serve answers from: the tape, the upstream, or both.
type Mode int

// The record-or-replay modes, as go-vcr and mcp-cassette users know them.
const (
	ModeReplay Mode = iota // answer from the tape only (the default)
	ModeRecord             // pass through to the upstream and write the tape
	ModeOnce               // record if the tape does not exist, else replay
	ModeNew                // answer from the tape; forward misses and add them
)

// modeNames are the modes' names, as --mode takes them.
var modeNames = [...]string{ModeReplay: "replay", ModeRecord: "record", ModeOnce: "once", ModeNew: "new"}

// String is the mode's name: replay, record, once or new.
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode reads a mode's name (replay, record, once, new).
func ParseMode(s string) (Mode, error) {
	for m, name := range modeNames {
		if s == name {
			return Mode(m), nil
		}
	}
	return 0, fmt.Errorf("mode %q: want replay, record, once or new", s)
}

// Modes are the modes' names, in order, for completion and help.
func Modes() []string { return modeNames[:] }
