package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wolong-dev/wolong/importer"
)

const progressSample = "../testdata/models/sample_cnn.onnx"

// runTerminal runs wolong like Main but with a progress line on, as if
// stderr were a terminal.
func runTerminal(args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	env := &Env{Out: &out, Err: &errb, ErrIsTerminal: true, Progress: &progress{w: &errb, on: true}}
	root := NewRootCmd(env)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errb.String(), err
}

var (
	passLine = regexp.MustCompile(`\r\x1b\[K(--emit-onnx: )?pass (\d+)/(\d+): [a-z][a-z_]* \(\d{1,3}(,\d{3})* nodes\)`)
	nodeLine = regexp.MustCompile(`\r\x1b\[K([^\r]*: )?evaluating node (\d+)/(\d+): [A-Za-z.:]+`)
)

// TestCommandProgress runs the long commands twice: with a non-terminal
// stderr they print no progress at all, and with a fake terminal they
// show the pass or node lines (positions within 1..total, the total the
// model's node count for evaluation), clear the line at the end, and
// print exactly the same stdout.
func TestCommandProgress(t *testing.T) {
	m, err := importer.Load(progressSample, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nodes := len(m.Graph.Nodes)
	m.Close()
	dir := t.TempDir()
	copyB := filepath.Join(dir, "b_copy.onnx")
	data, err := os.ReadFile(progressSample)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyB, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		line  *regexp.Regexp
		total int // expected total of every line, 0: any
		runs  int // distinct prefixes expected (models evaluated, or pipelines)
	}{
		{"optimize", []string{"optimize", progressSample, "--dim", "N=1"}, passLine, 0, 1},
		{"optimize emit", []string{"optimize", progressSample, "--dim", "N=1", "--emit-onnx", filepath.Join(dir, "opt.onnx")}, passLine, 0, 2},
		{"explain", []string{"explain", progressSample, "--dim", "N=1", "-O2"}, passLine, 0, 1},
		{"run", []string{"run", progressSample, "--dim", "N=1", "-o", filepath.Join(dir, "out")}, nodeLine, nodes, 1},
		{"verify", []string{"verify", progressSample, copyB, "--dim", "N=1"}, nodeLine, nodes, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := run(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if strings.ContainsAny(errs, "\r\x1b") {
				t.Fatalf("non-terminal stderr has progress: %q", errs)
			}
			tout, terrs, err := runTerminal(tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if tout != out {
				t.Errorf("stdout changed with progress on:\n%s\nwithout:\n%s", tout, out)
			}
			ms := tc.line.FindAllStringSubmatch(terrs, -1)
			if len(ms) == 0 {
				t.Fatalf("no progress line matching %s in %q", tc.line, terrs)
			}
			prefixes := map[string]bool{}
			last, total := map[string]int{}, map[string]int{}
			for _, mt := range ms {
				i, _ := strconv.Atoi(mt[2])
				n, _ := strconv.Atoi(mt[3])
				if i < 1 || i > n || (tc.total > 0 && n != tc.total) {
					t.Errorf("line %q: position or total out of range (want total %d)", mt[0], tc.total)
				}
				if i <= last[mt[1]] {
					t.Errorf("line %q: position did not increase", mt[0])
				}
				last[mt[1]], total[mt[1]] = i, n
				prefixes[mt[1]] = true
			}
			if tc.line == passLine {
				// Every pass is shown, so each pipeline ends on pass n/n.
				for pre, i := range last {
					if i != total[pre] {
						t.Errorf("pipeline %q: last pass shown %d/%d", pre, i, total[pre])
					}
				}
			}
			if len(prefixes) != tc.runs {
				t.Errorf("%d distinct progress prefixes %v, want %d", len(prefixes), prefixes, tc.runs)
			}
			// The line is cleared after the work: the last progress line is
			// followed by a clear, and anything printed after starts clean.
			lastLine := ms[len(ms)-1][0]
			rest := terrs[strings.LastIndex(terrs, lastLine)+len(lastLine):]
			if !strings.HasPrefix(rest, "\r\x1b[K") {
				t.Errorf("progress line not cleared: after it comes %q", rest)
			}
			if tc.name == "verify" && (!prefixes["sample_cnn.onnx: "] || !prefixes["b_copy.onnx: "]) {
				t.Errorf("verify does not name the model evaluated: %q", terrs)
			}
		})
	}
}

// TestNodeHookThrottle feeds the node callback a fake clock: it prints
// the first call after Done, then at most once per progressInterval.
func TestNodeHookThrottle(t *testing.T) {
	tests := []struct {
		name  string
		step  time.Duration // clock advance per call
		calls int
		want  int // lines printed
	}{
		{"stopped clock", 0, 1000, 1},
		{"1ms per node", time.Millisecond, 1000, 10},
		{"slow nodes", 250 * time.Millisecond, 6, 6},
		{"just under", progressInterval - 1, 4, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			p := &progress{w: &buf, on: true, now: func() time.Time { return now }}
			hook := p.nodeHook("")
			for i := 1; i <= tc.calls; i++ {
				hook(i, tc.calls, nil)
				now = now.Add(tc.step)
			}
			if got := strings.Count(buf.String(), "evaluating node"); got != tc.want {
				t.Errorf("%d lines printed, want %d: %q", got, tc.want, buf.String())
			}
			if !strings.HasPrefix(buf.String(), fmt.Sprintf("\r\x1b[Kevaluating node 1/%s: ?", groupDigits(tc.calls))) {
				t.Errorf("first line %q", buf.String())
			}
			// After Done the next call prints at once.
			p.Done()
			buf.Reset()
			hook(1, 1, nil)
			if !strings.Contains(buf.String(), "evaluating node 1/1") {
				t.Errorf("after Done: %q", buf.String())
			}
		})
	}
}

// TestProgressHooksSilent checks that a silent progress hands the
// optimizer and evaluator no callback (so they pay nothing).
func TestProgressHooksSilent(t *testing.T) {
	for _, p := range []*progress{nil, {w: &bytes.Buffer{}, on: false}} {
		if p.passHook("") != nil || p.nodeHook("") != nil {
			t.Errorf("silent progress %+v returned a hook", p)
		}
	}
	var buf bytes.Buffer
	on := &progress{w: &buf, on: true}
	if on.passHook("") == nil || on.nodeHook("") == nil {
		t.Fatal("progress on returned no hook")
	}
	on.passHook("x: ")(5, 18, "fuse", nil)
	if want := "\r\x1b[Kx: pass 5/18: fuse (0 nodes)"; buf.String() != want {
		t.Errorf("pass line %q, want %q", buf.String(), want)
	}
}

func TestGroupDigits(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12345, "12,345"},
		{123456, "123,456"}, {1234567, "1,234,567"}, {-1234, "-1,234"}, {-999, "-999"},
	} {
		if got := groupDigits(tc.n); got != tc.want {
			t.Errorf("groupDigits(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
