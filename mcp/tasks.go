package mcp

// Task statuses, the same in both task designs.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// There are two task designs on the wire:
//
//   - 2025-11-25 (experimental, session-based): a request asks for a task
//     with params.task {"ttl":…}; the result is {"task":{"taskId",
//     "status",…}}. tasks/get and tasks/cancel answer a flat Task
//     {"taskId","status",…}; tasks/result blocks until the task ends and
//     answers the request's own result; notifications/tasks/status
//     carries a flat Task.
//   - 2026-07-28 tasks extension: the server alone decides; a tools/call
//     result {"resultType":"task","taskId","status",…} is the task.
//     tasks/get answers {"resultType":"complete","taskId","status",…} with
//     inputRequests, result or error inlined; tasks/update and
//     tasks/cancel answer {"resultType":"complete"}; notifications/tasks
//     carries the same detailed task.

// TaskID returns the id of the task a result created, and whether it
// created one: result.task.taskId (2025-11-25), or result.taskId of a
// result whose resultType is "task" (2026). A replayer maps the recorded
// id onto the live one, as it maps JSON-RPC ids.
func TaskID(result []byte) (string, bool) {
	if task := member(result, "task"); len(task) > 0 && task[0] == '{' {
		return decodeString(member(task, "taskId"))
	}
	if isString(member(result, "resultType"), ResultTask) {
		return decodeString(member(result, "taskId"))
	}
	return "", false
}

// TaskStatus returns the status of a task: of result.task (a 2025-11-25
// task-creating result), or of a flat task — an object with both taskId
// and status, as a 2026 task-creating result, a tasks/get or tasks/cancel
// result and the params of notifications/tasks and
// notifications/tasks/status are. "" for anything else.
func TaskStatus(result []byte) string {
	if task := member(result, "task"); len(task) > 0 && task[0] == '{' {
		result = task
	}
	id, status := member(result, "taskId"), member(result, "status")
	if len(id) == 0 || id[0] != '"' {
		return ""
	}
	for _, s := range [...]string{TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled} {
		if isString(status, s) {
			return s
		}
	}
	s, _ := decodeString(status)
	return s
}

// IsTerminal reports whether a task in this status is over: completed,
// failed or cancelled. A replayer judges a task by this outcome, not by
// how many polls it took.
func IsTerminal(status string) bool {
	switch status {
	case TaskCompleted, TaskFailed, TaskCancelled:
		return true
	}
	return false
}

// OnTask reports whether method names a task by params.taskId: tasks/get,
// tasks/result, tasks/update, tasks/cancel.
func OnTask(method string) bool {
	switch method {
	case MethodTasksGet, MethodTasksResult, MethodTasksUpdate, MethodTasksCancel:
		return true
	}
	return false
}

// ParamTaskID is params.taskId of a request OnTask names.
func ParamTaskID(params []byte) (string, bool) { return decodeString(member(params, "taskId")) }

// CancelsTasks reports whether a 2025-11-25 server takes tasks/cancel,
// from the result of its initialize: it declared capabilities.tasks.cancel
// (an object). A task of the 2026 extension needs no capability: a server
// of the extension takes tasks/cancel for every task it makes.
func CancelsTasks(initResult []byte) bool {
	return isObject(path(initResult, "capabilities", "tasks", "cancel"))
}
