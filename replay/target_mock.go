package replay

import (
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Mock is the built-in mock: the tape answers its own requests, as its
// server did. It is the default target.
func Mock() Target { return Target{impl: mockTarget{}} }

// MockTape is the built-in mock answering from another tape, e.g. a newer
// recording of the same client.
func MockTape(path string) Target { return Target{impl: mockTapeTarget{path: path}} }

// mockTarget is Mock: a mock.Server of the tape replayed.
type mockTarget struct{}

func (mockTarget) String() string { return "mock" }

func (mockTarget) Dialer(env DialEnv) (transport.Dialer, error) {
	return mock.FromSource(env.Tape, mock.WithTapeOptions(env.TapeOptions...)), nil
}

// mockTapeTarget is MockTape: a mock.Server of another tape.
type mockTapeTarget struct{ path string }

func (m mockTapeTarget) String() string { return "mock of " + m.path }

func (m mockTapeTarget) Dialer(env DialEnv) (transport.Dialer, error) {
	msrc, err := tape.Load(m.path) // a pipe is read once, into memory
	if err != nil {
		return nil, err
	}
	r, err := tape.OpenSource(msrc, env.TapeOptions...) // a tape that cannot be read is bad input, now
	if err != nil {
		return nil, err
	}
	r.Close()
	return mock.FromSource(msrc, mock.WithTapeOptions(env.TapeOptions...)), nil
}

// mocksItsTape is true when t is the built-in mock answering from the
// tape replayed (Mock, the default).
func (t Target) mocksItsTape() bool {
	_, ok := t.impl.(mockTarget)
	return t.impl == nil || ok
}

// isMock is true when t is the built-in mock (Mock or MockTape).
func (t Target) isMock() bool {
	_, ok := t.impl.(mockTapeTarget)
	return ok || t.mocksItsTape()
}
