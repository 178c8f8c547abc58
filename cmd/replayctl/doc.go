// Command replayctl replays recorded MCP sessions against live targets.
//
// This package only turns flags into an engine.Config, handles signals and
// writes output; the work is done by the library packages. Exit status: 0
// all good; 1 validation failures or failed thresholds; 2 bad usage or bad
// input; 3 the target failed (it could not be started or reached, it
// died, or it sent a message longer than --max-message); 130 interrupted.
package main
