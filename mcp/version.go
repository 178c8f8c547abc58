package mcp

import (
	"slices"

	"github.com/replayctl/replayctl/jsonrpc"
)

// The protocol revisions replayctl knows, by their dates.
const (
	V20241105 = "2024-11-05"
	V20250326 = "2025-03-26"
	V20250618 = "2025-06-18"
	V20251125 = "2025-11-25" // the last session-based revision
	V20260728 = "2026-07-28" // the first stateless revision
	Latest    = V20260728
)

var revisions = [...]string{V20241105, V20250326, V20250618, V20251125, V20260728}

// Revisions returns the known revisions, oldest first, in a new slice.
func Revisions() []string { return slices.Clone(revisions[:]) }

// Era is how a revision carries a conversation on the wire.
type Era int

// The eras.
const (
	// EraUnknown: no version, or not a date.
	EraUnknown Era = iota
	// EraSession: 2025-11-25 and earlier. An initialize handshake opens a
	// session that fixes the version and the capabilities of both sides.
	EraSession
	// EraStateless: 2026-07-28 and later. No handshake; each request
	// carries its version and the client's capabilities in params._meta.
	EraStateless
)

// String returns "session-based", "stateless" or "unknown".
func (e Era) String() string {
	switch e {
	case EraSession:
		return "session-based"
	case EraStateless:
		return "stateless"
	}
	return "unknown"
}

// EraOf returns the era of a protocol version. Versions compare as dates,
// so a revision newer than replayctl (2027-…) is stateless and an older
// date nobody published is session-based; "" and anything that is not a
// YYYY-MM-DD date are EraUnknown.
func EraOf(version string) Era {
	if !isDate(version) {
		return EraUnknown
	}
	if version >= V20260728 {
		return EraStateless
	}
	return EraSession
}

// isDate reports whether s is YYYY-MM-DD with a month 01-12 and a day
// 01-31 (the calendar is not checked further).
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range []byte(s) {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	month, day := s[5:7], s[8:10]
	return month >= "01" && month <= "12" && day >= "01" && day <= "31"
}

// The _meta keys of the stateless revision (and the two task keys of
// 2025-11-25).
const (
	// MetaProtocolVersion is required on every stateless request; over
	// HTTP the Mcp-Protocol-Version header must carry the same value.
	MetaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// MetaClientCapabilities is required on every stateless request.
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaClientInfo is optional (SHOULD) on stateless requests.
	MetaClientInfo = "io.modelcontextprotocol/clientInfo"
	// MetaLogLevel asks for notifications/message at this level or above.
	MetaLogLevel = "io.modelcontextprotocol/logLevel"
	// MetaServerInfo is on stateless results (server SHOULD).
	MetaServerInfo = "io.modelcontextprotocol/serverInfo"
	// MetaSubscriptionID tags the notifications of a subscriptions/listen
	// stream with the id of the listen request.
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
	// MetaRelatedTask (2025-11-25 tasks) ties a message to a task.
	MetaRelatedTask = "io.modelcontextprotocol/related-task"
	// MetaModelImmediateResponse (2025-11-25 tasks) is an optional
	// message on a task-creating result.
	MetaModelImmediateResponse = "io.modelcontextprotocol/model-immediate-response"
)

// ExtensionTasks is the name of the 2026 tasks extension, under
// capabilities.extensions on both sides.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// MetaVersion returns params._meta["io.modelcontextprotocol/protocolVersion"],
// or "" when params have none or it is not a string. Known revisions come
// back as the package's constants, without allocating.
func MetaVersion(params []byte) string {
	return metaVersion(member(params, "_meta"))
}

// metaVersion is MetaVersion of the _meta object.
func metaVersion(meta []byte) string {
	return internVersion(member(meta, MetaProtocolVersion))
}

// internVersion decodes the JSON string v, a known revision as its
// constant; "" when v is not a string.
func internVersion(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	for _, r := range revisions {
		if isString(v, r) {
			return r
		}
	}
	s, _ := decodeString(v)
	return s
}

// InitializeVersion returns the protocolVersion member of b: the version
// an initialize request asks for (its params), or the one the server
// agrees to (the result of its answer), which the session then speaks.
// "" when there is none. Known revisions come back as the package's
// constants, without allocating.
func InitializeVersion(b []byte) string {
	return internVersion(member(b, "protocolVersion"))
}

// MessageEra tells what a single message says about its era: stateless
// when it is a request whose params carry a MetaVersion of 2026-07-28 or
// later (server/discover included); session-based when it is initialize
// or notifications/initialized; EraUnknown for everything else, which a
// message alone cannot tell (responses, other notifications, requests
// without the _meta version, batches).
//
// A tape may hold both: a client that probed with server/discover and
// fell back to initialize recorded a stateless discover and then a
// session-based handshake. The session's era is then the handshake's.
func MessageEra(m jsonrpc.Message) Era {
	switch m.Kind {
	case jsonrpc.KindRequest:
		if m.Method == MethodInitialize {
			return EraSession
		}
		if EraOf(MetaVersion(m.Params())) == EraStateless {
			return EraStateless
		}
	case jsonrpc.KindNotification:
		if m.Method == NotificationInitialized {
			return EraSession
		}
	}
	return EraUnknown
}
