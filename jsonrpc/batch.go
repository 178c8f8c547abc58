package jsonrpc

import (
	"errors"
	"fmt"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// checkBatch checks the array starting at raw[i]: closed, not empty, with
// nothing after it.
func checkBatch(raw []byte, i int) error {
	end, err := jsonscan.SkipValue(raw, i)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if j := jsonscan.SkipSpace(raw, end); j != len(raw) {
		return fmt.Errorf("%w: data after the batch at offset %d", ErrInvalid, j)
	}
	if j := jsonscan.SkipSpace(raw, i+1); raw[j] == ']' {
		return fmt.Errorf("%w: empty batch", ErrInvalid)
	}
	return nil
}

// Batch returns the messages of a batch, in order, each a view of its own
// bytes inside m.Raw. An element that is not a valid message is returned
// with Kind KindInvalid, and the error (joined over all such elements,
// each naming its index) wraps ErrInvalid; the other elements are still
// usable. Batch returns an error and no messages when m is not a batch.
func (m Message) Batch() ([]Message, error) {
	raw := m.Raw
	i := jsonscan.SkipSpace(raw, 0)
	if m.Kind != KindBatch || i >= len(raw) || raw[i] != '[' {
		return nil, fmt.Errorf("%w: %s message is not a batch", ErrInvalid, m.Kind)
	}
	var out []Message
	var errs []error
	i = jsonscan.SkipSpace(raw, i+1)
	for n := 0; i < len(raw) && raw[i] != ']'; n++ {
		end, err := jsonscan.SkipValue(raw, i)
		if err != nil {
			return out, fmt.Errorf("%w: batch element %d: %w", ErrInvalid, n, err)
		}
		part := raw[i:end:end]
		var el Message
		if part[0] == '[' {
			el, err = Message{Raw: part}, fmt.Errorf("%w: a batch inside a batch", ErrInvalid)
		} else {
			el, err = Parse(part)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("batch element %d: %w", n, err))
		}
		out = append(out, el)
		i = jsonscan.SkipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = jsonscan.SkipSpace(raw, i+1)
		} else if i >= len(raw) || raw[i] != ']' {
			return out, fmt.Errorf("%w: expected ',' or ']' at offset %d of the batch", ErrInvalid, i)
		}
	}
	return out, errors.Join(errs...)
}
