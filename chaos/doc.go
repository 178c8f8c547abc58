// Package chaos is the seeded fault plan of a chaos replay: which message
// gets which fault, how a faulted message is changed, what a server that
// survives it answers, and the survival verdict. It is pure: no goroutines,
// no clocks, no I/O. The engine calls it and does the wire work (writing in
// pieces, closing connections, withholding answers).
//
// # Determinism
//
// Plan.Decide is a pure function of the seed, the plan (probabilities and
// targets) and the message's session, seq, method, kind and Nth. Its
// randomness is a keyed hash of (seed, session, seq) — SplitMix64 mixing,
// written out in hash.go, never hash/maphash (seeded per process) nor a
// shared random source (whose draws would depend on the order of calls).
// So the same tape, seed and plan give the same faults at any speed, any
// --max-inflight, any number of concurrent sessions, and in any order of
// calls; a Plan is immutable and safe to share. Changing hash.go changes
// what every seed means: TestHashGolden pins it.
//
// From the hash: the roll (53 bits) picks the fault by cumulative
// probability over the kinds in Kinds order; each target gets its own
// roll; Fault.Param (another 64 bits) picks the fault's variant and sizes,
// and Mutate is a pure function of it. Fault.Report writes Param into the
// report's detail, so FromReport (--chaos-from report.json) gives the
// very same faults and mutations again.
//
// # Probabilities and targets
//
// ParseSpec reads --chaos ("timeout=0.05,disconnect=0.01,malformed=0.02");
// the config file's faults go through ParseFaults. A message gets at most one
// fault, so the probabilities add up to at most 1. Fault k hits a message
// with probability p(k) among the messages k can hit: a fault that needs an
// id (duplicate-id, cancel, and the faults on the way back) only hits
// requests; one that needs a method (unknown-method, bad-params) only
// requests and notifications. Msg.Kind tells Decide which.
//
// Targets (Target, from the config's chaos.targets) come first, in order:
// {method, nth, fault} is the Nth call of method in each session, always
// (or with probability); {method, fault, probability} is every call of
// method with that probability. When no target fires, the probabilities
// decide.
//
// # Faults sent to the target
//
//   - malformed: not JSON — a "Content-Length: N" line, the message
//     truncated, a trailing comma, or 16 bytes of binary garbage. Expect:
//     -32700 parse error.
//   - invalid: valid JSON, not valid JSON-RPC — the method (or result or
//     error) removed, the id an object, jsonrpc "1.0", or an empty batch
//     []. Expect: -32600 invalid request.
//   - unknown-method: the method renamed to "chaos/unknown-<8 hex digits>".
//     Expect: -32601 method not found (a notification: no answer).
//   - bad-params: types swapped (strings become numbers, numbers strings,
//     through params and its arguments), a required field removed (the
//     arguments of a tool call, or one member of params), a huge string
//     (HugeStringLen: 1 MiB) or deep nesting (DeepNesting: 10000 levels of
//     arrays) in place of the first string argument. Expect: -32602 for
//     the first two; for the last two only survival (note that Go's
//     encoding/json, among others, refuses more than 10000 levels and
//     answers a parse error).
//   - duplicate-id: the request with the id of the session's previous
//     request (MutateWithPrev), or twice when there was none. Expect:
//     survival.
//   - duplicate: sent twice. Expect: survival.
//   - drop: not sent. Expect: no answer.
//   - reorder: this message and the next W-1 of its session
//     (Fault.ReorderWindow, 2..5) sent in the order Fault.Shuffle gives.
//   - cancel: notifications/cancelled for the request right after it.
//     Expect: survival (an answer may or may not come).
//   - disconnect: the connection closed mid-write or after the write,
//     before the answer (Fault.DisconnectAt), then the engine reconnects
//     with backoff and a fresh handshake. Expect: survival.
//   - slow-write: written Fault.SlowWrite bytes at a time (1..64) with
//     pauses (1ms..50ms). Expect: the recorded answer.
//   - burst: this message and the next K-1 (Fault.BurstSize, 2..8) sent at
//     once, without waiting for their due times. Expect: the recorded answers.
//
// Mutate gives the bytes of all of them but reorder, disconnect,
// slow-write and burst: those are schedule faults, and Mutate returns the
// message unchanged.
//
// # Faults of the network
//
// The request goes out as recorded; MutateAnswer spoils its answer:
// timeout (withheld past the deadline), invalid-response (not JSON,
// truncated, a wrong id, jsonrpc "1.0"), error-response (-32603 or
// -32000). network-error fails the connection as the request is written,
// before the server has it: the client retries it once if retries are
// allowed (the server gets it exactly once, never twice), else it is lost.
// They exercise the client's error strategy, retries and backoff; the
// server only has to survive.
//
// # Verdict
//
// Judge turns a session's Observations into a Verdict: the server survived
// when it stayed up and the messages after each fault still got correct
// answers. A wrong error code is a note, not a failure; the first fault
// after which the server was down or wrong is FirstBreak — never one whose
// message did not reach the server (Kind.Reaches). A later answer that
// differs after a fault that Alters what the server got (a call dropped,
// or made twice) is the fault's doing: the engine does not count it
// against the server (Observation.Attributed).
package chaos
