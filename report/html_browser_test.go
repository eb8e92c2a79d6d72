package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wolong-dev/wolong/internal/modelgen"
)

// chromiumPath finds a headless-capable chromium (scripts/ensure-chromium.sh
// installs Debian's when it can) or skips the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("short mode: the browser test starts chromium")
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not found: run scripts/ensure-chromium.sh (needs root and apt-get) to test the explain page in a browser")
	return ""
}

// runChromium runs chromium headless on the page with args, returning
// stdout and stderr.
func runChromium(t *testing.T, bin, page string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--window-size=1400,1000"}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// TestHTMLInBrowser opens the explain page of a generated transformer in
// headless chromium: it must load without errors (the page's own
// collector and the browser's console log), draw one column per pass, the
// timeline canvas and the cost rows, and take a screenshot.
func TestHTMLInBrowser(t *testing.T) {
	bin := chromiumPath(t)
	// 40 layers: about 2,000 nodes, enough that a page drawing every row
	// of every column would hold tens of thousands of DOM elements.
	e := htmlReportOf(t, "transformer.onnx", modelgen.Transformer(40, 1, 16, 64, 4, 128), 3)
	if n := e.Passes[0].After.Nodes; n < 1500 {
		t.Fatalf("%d nodes, want a model of at least 1500", n)
	}
	w := e.sim.Why()
	e.SetWhy(w, w, e.sim.Hardware)
	if len(e.Missed) == 0 {
		e.Missed = []Missed{{Pass: "fuse", Code: "refuse-outside-reader", Reason: "planted for the page test", GainMs: 0.01}}
	}
	page := filepath.Join(t.TempDir(), "report.html")
	var buf bytes.Buffer
	if err := WriteHTML(&buf, e); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, log := runChromium(t, bin, page, "--virtual-time-budget=5000", "--dump-dom")
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "CONSOLE") && (strings.Contains(line, "Uncaught") || strings.Contains(line, "rror")) {
			t.Errorf("browser console: %s", line)
		}
	}
	if m := regexp.MustCompile(`<div id="errors">([^<]*)</div>`).FindStringSubmatch(dom); m == nil || m[1] != "" {
		t.Errorf("page errors: %v", m)
	}
	if m := regexp.MustCompile(`<span id="status"[^>]*>ready in \d+ ms \((\d+) DOM elements\)</span>`).FindStringSubmatch(dom); m == nil {
		t.Errorf("page did not finish drawing:\n%.2000s", dom)
	} else if n, _ := strconv.Atoi(m[1]); n > 8000 {
		t.Errorf("%d DOM elements: the lists are not virtualized", n)
	}
	if n := strings.Count(dom, `class="col pass`); n != len(e.Passes) {
		t.Errorf("%d pass columns, want %d", n, len(e.Passes))
	}
	for _, want := range []string{`<canvas id="tl" width="`, `<canvas id="gr" width="`, `class="row new"`, `class="tr"`,
		`<canvas id="roof" width="`, `class="causebar"`, `class="seg"`, `>refuse-`} {
		if !strings.Contains(dom, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	shot := filepath.Join(t.TempDir(), "explain.png")
	runChromium(t, bin, page, "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 10_000 {
		t.Errorf("screenshot: %d bytes, %v", len(png), err)
	}
}

// TestHTMLFocusInBrowser opens a page made with explain --pass fuse
// --diff: the fuse column is open and marked, every other pass column
// collapsed, and fuse's diff is on the page with its lines coloured.
func TestHTMLFocusInBrowser(t *testing.T) {
	bin := chromiumPath(t)
	e := htmlReportOf(t, "sample_cnn.onnx", modelgen.SampleCNN(), 3)
	e.Select("fuse", map[string]string{"fuse": "--- before fuse\n+++ after fuse\n@@ -1,2 +1,1 @@\n-%1 = Conv(%0)\n-%2 = Relu(%1)\n+%2 = wolong:Fused(%0)\n"})
	page := filepath.Join(t.TempDir(), "focus.html")
	var buf bytes.Buffer
	if err := WriteHTML(&buf, e); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := runChromium(t, bin, page, "--virtual-time-budget=5000", "--dump-dom")
	if m := regexp.MustCompile(`<div id="errors">([^<]*)</div>`).FindStringSubmatch(dom); m == nil || m[1] != "" {
		t.Errorf("page errors: %v", m)
	}
	if n := strings.Count(dom, `class="col pass focus" data-pass="fuse"`); n != 1 {
		t.Errorf("%d open, marked fuse columns, want 1", n)
	}
	if n, want := strings.Count(dom, `class="col pass collapsed"`), len(e.Passes)-2; n != want {
		t.Errorf("%d collapsed columns, want %d (every pass but fuse; the input stays open)", n, want)
	}
	for _, want := range []string{`<details class="diff">`, `<span class="add">+%2 = wolong:Fused(%0)`, `<span class="del">-%1 = Conv(%0)`} {
		if !strings.Contains(dom, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}
