//go:build !unix

package serve

import (
	"syscall"

	"github.com/pkg/errors"
)

// canSignal: without Unix signals serve cannot stop a process; Validate
// refuses its campaigns and pause faults.
const canSignal = false

func signalProcess(int, bool, bool) error {
	return errors.New("stopping a process needs a Unix system (SIGSTOP)")
}

func killGroup(int) {}

func groupAttr() *syscall.SysProcAttr { return nil }
