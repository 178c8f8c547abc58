package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/replayctl/replayctl/tape"
)

// record is mode Record (or Once without the tape): the Recorder writing
// the tape. An existing tape is the Recorder's to refuse or overwrite. A
// recording that got no message leaves no tape (a Once run would replay
// it, missing everything).
func (sv *Server) record(ctx context.Context) (*Result, error) {
	release, err := sv.s.recorder.Prepare(sv.path)
	if release != nil {
		defer release()
	}
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(sv.path)
	existed := statErr == nil
	err = sv.s.recorder.Record(ctx, sv.path)
	if !existed && noMessages(sv.path) {
		if os.Remove(sv.path) == nil {
			fmt.Fprintf(sv.s.notices, "%s: nothing was recorded, so no tape is left\n", sv.path)
		}
	}
	return &Result{Recorded: true}, err
}

// noMessages reports whether path is a file holding no message: empty,
// or a tape with none.
func noMessages(path string) bool {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return false
	}
	if st.Size() == 0 {
		return true
	}
	r, err := tape.Open(path)
	if err != nil {
		return false
	}
	defer r.Close()
	_, err = r.Next()
	return errors.Is(err, io.EOF)
}
