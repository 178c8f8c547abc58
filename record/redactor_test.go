package record

import "github.com/replayctl/replayctl/tape"

// The recording proxies take tape's Redactor as it is.
var _ Redactor = (*tape.Redactor)(nil)
