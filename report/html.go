package report

// This file writes the `wolong explain --html` page: one self-contained
// HTML file (no network: the CSS and JS under report/html are embedded)
// in the manner of the Go compiler's GOSSAFUNC ssa.html. The Go side only
// gathers the data (HTMLReport, embedded once as JSON); the page draws the
// pass columns, the timeline, the cost tables and the fused-group graph
// itself, rendering only what is on screen so a 10k-node model stays
// light.

import (
	"bufio"
	"embed"
	"encoding/json"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate"
)

//go:embed html/page.html html/style.css html/app.js
var htmlFiles embed.FS

// HTMLReport is the data of the explain page.
type HTMLReport struct {
	OptHeader
	// Focus is the pass explain --pass named ("" for none): the page
	// opens on its column, the other passes collapsed.
	Focus    string   `json:"focus,omitempty"`
	Warnings []string `json:"warnings"`
	// Nodes is the interned node table the passes' lists index.
	Nodes  []HTMLNode `json:"nodes"`
	Passes []HTMLPass `json:"passes"`
	// Timeline and the cost tables are of the optimized model's
	// simulation (absent when there was none).
	Timeline *HTMLTimeline `json:"timeline,omitempty"`
	Ops      []ProfileOp   `json:"ops"`
	// Costs is one row per task: name, op, class, bound, kernels,
	// time_ms, flops, bytes, share.
	Costs [][]any `json:"costs"`
	// Roofline is the optimized model's kernels on the roofline
	// (html_why.go; absent without a simulation).
	Roofline *HTMLRoofline `json:"roofline,omitempty"`
	// BranchRange is the optimized prediction's range over the branches
	// of If nodes the inputs decide (absent when none).
	BranchRange *BranchRange     `json:"branch_range,omitempty"`
	sim         *simulate.Result // the simulation drawn (tests)
}

// HTMLPass is one column: the input model (name "input") or a pass.
type HTMLPass struct {
	PassDelta
	// Changed is whether the node list differs from the previous
	// column's; Nodes is present only then (and for the input).
	Changed bool  `json:"changed"`
	Nodes   []int `json:"nodes,omitempty"`
	Added   int   `json:"added"`
	Removed int   `json:"removed"`
	// Diff is the pass's unified diff of the IR text (explain --diff),
	// at most maxPageDiff bytes.
	Diff string `json:"diff,omitempty"`
}

// maxPageDiff bounds one pass's diff on the page: a pass rewriting a
// 100k-node model diffs to tens of MB, which no one reads in a browser
// (explain --diff prints it whole).
const maxPageDiff = 1 << 20

// Select applies explain's --pass (focus: the page opens on that pass's
// column) and --diff (diffs by pass name) to the page.
func (e *HTMLReport) Select(focus string, diffs map[string]string) {
	e.Focus = focus
	for i := range e.Passes {
		d := diffs[e.Passes[i].Name]
		if len(d) > maxPageDiff {
			cut := strings.LastIndexByte(d[:maxPageDiff], '\n') + 1
			d = d[:cut] + "... (diff cut at " + strconv.Itoa(maxPageDiff>>20) + " MB of " + strconv.Itoa(len(d)) + " bytes: explain --diff prints it whole)\n"
		}
		e.Passes[i].Diff = d
	}
}

// HTMLTimeline is a simulation's timeline: tracks (the host, then each
// stream) and one row per task: name, op, class, stream, issue start,
// issue end, start, end (microseconds).
type HTMLTimeline struct {
	TotalUS float64  `json:"total_us"`
	Tracks  []string `json:"tracks"`
	Tasks   [][]any  `json:"tasks"`
}

// NewHTMLReport gathers the page's data: res and the node lists rec kept
// (nil: columns without node lists), sim the optimized model's simulation
// (nil: no timeline nor cost tables), warnings those of the whole run.
func NewHTMLReport(path, hardware string, res *optimize.Result, rec *PassRecorder, sim *simulate.Result, warnings []string) *HTMLReport {
	e := &HTMLReport{OptHeader: newOptHeader(path, hardware, res), Warnings: append([]string{}, warnings...),
		Nodes: []HTMLNode{}, Ops: []ProfileOp{}, Costs: [][]any{}}
	if rec != nil {
		e.Nodes = append(e.Nodes, rec.nodes...)
	}
	if sim != nil {
		e.SetExpectedError(sim.Hardware)
	}
	prev := rec.snap(0, "input")
	e.Passes = append(e.Passes, HTMLPass{PassDelta: PassDelta{Name: "input", Rewrites: []string{}, Before: res.Baseline, After: res.Baseline},
		Changed: true, Nodes: prev})
	for i := range res.Passes {
		p := &res.Passes[i]
		hp := HTMLPass{PassDelta: newPassDelta(p)}
		if cur := rec.snap(i+1, p.Name); cur != nil {
			if !slices.Equal(prev, cur) {
				hp.Changed, hp.Nodes = true, cur
				hp.Added, hp.Removed = listDelta(prev, cur)
			}
			prev = cur
		}
		e.Passes = append(e.Passes, hp)
	}
	if sim != nil {
		e.addSimulation(path, sim)
	}
	return e
}

// addSimulation fills the timeline and the cost tables from sim.
func (e *HTMLReport) addSimulation(path string, sim *simulate.Result) {
	us := func(s float64) float64 { return round6(s * 1e6) }
	tl := &HTMLTimeline{TotalUS: us(sim.TotalS), Tracks: []string{"host: launch + dispatch"}, Tasks: [][]any{}}
	for s := range sim.Streams {
		tl.Tracks = append(tl.Tracks, "stream "+strconv.Itoa(s))
	}
	for _, t := range sim.Tasks {
		if t.Stream < 0 {
			continue // free: no kernel
		}
		tl.Tasks = append(tl.Tasks, []any{t.Name(), t.Op(), string(t.Est.Class), t.Stream,
			us(t.IssueStart), us(t.IssueEnd), us(t.Start), us(t.End)})
	}
	e.Timeline = tl
	e.Roofline, e.sim = newRoofline(sim), sim
	p := NewProfile(path, sim, nil)
	e.Ops, e.BranchRange = p.Ops, p.BranchRange
	for _, n := range p.Nodes {
		e.Costs = append(e.Costs, []any{n.Name, n.Op, n.Class, n.Bound, n.Kernels, round6(n.TimeMs), n.FLOPs, n.Bytes, round6(n.Share)})
	}
	for _, w := range sim.Warnings {
		if !slices.Contains(e.Warnings, w) { // the run's warnings may hold it already
			e.Warnings = append(e.Warnings, w)
		}
	}
}

// round6 keeps 6 significant decimals, enough for the page and
// shorter JSON.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// WriteHTMLData writes the page's data as indented JSON (the golden
// test's form).
func WriteHTMLData(w io.Writer, e *HTMLReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(e)
}

// WriteHTML writes the self-contained page: page.html with the embedded
// style and script and e as JSON in a <script type="application/json">
// block (json escapes <, > and &, so no "</script>" can end it early).
func WriteHTML(w io.Writer, e *HTMLReport) error {
	page, err := htmlFiles.ReadFile("html/page.html")
	if err != nil {
		return err
	}
	css, _ := htmlFiles.ReadFile("html/style.css")
	js, _ := htmlFiles.ReadFile("html/app.js")
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	parts := map[string][]byte{
		"TITLE": []byte(html.EscapeString("wolong explain: " + e.Model)),
		"STYLE": css, "DATA": data, "SCRIPT": js,
	}
	if err := fillSlots(bw, page, parts); err != nil {
		return err
	}
	return bw.Flush()
}
