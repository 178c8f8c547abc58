package mcp

import "testing"

func TestMethodSets(t *testing.T) {
	all := []string{
		MethodInitialize, MethodDiscover, MethodSubscriptionsListen, MethodPing,
		MethodToolsList, MethodToolsCall, MethodPromptsList, MethodPromptsGet,
		MethodResourcesList, MethodResourcesTemplatesList, MethodResourcesRead,
		MethodResourcesSubscribe, MethodResourcesUnsubscribe, MethodLoggingSetLevel,
		MethodCompletionComplete, MethodSamplingCreateMessage, MethodRootsList,
		MethodElicitationCreate, MethodTasksGet, MethodTasksResult, MethodTasksList,
		MethodTasksCancel, MethodTasksUpdate,
		NotificationInitialized, NotificationCancelled, NotificationProgress,
		NotificationMessage, NotificationResourcesUpdated, NotificationResourcesListChanged,
		NotificationToolsListChanged, NotificationPromptsListChanged, NotificationRootsListChanged,
		NotificationSubscriptionsAcknowledged, NotificationElicitationComplete,
		NotificationTaskStatus, NotificationTasks,
		"", "foo/bar",
	}
	sets := []struct {
		name string
		fn   func(string) bool
		want []string
	}{
		{"IsHandshake", IsHandshake, []string{"initialize", "notifications/initialized", "server/discover"}},
		{"ServerInitiated", ServerInitiated, []string{"sampling/createMessage", "roots/list", "elicitation/create", "ping"}},
		{"HasMRTR", HasMRTR, []string{"tools/call", "prompts/get", "resources/read"}},
		{"SessionOnly", SessionOnly, []string{"initialize", "notifications/initialized", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "notifications/roots/list_changed"}},
	}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			in := make(map[string]bool)
			for _, m := range set.want {
				in[m] = true
			}
			for _, m := range all {
				if got := set.fn(m); got != in[m] {
					t.Errorf("%s(%q) = %v, want %v", set.name, m, got, in[m])
				}
			}
		})
	}
}
