package main

// This file runs one wolong command on a variant: with a wall-clock limit,
// its peak resident memory taken from the child's rusage (and a watchdog
// that kills it well past the limit, so a runaway cannot take the machine),
// and its outcome classified from the exit status and stderr.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// Outcomes of one run.
const (
	outOK      = "ok"          // exit 0
	outError   = "clean-error" // exit 1 or 2, one "wolong: " line on stderr (besides warnings)
	outPanic   = "panic"       // a panic or runtime fatal error, caught or not
	outTimeout = "timeout"     // still running at the time limit
	outMemory  = "over-memory" // peak RSS over --max-memory plus the margin
	outGarbled = "garbled"     // any other exit, or an error that is not one clean line
)

var outcomes = []string{outOK, outError, outPanic, outTimeout, outMemory, outGarbled}

// failure reports whether an outcome counts against wolong.
func failure(o string) bool { return o != outOK && o != outError }

// limits bound every run.
type limits struct {
	timeout  time.Duration
	maxRSS   int64 // bytes: --max-memory plus the margin; above it a run fails
	killRSS  int64 // bytes: the watchdog kills the child past this
	stderrCp int   // bytes of stderr kept
}

// result is one run.
type result struct {
	Variant int      `json:"variant"`
	Seed    string   `json:"seed"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Exit    int      `json:"exit"`
	Outcome string   `json:"outcome"`
	Seconds float64  `json:"seconds"`
	MaxRSS  int64    `json:"max_rss"`
	Stderr  string   `json:"stderr,omitempty"`
}

// cappedBuffer keeps the first n bytes written to it.
type cappedBuffer struct {
	bytes.Buffer
	n int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.n - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// execute runs bin with args in dir under lim and classifies the result.
func execute(bin string, args []string, dir string, lim limits) result {
	ctx, cancel := context.WithTimeout(context.Background(), lim.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stderr = &cappedBuffer{n: lim.stderrCp}
	cmd.Stderr = stderr
	cmd.Stdout = nil // discarded
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	res := result{Args: args}
	if err := cmd.Start(); err != nil {
		res.Outcome, res.Stderr, res.Exit = outGarbled, "start: "+err.Error(), -1
		return res
	}
	killedMem := make(chan bool, 1)
	done := make(chan struct{})
	go watch(cmd.Process, lim.killRSS, done, killedMem)
	cmd.Wait() // the exit status is read from ProcessState
	close(done)
	res.Seconds = time.Since(start).Seconds()
	res.Stderr = stderr.String()
	if cmd.ProcessState != nil {
		res.Exit = cmd.ProcessState.ExitCode()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.MaxRSS = ru.Maxrss * 1024 // KiB on Linux
		}
	}
	overMem := <-killedMem || res.MaxRSS > lim.maxRSS
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
	res.Outcome = classify(res.Exit, res.Stderr, timedOut, overMem)
	return res
}

// watch polls the child's resident memory and kills it past kill bytes.
func watch(p *os.Process, kill int64, done <-chan struct{}, killed chan<- bool) {
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-done:
			killed <- false
			return
		case <-t.C:
			if rss(p.Pid) > kill {
				p.Kill()
				<-done
				killed <- true
				return
			}
		}
	}
}

// rss returns a process's resident set in bytes (0 if unknown).
func rss(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// classify names the outcome of a run from its exit status and stderr.
func classify(exit int, stderr string, timedOut, overMem bool) string {
	switch {
	case timedOut:
		return outTimeout
	case overMem:
		return outMemory
	case exit == 3 || exit < 0 || strings.Contains(stderr, "panic:") || strings.Contains(stderr, "goroutine ") ||
		strings.Contains(stderr, "fatal error:") || strings.Contains(stderr, "internal error"):
		return outPanic
	case exit == 0:
		return outOK
	case exit == 1 || exit == 2:
		if cleanError(stderr) {
			return outError
		}
	}
	return outGarbled
}

// cleanError reports whether stderr is warnings (if any) followed by one
// printable "wolong: " error line.
func cleanError(stderr string) bool {
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	var errs []string
	for _, l := range lines {
		if strings.HasPrefix(l, "warning: ") || strings.HasPrefix(l, "wolong: warning: ") {
			continue
		}
		errs = append(errs, l)
	}
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "wolong: ") || !utf8.ValidString(errs[0]) {
		return false
	}
	for _, r := range errs[0] {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}
