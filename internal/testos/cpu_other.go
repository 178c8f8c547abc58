//go:build !unix && !windows

package testos

import "time"

// CPUTime is 0: this system does not say.
func CPUTime() time.Duration { return 0 }
