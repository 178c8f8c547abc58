package mcp

import (
	"errors"
	"fmt"
	"slices"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// Values of result.resultType (2026-07-28). Session-based results have
// no resultType.
const (
	// ResultComplete: the request's own result.
	ResultComplete = "complete"
	// ResultInputRequired: an MRTR round. The server asks for the
	// inputRequests and may hand out a requestState; the client retries
	// the request (a new id) with inputResponses and that requestState.
	ResultInputRequired = "input_required"
	// ResultTask: the tasks extension made a task of the request; the
	// result is the task (taskId, status, …), polled with tasks/get.
	ResultTask = "task"
)

// ResultType returns result.resultType, or "" when it has none (a
// session-based result, an empty result) or it is not a string.
func ResultType(result []byte) string {
	v := member(result, "resultType")
	for _, t := range [...]string{ResultComplete, ResultInputRequired, ResultTask} {
		if isString(v, t) {
			return t
		}
	}
	s, _ := decodeString(v)
	return s
}

// RequestState returns result.requestState, the opaque state an
// input_required result asks to have echoed back exactly in the retry,
// and whether the result has one (a string).
func RequestState(result []byte) (string, bool) {
	return decodeString(member(result, "requestState"))
}

// InputRequestKeys returns the keys of result.inputRequests, sorted: the
// names under which the retry must carry its inputResponses. nil when
// the result asks for nothing.
func InputRequestKeys(result []byte) []string {
	reqs := member(result, "inputRequests")
	if !isObject(reqs) {
		return nil
	}
	var keys []string
	_ = jsonscan.Members(reqs, func(m jsonscan.Member) bool {
		k := string(m.Key)
		if m.KeyEscaped {
			k, _ = decodeString(quoted(m.Key))
		}
		keys = append(keys, k)
		return true
	})
	slices.Sort(keys)
	return slices.Compact(keys)
}

// IsRetryOf reports whether params are those of an MRTR retry — a later
// round of a request answered input_required — that is, whether they
// carry inputResponses or requestState.
func IsRetryOf(params []byte) bool {
	if !isObject(params) {
		return false
	}
	found := false
	_ = jsonscan.Members(params, func(m jsonscan.Member) bool {
		found = keyIs(m, "inputResponses") || keyIs(m, "requestState")
		return !found
	})
	return found
}

// ErrNotObject is returned by SetRequestState for params that are not a
// JSON object.
var ErrNotObject = errors.New("mcp: params are not a JSON object")

// SetRequestState returns a copy of params with requestState set to
// state: the value of the member replaced when it is there, the member
// added at the end of the object when it is not. An empty state removes
// the member (and the comma that separated it), since a retry echoes only
// the state the server handed out and never invents one. Every other byte
// is kept. nil or empty params become {"requestState":…}. The error wraps
// ErrNotObject.
func SetRequestState(params []byte, state string) ([]byte, error) {
	return setString(params, "requestState", state)
}

// SetTaskID returns a copy of params with taskId set to id, as
// SetRequestState does for requestState: a replayer puts the live task's
// id into the tasks/get, tasks/result, tasks/update and tasks/cancel it
// sends in place of the recorded one.
func SetTaskID(params []byte, id string) ([]byte, error) {
	return setString(params, "taskId", id)
}

// setString sets the string member key of the object params to value, or
// removes it for "", keeping every other byte.
func setString(params []byte, key, state string) ([]byte, error) {
	if len(params) == 0 {
		if state == "" {
			return []byte(`{}`), nil
		}
		return append(jsonscan.AppendString([]byte(`{"`+key+`":`), state), '}'), nil
	}
	// Offsets into params, -1 for none: where the requestState member
	// (its name) starts, where its value starts and ends, where the member
	// before it ends and where the one after it starts; where the last
	// member ends.
	keyStart, valueStart, valueEnd, prevEnd, nextStart, last := -1, -1, -1, -1, -1, -1
	err := jsonscan.Members(params, func(m jsonscan.Member) bool {
		// m.Key is params[i+1:j] (jsonscan slices it so): the offset of
		// its opening quote follows from the caps. TestSetRequestState
		// pins this.
		start := cap(params) - cap(m.Key) - 1
		if valueEnd >= 0 && nextStart < 0 {
			nextStart = start
		}
		if valueEnd < 0 && keyIs(m, key) {
			keyStart, valueStart, valueEnd, prevEnd = start, m.Start, m.End, last
		}
		last = m.End
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("set %s: %w: %w", key, ErrNotObject, err)
	}
	switch {
	case valueEnd >= 0 && state != "":
		return spliceString(params, valueStart, valueEnd, "", state), nil
	case valueEnd >= 0:
		// Remove the member and one comma: the one before it, else the one
		// after it.
		from, to := keyStart, valueEnd
		if prevEnd >= 0 {
			from = prevEnd
		} else if nextStart >= 0 {
			to = nextStart
		}
		return splice(params, from, to, nil), nil
	case state == "":
		return slices.Clone(params), nil
	}
	if last < 0 { // an empty object: after its '{'
		at := jsonscan.SkipSpace(params, 0) + 1
		return spliceString(params, at, at, `"`+key+`":`, state), nil
	}
	return spliceString(params, last, last, `,"`+key+`":`, state), nil
}

// spliceString returns a copy of doc with doc[start:end] replaced by
// before and the JSON string s.
func spliceString(doc []byte, start, end int, before, s string) []byte {
	out := make([]byte, 0, len(doc)-(end-start)+len(before)+len(s)+2)
	out = append(out, doc[:start]...)
	out = append(out, before...)
	out = jsonscan.AppendString(out, s)
	return append(out, doc[end:]...)
}

// splice returns a copy of doc with doc[start:end] replaced by with.
func splice(doc []byte, start, end int, with []byte) []byte {
	out := make([]byte, 0, len(doc)-(end-start)+len(with))
	out = append(out, doc[:start]...)
	out = append(out, with...)
	return append(out, doc[end:]...)
}
