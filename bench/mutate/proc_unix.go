//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// killTogether puts cmd in a process group of its own and makes a
// cancel kill the whole group.
func killTogether(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// maxRSS is a finished process's peak resident memory in bytes (0 when
// the system does not say).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) * 1024 // KiB on Linux
	}
	return 0
}
