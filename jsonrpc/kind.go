package jsonrpc

// Kind is what a JSON-RPC message is.
type Kind uint8

// The kinds of message Parse tells apart.
const (
	KindInvalid      Kind = iota // not a JSON-RPC 2.0 message
	KindRequest                  // method and id
	KindNotification             // method, no id
	KindResponse                 // result and id
	KindError                    // error and id
	KindBatch                    // a JSON array of messages; see Message.Batch
)

var kindNames = [...]string{"invalid", "request", "notification", "response", "error", "batch"}

// String returns the kind's lower-case name, as used in logs and reports.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// IsResponseKind reports whether k is an answer to a request: a result or
// an error.
func IsResponseKind(k Kind) bool {
	return k == KindResponse || k == KindError
}
