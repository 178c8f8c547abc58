package chaos

// ServeKind is a fault a mock server (replayctl serve, package mock)
// injects toward its client, in the answer to one request. Each is
// decided as a Kind of run's, its carrier: Decide's seeded hash,
// thresholds and targets are used unchanged, and the carrier's Param
// sizes the serve fault (for error and malformed, MutateAnswer spoils
// the answer as it does for run). What each does is package mock's to
// say (mock.ChaosKind).
type ServeKind string

// The faults toward the client.
const (
	ServeDelay      ServeKind = "delay"
	ServeSlow       ServeKind = "slow"
	ServeMissing    ServeKind = "missing"
	ServeError      ServeKind = "error"
	ServeMalformed  ServeKind = "malformed"
	ServeOutOfOrder ServeKind = "out-of-order"
	ServeHangUp     ServeKind = "hang-up"
)

// serveKinds is every ServeKind in its fixed order, with its carrier and
// the other names it is known by: run's name of the same fault, and the
// words of the issue that asked for it.
var serveKinds = [...]struct {
	kind    ServeKind
	carrier Kind
	aliases []string
}{
	{ServeDelay, Burst, []string{"delayed"}},
	{ServeSlow, SlowWrite, []string{"slow-write"}},
	{ServeMissing, Timeout, []string{"timeout"}},
	{ServeError, ErrorResponse, []string{"error-response"}},
	{ServeMalformed, InvalidResponse, []string{"invalid-response"}},
	{ServeOutOfOrder, Reorder, []string{"reorder"}},
	{ServeHangUp, Disconnect, []string{"disconnect", "dropped-connection"}},
}

// ServeKinds returns every serve fault, in a fixed order.
func ServeKinds() []ServeKind {
	out := make([]ServeKind, len(serveKinds))
	for i, s := range serveKinds {
		out[i] = s.kind
	}
	return out
}

// Carrier is the Kind k is decided as, and false for no serve fault.
func (k ServeKind) Carrier() (Kind, bool) {
	for _, s := range serveKinds {
		if s.kind == k {
			return s.carrier, true
		}
	}
	return "", false
}

// ServeKindOf is the serve fault carried by c, and false for a Kind that
// carries none.
func ServeKindOf(c Kind) (ServeKind, bool) {
	for _, s := range serveKinds {
		if s.carrier == c {
			return s.kind, true
		}
	}
	return "", false
}

// ServeKindNamed is the serve fault named name, exactly, or by one of its
// other names; false for none.
func ServeKindNamed(name string) (ServeKind, bool) {
	for _, s := range serveKinds {
		if string(s.kind) == name {
			return s.kind, true
		}
	}
	for _, s := range serveKinds {
		for _, a := range s.aliases {
			if a == name {
				return s.kind, true
			}
		}
	}
	return "", false
}
