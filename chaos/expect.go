package chaos

import "strconv"

// Want is the kind of answer a surviving server gives to a fault.
type Want uint8

const (
	// WantAny: any answer, or none; the server must only not crash.
	WantAny Want = iota
	// WantError: a JSON-RPC error with Expectation.Code.
	WantError
	// WantNoAnswer: nothing comes back (a notification, a dropped message).
	WantNoAnswer
	// WantRecorded: the recorded answer, validated as usual (the bytes were
	// not changed, only when or how they were written).
	WantRecorded
)

// Expectation is what a surviving server answers to a fault.
type Expectation struct {
	Want Want
	Code int // with WantError
}

// String says it in words: "error -32700", "no answer", "any answer,
// must not crash", "the recorded answer".
func (e Expectation) String() string {
	switch e.Want {
	case WantError:
		return "error " + strconv.Itoa(e.Code)
	case WantNoAnswer:
		return "no answer"
	case WantRecorded:
		return "the recorded answer"
	}
	return "any answer, must not crash"
}

// Expect returns what a server that handles fault f well answers:
//   - malformed: -32700 parse error; invalid: -32600 invalid request
//     (JSON-RPC answers both even for what was meant as a notification);
//   - unknown-method: -32601; bad-params with swapped types or a removed
//     field: -32602 — for a notification (or a client's response), no
//     answer;
//   - bad-params with a huge string or deep nesting, duplicate-id,
//     duplicate, cancel, disconnect: any answer, must not crash;
//   - drop: no answer;
//   - reorder, burst, slow-write: the recorded answer;
//   - the faults of the network (timeout, network-error, invalid-response,
//     error-response): the server's side is untouched (network-error: the
//     server never gets the message, or gets its retry once) — any
//     answer; they test the client's error strategy.
func Expect(f Fault) Expectation {
	// Only a request is answered; "" (unknown) is taken as a request.
	notification := f.MsgKind != "request" && f.MsgKind != ""
	switch f.Kind {
	case Malformed:
		return Expectation{Want: WantError, Code: CodeParseError}
	case Invalid:
		return Expectation{Want: WantError, Code: CodeInvalidRequest}
	case UnknownMethod:
		if notification {
			return Expectation{Want: WantNoAnswer}
		}
		return Expectation{Want: WantError, Code: CodeMethodNotFound}
	case BadParams:
		switch {
		case f.Variant() == badHugeString || f.Variant() == badDeepNesting:
			return Expectation{Want: WantAny}
		case notification:
			return Expectation{Want: WantNoAnswer}
		}
		return Expectation{Want: WantError, Code: CodeInvalidParams}
	case Drop:
		return Expectation{Want: WantNoAnswer}
	case Reorder, Burst, SlowWrite:
		if notification {
			return Expectation{Want: WantNoAnswer}
		}
		return Expectation{Want: WantRecorded}
	}
	return Expectation{Want: WantAny}
}
