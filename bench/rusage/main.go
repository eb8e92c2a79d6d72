//go:build linux

// Command rusage runs a command and prints, on stderr, the lines of GNU
// time -v that bench/speed.sh reads (wall clock, user and system time,
// maximum resident set size, minor page faults), from the kernel's
// rusage of the child (wait4): what /usr/bin/time -v prints, for machines
// without GNU time. The command's own stdout and stderr pass through.
//
//	go run ./bench/rusage CMD [ARGS...]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rusage CMD [ARGS...]")
		os.Exit(2)
	}
	c := exec.Command(os.Args[1], os.Args[2:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := c.Run()
	wall := time.Since(start).Seconds()
	if c.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(127)
	}
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	sec := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	fmt.Fprintf(os.Stderr, "\tCommand being timed: %q\n", os.Args[1:])
	fmt.Fprintf(os.Stderr, "\tUser time (seconds): %.2f\n", sec(ru.Utime))
	fmt.Fprintf(os.Stderr, "\tSystem time (seconds): %.2f\n", sec(ru.Stime))
	fmt.Fprintf(os.Stderr, "\tElapsed (wall clock) time (h:mm:ss or m:ss): %d:%05.2f\n", int(wall)/60, wall-float64(int(wall)/60*60))
	fmt.Fprintf(os.Stderr, "\tMaximum resident set size (kbytes): %d\n", ru.Maxrss) // Linux: KiB
	fmt.Fprintf(os.Stderr, "\tMinor (reclaiming a frame) page faults: %d\n", ru.Minflt)
	fmt.Fprintf(os.Stderr, "\tExit status: %d\n", c.ProcessState.ExitCode())
	os.Exit(c.ProcessState.ExitCode())
}
