//go:build unix

package simulate

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user + system CPU time, which unlike wall
// time does not grow when other processes load the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
