package engine

import "github.com/replayctl/replayctl/engine/session"

// Item is one recorded message on its way down the pipeline (see
// session.Item).
type Item = session.Item

// outcome is what a session's actor (or the router, for what no session
// takes) hands to validate.
type outcome = session.Outcome

// ErrTarget is wrapped by errors that come from the target: it could not be
// reached, or it died.
var ErrTarget = session.ErrTarget
