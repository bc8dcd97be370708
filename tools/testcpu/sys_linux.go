package main

import "syscall"

// dieWithParent makes the test binary die with the wrapper: go test kills
// the wrapper (SIGKILL, which cannot be forwarded) when a binary outlives
// its -timeout by a minute, and the binary must not run on alone.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
