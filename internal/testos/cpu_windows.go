package testos

import (
	"time"

	"golang.org/x/sys/windows"
)

// CPUTime is the CPU time (user and kernel) this process has used, 0
// when the system does not say.
func CPUTime() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	return ticks(kernel) + ticks(user)
}

// ticks is a FILETIME that counts a duration, in its units of 100 ns.
func ticks(f windows.Filetime) time.Duration {
	return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
}
