package engine

import (
	"slices"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
)

// Filter chooses the part of a tape to replay. The zero value keeps all.
type Filter struct {
	// StartOffset and EndOffset keep the messages recorded in that window
	// of the tape (EndOffset 0: to the end).
	StartOffset, EndOffset time.Duration
	// IncludeMethods, when set, keeps only messages with these methods
	// (answers follow their request); ExcludeMethods drops these.
	IncludeMethods, ExcludeMethods []string
	// SkipNotifications leaves out notifications, client and server ones,
	// except notifications/initialized (the handshake needs it).
	SkipNotifications bool
}

// keep reports whether a recorded message is replayed, and if not, why.
// Answers carry no method: they are kept, and are reported as skipped
// later if their request was left out. It takes the message and its parse
// by pointer: by value they were 272 bytes copied for every message.
func (f *Filter) keep(m *tape.Message, rpc *jsonrpc.Message) (bool, string) {
	at := time.Duration(m.TUS) * time.Microsecond
	if at < f.StartOffset || (f.EndOffset > 0 && at > f.EndOffset) {
		return false, "outside the replayed window (start_offset/end_offset)"
	}
	if rpc.Method == "" {
		return true, ""
	}
	if len(f.IncludeMethods) > 0 && !slices.Contains(f.IncludeMethods, rpc.Method) && !mcp.IsHandshake(rpc.Method) {
		return false, "method not in include_methods"
	}
	if slices.Contains(f.ExcludeMethods, rpc.Method) {
		return false, "method in exclude_methods"
	}
	if f.SkipNotifications && rpc.Kind == jsonrpc.KindNotification && rpc.Method != mcp.NotificationInitialized {
		return false, "notification (skip_notifications)"
	}
	return true, ""
}
