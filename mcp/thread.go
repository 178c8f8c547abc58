package mcp

// Thread is the key that follows one exchange of many requests through a
// session: an MRTR chain (a request answered input_required and its
// retries, of the same method asking for the same name, RequestName) or
// a task (the request whose answer created it and the tasks/* requests
// that name its id). The browser view's groups, inspect's notes and
// shrink's units follow MRTR chains and tasks by it. It is comparable,
// for a map key; a chain's Thread never equals a task's.
type Thread struct {
	session      string
	method, name string // a chain's
	task         string // a task's id
	isTask       bool
}

// ChainThread is the Thread of the MRTR chain that a request of method
// asking for name (RequestName of its params) opens or continues in
// session.
func ChainThread(session, method, name string) Thread {
	return Thread{session: session, method: method, name: name}
}

// TaskThread is the Thread of the task id in session.
func TaskThread(session, id string) Thread {
	return Thread{session: session, task: id, isTask: true}
}
