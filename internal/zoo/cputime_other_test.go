//go:build !unix

package zoo

import "time"

// cpuTime is 0 where getrusage is not available: the table then shows
// wall time only.
func cpuTime() time.Duration { return 0 }
