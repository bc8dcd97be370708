//go:build unix

package zoo

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system) the process has used so
// far, every thread counted: what a benchmark row costs whatever else
// the machine runs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
