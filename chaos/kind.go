package chaos

import (
	"fmt"
	"strings"

	"github.com/replayctl/replayctl/internal/editdist"
)

// Kind names a fault. The names are the ones users write in --chaos, in the
// config file and that the report lists.
type Kind string

// The faults sent to the target (Outbound): the message itself is changed,
// or how it is written.
const (
	Malformed     Kind = "malformed"      // a line that is not JSON, or truncated JSON
	Invalid       Kind = "invalid"        // valid JSON, not valid JSON-RPC
	UnknownMethod Kind = "unknown-method" // the method renamed to one that does not exist
	BadParams     Kind = "bad-params"     // params with swapped types, a field removed, a huge string, deep nesting
	DuplicateID   Kind = "duplicate-id"   // the request with the id of the previous request
	Duplicate     Kind = "duplicate"      // the message sent twice
	Drop          Kind = "drop"           // the message not sent
	Reorder       Kind = "reorder"        // shuffled within a seeded window
	Cancel        Kind = "cancel"         // notifications/cancelled right after the request
	Disconnect    Kind = "disconnect"     // the connection closed mid-flight, then a reconnect
	SlowWrite     Kind = "slow-write"     // written in small pieces with pauses
	Burst         Kind = "burst"          // the next K messages sent at once
)

// The faults of the network (not Outbound): the request goes out as
// recorded and its answer is lost or spoiled, or (network-error) the
// connection fails before the request reaches the server. They test the
// client's error strategy; the server only has to survive.
const (
	Timeout         Kind = "timeout"          // the answer withheld past the deadline
	NetworkError    Kind = "network-error"    // the connection fails as the request is written: it never reaches the server
	InvalidResponse Kind = "invalid-response" // the answer replaced by bytes that are not a valid answer
	ErrorResponse   Kind = "error-response"   // the answer replaced by a JSON-RPC error
)

// kinds is every Kind in its fixed order. The order is part of the plan's
// determinism: Decide picks a fault by cumulative probability in this order.
var kinds = [...]Kind{
	Malformed, Invalid, UnknownMethod, BadParams, DuplicateID, Duplicate, Drop,
	Reorder, Cancel, Disconnect, SlowWrite, Burst,
	Timeout, NetworkError, InvalidResponse, ErrorResponse,
}

// Kinds returns every fault kind, outbound ones first, in a fixed order.
func Kinds() []Kind {
	out := kinds
	return out[:]
}

// Outbound reports whether k is a fault sent to the target; the others
// (timeout, network-error, invalid-response, error-response) act on the
// answer coming back.
func (k Kind) Outbound() bool {
	switch k {
	case Timeout, NetworkError, InvalidResponse, ErrorResponse:
		return false
	}
	return k.valid()
}

// Alters reports whether fault k can change what the server has done by
// the time later messages reach it: a message it never got (drop,
// network-error when not retried, disconnect), got twice or under another
// request's id (duplicate, duplicate-id), or was told to abandon (cancel).
// A later answer that differs from the recording may then be the fault's
// doing, not the server's: the engine attributes it to the fault.
func (k Kind) Alters() bool {
	switch k {
	case Drop, NetworkError, Disconnect, Duplicate, DuplicateID, Cancel:
		return true
	}
	return false
}

// Reaches reports whether a message with fault k reaches the server at
// all: not for drop and network-error (the engine retries the latter, if
// retries are allowed, as a new attempt). A server cannot be broken by a
// message it never got.
func (k Kind) Reaches() bool { return k != Drop && k != NetworkError }

func (k Kind) valid() bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// index returns k's position in kinds, or -1.
func (k Kind) index() int {
	for i, x := range kinds {
		if x == k {
			return i
		}
	}
	return -1
}

// ParseKind reads a kind name as users write it: case and surrounding
// space do not matter, and "_" may stand for "-" (unknown_method). The
// error lists the known kinds.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-"))
	if !k.valid() {
		meant := ""
		if c := editdist.Closest(string(k), knownKinds()); c != "" {
			meant = fmt.Sprintf("did you mean %q? ", c)
		}
		return "", fmt.Errorf("unknown fault kind %q; %sknown kinds: %s", s, meant, knownList())
	}
	return k, nil
}

func knownList() string { return strings.Join(knownKinds(), ", ") }

// knownKinds is the names of the kinds, in the order the list gives them.
func knownKinds() []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return names
}

// applies reports whether k makes sense for a message of class c: a fault
// that needs an id (cancel, duplicate-id, the answer faults) only hits
// requests; one that needs a method only hits requests and notifications.
func (k Kind) applies(c msgClass) bool {
	switch c {
	case classAny, classRequest:
		return true
	case classNotification:
		switch k {
		case DuplicateID, Cancel, Timeout, NetworkError, InvalidResponse, ErrorResponse:
			return false
		}
		return true
	default: // classResponse
		switch k {
		case UnknownMethod, BadParams, DuplicateID, Cancel, Timeout, NetworkError, InvalidResponse, ErrorResponse:
			return false
		}
		return true
	}
}

// msgClass is what Decide needs to know of Msg.Kind.
type msgClass uint8

const (
	classAny msgClass = iota // Msg.Kind empty or unknown: every fault applies
	classRequest
	classNotification
	classResponse // a client's answer to a server request (result or error)
	numClasses
)

func classOf(kind string) msgClass {
	switch kind {
	case "request":
		return classRequest
	case "notification":
		return classNotification
	case "response", "error":
		return classResponse
	}
	return classAny
}
