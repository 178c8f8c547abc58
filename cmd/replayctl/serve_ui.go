package main

import (
	"github.com/replayctl/replayctl/serve"
	"github.com/replayctl/replayctl/ui"
)

// serveOptions are the serve options that feed the page of serve --ui
// (ui.Server.ServeOptions); none without --ui or --ui-save.
func (v *browserView) serveOptions() []serve.Option {
	if v == nil {
		return nil
	}
	return v.s.ServeOptions()
}

// finishWith ends the page's feed once the run is over, with end (the
// page server's ServeEnded, RecordEnded, or Finish with the run's
// report), and writes the frozen page (--ui-save).
func (v *browserView) finishWith(end func(*ui.Server)) error {
	if v == nil {
		return nil
	}
	end(v.s)
	if v.save != "" {
		return v.s.SaveFrozen(v.save)
	}
	return nil
}
