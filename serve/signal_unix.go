//go:build unix

package serve

import "syscall"

// canSignal: this system stops and resumes processes (SIGSTOP, SIGCONT).
const canSignal = true

// signalProcess sends SIGSTOP (stop) or SIGCONT to pid, or to its process
// group when group is set.
func signalProcess(pid int, group, stop bool) error {
	s := syscall.SIGCONT
	if stop {
		s = syscall.SIGSTOP
	}
	if group {
		pid = -pid
	}
	return syscall.Kill(pid, s)
}

// killGroup ends a process group for good (resumed first, if stopped).
func killGroup(pid int) {
	syscall.Kill(-pid, syscall.SIGCONT)
	syscall.Kill(-pid, syscall.SIGKILL)
}

// groupAttr starts a command in a process group of its own.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
