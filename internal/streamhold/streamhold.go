// Package streamhold lets tests hold the built-in mock's streamed read
// of a tape (mock.Mock.StreamTape) after it hands a batch of messages
// over: the mock's own tests drive the read a batch at a time behind a
// replay, and an interrupted replay (package engine's tests) can be
// checked to return while the read is still under way. It is the read's
// one test hook.
package streamhold

// Batch, when not nil (tests only: set it before the read starts, and
// reset it once the replay has returned), is called by a streamed read
// after it hands a batch of messages to the replay. halted is closed when
// the replay stops the read (its end); Batch should return then at the
// latest.
var Batch func(halted <-chan struct{})
