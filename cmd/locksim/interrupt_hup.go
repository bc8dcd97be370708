//go:build !js && !wasip1 && !windows

package main

import (
	"os"
	"syscall"
)

// hangupSignal is SIGHUP where the platform has it.
var hangupSignal = []os.Signal{syscall.SIGHUP}
