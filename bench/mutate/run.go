package main

// This file runs one wolong command on a variant: with a wall-clock limit,
// its peak resident memory taken from the child's rusage (and a watchdog
// that kills it well past the limit, so a runaway cannot take the machine),
// and its outcome classified from the exit status and stderr.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
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
// The run goes through this program's own -exec-wrapper (see wrapMain):
// Linux starts a child's peak RSS (ru_maxrss) at its parent's peak, so
// the sweep, which holds the seed models, cannot measure its children
// directly; the wrapper is a fresh process of a few MiB.
func execute(bin string, args []string, dir string, lim limits) result {
	res := result{Args: args, Exit: -1}
	self, err := os.Executable()
	if err != nil {
		res.Outcome, res.Stderr = outGarbled, "executable: "+err.Error()
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), lim.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, append([]string{wrapFlag, strconv.FormatInt(lim.killRSS, 10), bin}, args...)...)
	cmd.Dir = dir
	killTogether(cmd) // the wrapper and wolong
	stderr := &cappedBuffer{n: lim.stderrCp}
	var report bytes.Buffer
	cmd.Stderr, cmd.Stdout = stderr, &report
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err = cmd.Run()
	res.Seconds = time.Since(start).Seconds()
	res.Stderr = stderr.String()
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
	var w wrapped
	if jerr := json.Unmarshal(report.Bytes(), &w); jerr != nil && !timedOut {
		res.Outcome = outGarbled
		res.Stderr += fmt.Sprintf("(wrapper: %v, %v)", err, jerr)
		return res
	}
	res.Exit, res.MaxRSS = w.Exit, w.MaxRSS
	res.Outcome = classify(res.Exit, res.Stderr, timedOut, w.KilledMem || res.MaxRSS > lim.maxRSS)
	return res
}

// wrapFlag, as the first argument, makes this program the wrapper.
const wrapFlag = "-exec-wrapper"

// wrapped is the wrapper's report on its stdout.
type wrapped struct {
	Exit      int   `json:"exit"`       // -1 when killed by a signal
	MaxRSS    int64 `json:"max_rss"`    // bytes
	KilledMem bool  `json:"killed_mem"` // the watchdog killed it
}

// wrapMain is the wrapper: args are the kill threshold in bytes, the
// binary and its arguments. It runs the binary with stdout discarded and
// stderr passed through, kills it past the threshold, and prints its exit
// status and peak RSS as JSON.
func wrapMain(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "mutate: -exec-wrapper KILL_BYTES BIN ARGS...")
		return 2
	}
	kill, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "mutate: start:", err)
		return 2
	}
	killed := make(chan bool, 1)
	done := make(chan struct{})
	go watch(cmd.Process, kill, done, killed)
	cmd.Wait() // the exit status is read from ProcessState
	close(done)
	w := wrapped{Exit: cmd.ProcessState.ExitCode(), KilledMem: <-killed}
	w.MaxRSS = maxRSS(cmd.ProcessState)
	json.NewEncoder(os.Stdout).Encode(w)
	return 0
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
