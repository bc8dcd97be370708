//go:build !linux

package main

import "syscall"

// dieWithParent is Linux's parent-death signal; elsewhere a binary go test
// kills the wrapper of may run on until its own -test.timeout.
func dieWithParent() *syscall.SysProcAttr { return nil }
