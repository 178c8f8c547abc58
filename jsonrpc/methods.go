package jsonrpc

// knownMethod returns the MCP method name b as a constant string, so that
// Parse does not allocate for the methods seen on nearly every message.
func knownMethod(b []byte) (string, bool) {
	switch string(b) {
	case "initialize":
		return "initialize", true
	case "ping":
		return "ping", true
	case "notifications/initialized":
		return "notifications/initialized", true
	case "notifications/cancelled":
		return "notifications/cancelled", true
	case "notifications/progress":
		return "notifications/progress", true
	case "notifications/message":
		return "notifications/message", true
	case "notifications/resources/updated":
		return "notifications/resources/updated", true
	case "notifications/resources/list_changed":
		return "notifications/resources/list_changed", true
	case "notifications/tools/list_changed":
		return "notifications/tools/list_changed", true
	case "notifications/prompts/list_changed":
		return "notifications/prompts/list_changed", true
	case "notifications/roots/list_changed":
		return "notifications/roots/list_changed", true
	case "tools/list":
		return "tools/list", true
	case "tools/call":
		return "tools/call", true
	case "resources/list":
		return "resources/list", true
	case "resources/read":
		return "resources/read", true
	case "resources/templates/list":
		return "resources/templates/list", true
	case "resources/subscribe":
		return "resources/subscribe", true
	case "resources/unsubscribe":
		return "resources/unsubscribe", true
	case "prompts/list":
		return "prompts/list", true
	case "prompts/get":
		return "prompts/get", true
	case "completion/complete":
		return "completion/complete", true
	case "logging/setLevel":
		return "logging/setLevel", true
	case "sampling/createMessage":
		return "sampling/createMessage", true
	case "roots/list":
		return "roots/list", true
	case "elicitation/create":
		return "elicitation/create", true
	case "server/discover":
		return "server/discover", true
	case "subscriptions/listen":
		return "subscriptions/listen", true
	case "notifications/subscriptions/acknowledged":
		return "notifications/subscriptions/acknowledged", true
	case "tasks/get":
		return "tasks/get", true
	case "tasks/result":
		return "tasks/result", true
	case "tasks/list":
		return "tasks/list", true
	case "tasks/cancel":
		return "tasks/cancel", true
	case "tasks/update":
		return "tasks/update", true
	case "notifications/tasks":
		return "notifications/tasks", true
	case "notifications/tasks/status":
		return "notifications/tasks/status", true
	case "notifications/elicitation/complete":
		return "notifications/elicitation/complete", true
	}
	return "", false
}

// KnownMethod returns the method value v (quoted, as in a message) as a
// constant string when it is a common MCP method written plainly, so that
// reading it does not allocate; ok is false for any other value.
func KnownMethod(v []byte) (name string, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	return knownMethod(v[1 : len(v)-1])
}

// knownMethods are the methods knownMethod knows, for Kept to name by
// their index (methodIndex) rather than hold a string.
var knownMethods = [...]string{
	"initialize",
	"ping",
	"notifications/initialized",
	"notifications/cancelled",
	"notifications/progress",
	"notifications/message",
	"notifications/resources/updated",
	"notifications/resources/list_changed",
	"notifications/tools/list_changed",
	"notifications/prompts/list_changed",
	"notifications/roots/list_changed",
	"tools/list",
	"tools/call",
	"resources/list",
	"resources/read",
	"resources/templates/list",
	"resources/subscribe",
	"resources/unsubscribe",
	"prompts/list",
	"prompts/get",
	"completion/complete",
	"logging/setLevel",
	"sampling/createMessage",
	"roots/list",
	"elicitation/create",
	"server/discover",
	"subscriptions/listen",
	"notifications/subscriptions/acknowledged",
	"tasks/get",
	"tasks/result",
	"tasks/list",
	"tasks/cancel",
	"tasks/update",
	"notifications/tasks",
	"notifications/tasks/status",
	"notifications/elicitation/complete",
}

var methodIndex = func() map[string]uint8 {
	m := make(map[string]uint8, len(knownMethods))
	for i, name := range knownMethods {
		m[name] = uint8(i)
	}
	return m
}()
