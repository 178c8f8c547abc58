//go:build !linux

package session

import "time"

// kernelWake has no kernel-timed form here: newKernelWake returns nil
// and the alarm uses its timer.
type kernelWake struct{ c chan time.Time }

func newKernelWake() *kernelWake          { return nil }
func (w *kernelWake) arm(d time.Duration) {}
func (w *kernelWake) stop()               {}
func (w *kernelWake) close()              {}
