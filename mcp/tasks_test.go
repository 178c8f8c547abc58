package mcp

import "testing"

func TestTaskID(t *testing.T) {
	const id = "786512e2-9e0d-44bd-8f29-789f320fe840"
	tests := []struct {
		name, result, want string
		ok                 bool
	}{
		{"2025-11-25 create", task25Create, id, true},
		{"2026 create", task26Create, id, true},
		{"2026 tasks/get is not a creation", task26GetDone, "", false},
		{"2025 tasks/get is not a creation", task25Get, "", false},
		{"2025 tasks/result", task25Result, "", false},
		{"2026 ack", task26Ack, "", false},
		{"plain result", capRound3Res, "", false},
		{"task not an object", `{"task":"t1"}`, "", false},
		{"resultType task without id", `{"resultType":"task"}`, "", false},
		{"id not a string", `{"resultType":"task","taskId":7}`, "", false},
		{"2025 form wins", `{"task":{"taskId":"a"},"resultType":"task","taskId":"b"}`, "a", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := TaskID([]byte(tt.result))
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestTaskStatus(t *testing.T) {
	params := func(msg string) string { return string(parse(t, msg).Params()) }
	tests := []struct {
		name, result, want string
	}{
		{"2025 create", task25Create, TaskWorking},
		{"2025 tasks/get", task25Get, TaskInputRequired},
		{"2025 tasks/cancel", task25Cancel, TaskCancelled},
		{"2025 notifications/tasks/status", task25Note, TaskCompleted},
		{"2026 create", task26Create, TaskWorking},
		{"2026 tasks/get input", task26GetInput, TaskInputRequired},
		{"2026 tasks/get done", task26GetDone, TaskCompleted},
		{"2026 tasks/get failed", task26GetFail, TaskFailed},
		{"2026 notifications/tasks", params(task26Note), TaskCompleted},
		{"2026 ack", task26Ack, ""},
		{"2025 tasks/result", task25Result, ""},
		{"status without taskId", `{"status":"completed"}`, ""},
		{"other status kept", `{"taskId":"t","status":"paused"}`, "paused"},
		{"not JSON", `{`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TaskStatus([]byte(tt.result)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsTerminal(t *testing.T) {
	for status, want := range map[string]bool{
		TaskWorking: false, TaskInputRequired: false, TaskCompleted: true,
		TaskFailed: true, TaskCancelled: true, "": false, "paused": false,
	} {
		if got := IsTerminal(status); got != want {
			t.Errorf("IsTerminal(%q) = %v, want %v", status, got, want)
		}
	}
}

func TestTaskParams(t *testing.T) {
	params := []byte(`{"taskId":"rec-1","_meta":{}}`)
	if id, ok := ParamTaskID(params); !ok || id != "rec-1" {
		t.Fatalf("ParamTaskID = %q %v", id, ok)
	}
	out, err := SetTaskID(params, "live-9")
	if err != nil || string(out) != `{"taskId":"live-9","_meta":{}}` {
		t.Errorf("SetTaskID = %s, %v", out, err)
	}
	if !OnTask(MethodTasksGet) || !OnTask(MethodTasksResult) || OnTask(MethodToolsCall) {
		t.Error("OnTask")
	}
}

func TestCancelsTasks(t *testing.T) {
	for result, want := range map[string]bool{
		`{"capabilities":{"tasks":{"cancel":{},"list":{}}}}`:                       true,
		`{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"cancel":{ }}}}`: true,
		`{"capabilities":{"tasks":{"list":{}}}}`:                                   false,
		`{"capabilities":{"tasks":{"cancel":true}}}`:                               false,
		`{"capabilities":{}}`:                                                      false,
		`{}`:                                                                       false,
		``:                                                                         false,
		`[]`:                                                                       false,
	} {
		if got := CancelsTasks([]byte(result)); got != want {
			t.Errorf("CancelsTasks(%s) = %v, want %v", result, got, want)
		}
	}
}
