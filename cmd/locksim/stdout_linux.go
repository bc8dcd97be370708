//go:build linux

package main

import (
	"os"
	"syscall"
)

// stdoutWasClosed reports whether the process started with stdout closed.
// Go's runtime then opens /dev/null read-write in its place (a shell's
// >/dev/null opens it write-only), so every write succeeds and the output
// is lost without an error; that is what this recognises.
func stdoutWasClosed() bool {
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_GETFL, 0)
	if errno != 0 || fl&syscall.O_ACCMODE != syscall.O_RDWR {
		return false
	}
	var out, null syscall.Stat_t
	if syscall.Fstat(1, &out) != nil || syscall.Stat(os.DevNull, &null) != nil {
		return false
	}
	return out.Mode&syscall.S_IFMT == syscall.S_IFCHR && out.Rdev == null.Rdev
}
