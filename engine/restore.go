package engine

import (
	"fmt"

	"github.com/replayctl/replayctl/tape"
)

// restore puts environment values back into a client message that a
// redaction left env markers in ([redacted:env:NAME], tape.RestoreEnv),
// from Config.RestoreEnv, before it is sent. A marker whose variable has
// no value is sent as it is, with a warning (once per name) in the log
// and the report. It runs in the transform stage, which owns the notes.
func (e *Engine) restore(it *Item) {
	out, missing := tape.RestoreEnv(it.Out, e.cfg.RestoreEnv)
	if len(out) != len(it.Out) || (len(out) > 0 && &out[0] != &it.Out[0]) {
		it.Out, it.Rewritten = out, true
	}
	for _, name := range missing {
		if e.restoreWarned[name] {
			continue
		}
		if e.restoreWarned == nil {
			e.restoreWarned = map[string]bool{}
		}
		e.restoreWarned[name] = true
		note := fmt.Sprintf("seq %d: the value of $%s was redacted from the tape ([redacted:env:%s]) and there is none to put back (%s is not set, or not in the tape header's %s tag): the marker is sent as it is; set %s, or put a value with a set_param transformation (value: \"${env.%s}\")",
			it.Rec.Seq, name, name, name, tape.EnvTag, name, name)
		e.restoreNotes = append(e.restoreNotes, note)
		e.cfg.Logger.Warn().Msg(note)
	}
}
