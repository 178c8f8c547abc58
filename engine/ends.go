package engine

import "sync"

// ends counts, per epoch, the actors that have yet to reach the end of
// the tape; the last one passes the end on (for a controller).
type ends struct {
	mu   sync.Mutex // guards left
	left map[uint64]int
}

// begin starts the count for epoch; false when there is nobody to wait for.
func (n *ends) begin(epoch uint64, actors int) bool {
	if actors == 0 {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.left == nil {
		n.left = make(map[uint64]int)
	}
	n.left[epoch] = actors
	return true
}

// reached counts one actor at the end of epoch; true for the last one.
func (n *ends) reached(epoch uint64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	left, ok := n.left[epoch]
	if !ok {
		return false
	}
	if left <= 1 {
		delete(n.left, epoch)
		return true
	}
	n.left[epoch] = left - 1
	return false
}
