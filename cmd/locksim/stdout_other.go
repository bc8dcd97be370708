//go:build !linux

package main

// stdoutWasClosed cannot tell a closed stdout from /dev/null here.
func stdoutWasClosed() bool { return false }
