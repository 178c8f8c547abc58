package transport

// Fault is a failure of a target that does not end its connection: the
// answer to one request is lost (Streamable HTTP: a POST answered with a
// body that is not JSON, or with an event stream that ended before the
// answer and could not be resumed), or a stdio server wrote a line that
// is not JSON on stdout, where nothing but messages may go. The
// connection logs it, drops what it could not read, and goes on; a
// Dialer's OnFault, when set, is told of it, so that a caller waiting
// for an answer need not wait for ever (serve --mode new answers its
// client with an error naming the fault).
type Fault struct {
	// ID is the id of the request whose answer is lost, as it was sent;
	// nil when the fault is not one request's (a stdio line).
	ID  []byte
	Err error // what went wrong, naming the target
}
