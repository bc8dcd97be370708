//go:build !unix

package cputime

import "time"

// Process is 0 where getrusage is not available: a benchmark then shows
// wall time only.
func Process() time.Duration { return 0 }
