package mcp

// Requests. The revision that introduced a method is noted where it is
// not in all of them.
const (
	MethodInitialize          = "initialize"           // session-based only
	MethodDiscover            = "server/discover"      // 2026-07-28
	MethodSubscriptionsListen = "subscriptions/listen" // 2026-07-28
	MethodPing                = "ping"                 // session-based only; either side may send it

	MethodToolsList              = "tools/list"
	MethodToolsCall              = "tools/call"
	MethodPromptsList            = "prompts/list"
	MethodPromptsGet             = "prompts/get"
	MethodResourcesList          = "resources/list"
	MethodResourcesTemplatesList = "resources/templates/list"
	MethodResourcesRead          = "resources/read"
	MethodResourcesSubscribe     = "resources/subscribe"   // session-based only
	MethodResourcesUnsubscribe   = "resources/unsubscribe" // session-based only
	MethodLoggingSetLevel        = "logging/setLevel"      // session-based only
	MethodCompletionComplete     = "completion/complete"

	// Sent by the server to the client (session-based; in 2026 they are
	// the methods of MRTR inputRequests instead).
	MethodSamplingCreateMessage = "sampling/createMessage"
	MethodRootsList             = "roots/list"
	MethodElicitationCreate     = "elicitation/create"

	// Tasks: get and cancel in both task designs; result and list in
	// 2025-11-25 only; update in the 2026 extension only.
	MethodTasksGet    = "tasks/get"
	MethodTasksResult = "tasks/result"
	MethodTasksList   = "tasks/list"
	MethodTasksCancel = "tasks/cancel"
	MethodTasksUpdate = "tasks/update"
)

// Notifications.
const (
	NotificationInitialized               = "notifications/initialized" // session-based only
	NotificationCancelled                 = "notifications/cancelled"
	NotificationProgress                  = "notifications/progress"
	NotificationMessage                   = "notifications/message"
	NotificationResourcesUpdated          = "notifications/resources/updated"
	NotificationResourcesListChanged      = "notifications/resources/list_changed"
	NotificationToolsListChanged          = "notifications/tools/list_changed"
	NotificationPromptsListChanged        = "notifications/prompts/list_changed"
	NotificationRootsListChanged          = "notifications/roots/list_changed"         // session-based only
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged" // 2026-07-28
	NotificationElicitationComplete       = "notifications/elicitation/complete"       // 2025-11-25
	NotificationTaskStatus                = "notifications/tasks/status"               // 2025-11-25 tasks
	NotificationTasks                     = "notifications/tasks"                      // 2026 tasks extension
)

// IsHandshake reports whether method opens a conversation rather than
// doing work: initialize and notifications/initialized (session-based),
// server/discover (stateless, optional there). The engine replays a
// tape's handshake before its schedule starts, and never cancels it.
func IsHandshake(method string) bool {
	switch method {
	case MethodInitialize, NotificationInitialized, MethodDiscover:
		return true
	}
	return false
}

// ServerInitiated reports whether method is a request a server sends to
// its client: sampling/createMessage, roots/list, elicitation/create and
// ping (which either side may send). A replayer answers these from the
// tape. They exist on the wire only in the session-based era; in 2026 a
// server asks for the same things through MRTR inputRequests.
func ServerInitiated(method string) bool {
	switch method {
	case MethodSamplingCreateMessage, MethodRootsList, MethodElicitationCreate, MethodPing:
		return true
	}
	return false
}

// HasMRTR reports whether method may be answered with an input_required
// result and retried with inputResponses (multi-round-trip requests,
// 2026-07-28): tools/call, prompts/get and resources/read.
func HasMRTR(method string) bool {
	switch method {
	case MethodToolsCall, MethodPromptsGet, MethodResourcesRead:
		return true
	}
	return false
}

// SessionOnly reports whether method exists only in the session-based
// era: a request carrying 2026 _meta for it is answered -32601 (HTTP 404)
// by a stateless server. These are initialize, notifications/initialized,
// ping, logging/setLevel, resources/subscribe, resources/unsubscribe and
// notifications/roots/list_changed (go-sdk v1.8.0, server.go:1970-1977).
func SessionOnly(method string) bool {
	switch method {
	case MethodInitialize, NotificationInitialized, MethodPing, MethodLoggingSetLevel,
		MethodResourcesSubscribe, MethodResourcesUnsubscribe, NotificationRootsListChanged:
		return true
	}
	return false
}
