package main

import "github.com/replayctl/replayctl/serve"

// serveOptions are the serve options that feed the page of serve --ui
// (ui.Server.ServeOptions); none without --ui or --ui-save.
func (v *browserView) serveOptions() []serve.Option {
	if v == nil {
		return nil
	}
	return v.s.ServeOptions()
}

// serveFinish ends the page's feed once serve's clients are gone, and
// writes the frozen page (--ui-save).
func (v *browserView) serveFinish() error {
	if v == nil {
		return nil
	}
	v.s.ServeEnded()
	if v.save != "" {
		return v.s.SaveFrozen(v.save)
	}
	return nil
}

// recordFinish ends the page's feed once the recording is over, and
// writes the frozen page (--ui-save).
func (v *browserView) recordFinish() error {
	if v == nil {
		return nil
	}
	v.s.RecordEnded()
	if v.save != "" {
		return v.s.SaveFrozen(v.save)
	}
	return nil
}
