package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

var updateHTML = flag.Bool("update", false, "rewrite the golden files under testdata/ (the explain page's data)")

// lastSim predicts with the simulator and keeps the last result (the
// optimized model's, as cmd's predictor does).
type lastSim struct {
	h    *hw.Hardware
	last *simulate.Result
}

func (p *lastSim) Predict(m *ir.Model) (optimize.Prediction, error) {
	r, err := simulate.Run(m, p.h, simulate.Options{Streams: 2})
	if err != nil {
		return optimize.Prediction{}, err
	}
	p.last = r
	return optimize.Prediction{Nodes: len(m.Graph.Nodes), Kernels: r.Kernels, TotalMs: r.TotalS * 1e3}, nil
}

// htmlReportOf optimizes m at level with the recorder on and gathers the
// page's data as explain --html does.
func htmlReportOf(t *testing.T, name string, m *ir.Model, level int) *HTMLReport {
	t.Helper()
	h, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	ir.InferModel(m, ir.InferOptions{Dims: map[string]int64{"N": 1}}) // the sample CNN's batch
	pred := &lastSim{h: h}
	rec := NewPassRecorder()
	res, err := optimize.Run(m, optimize.Options{Level: level, VerifyEach: true, Refusals: true, Predictor: pred, Dumps: []optimize.Dump{{KeepUnchanged: true, To: rec}}})
	if err != nil {
		t.Fatal(err)
	}
	return NewHTMLReport(name, h.Name, res, rec, pred.last, []string{"an import warning"})
}

// TestHTMLData checks the page data's invariants on generated models and
// the sample CNN's data against its golden file (-update rewrites it).
func TestHTMLData(t *testing.T) {
	for _, tc := range []struct {
		name   string
		m      *ir.Model
		level  int
		golden string
	}{
		{"sample_cnn", modelgen.SampleCNN(), 3, "html_sample_cnn.json"},
		{"transformer", modelgen.Transformer(2, 1, 16, 64, 4, 128), 3, ""},
		{"O0", modelgen.SampleCNN(), 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := htmlReportOf(t, tc.name+".onnx", tc.m, tc.level)
			if len(e.Passes) == 0 || e.Passes[0].Name != "input" || e.Passes[0].Nodes == nil {
				t.Fatalf("first column is not the input with its nodes: %+v", e.Passes[:min(1, len(e.Passes))])
			}
			cur := e.Passes[0].Nodes
			for _, p := range e.Passes {
				if p.Changed != (p.Nodes != nil) {
					t.Errorf("%s: changed %v but %d nodes listed", p.Name, p.Changed, len(p.Nodes))
				}
				if p.Nodes != nil {
					cur = p.Nodes
				}
				if len(cur) != p.After.Nodes {
					t.Errorf("%s: %d nodes listed after it, the prediction counts %d", p.Name, len(cur), p.After.Nodes)
				}
				for _, id := range cur {
					if id < 0 || id >= len(e.Nodes) {
						t.Fatalf("%s: node id %d outside the table of %d", p.Name, id, len(e.Nodes))
					}
				}
			}
			if e.Timeline == nil || len(e.Timeline.Tasks) == 0 || len(e.Timeline.Tracks) != 3 {
				t.Errorf("timeline: %+v, want tasks on host + 2 streams", e.Timeline)
			}
			if len(e.Costs) == 0 || len(e.Ops) == 0 {
				t.Errorf("%d cost rows, %d op rows", len(e.Costs), len(e.Ops))
			}
			if tc.level > 0 {
				fused := 0
				for _, id := range cur {
					if len(e.Nodes[id][4].([]string)) > 0 {
						fused++
					}
				}
				if fused == 0 {
					t.Errorf("no fused group in the optimized model's node list")
				}
			}
			if tc.golden == "" {
				return
			}
			var buf bytes.Buffer
			if err := WriteHTMLData(&buf, e); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("testdata", tc.golden)
			if *updateHTML {
				if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("page data differs from %s (run with -update if the change is meant):\n%s", file,
					UnifiedDiff(string(want), buf.String(), "golden", "have"))
			}
		})
	}
}

// TestWriteHTML checks the page embeds its data once, readable back, even
// when the model's name would end the script block, and that it needs
// nothing from the network.
func TestWriteHTML(t *testing.T) {
	name := `x</script><script>alert(1)</script>.onnx`
	e := htmlReportOf(t, name, modelgen.SampleCNN(), 2)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, e); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	const open = `<script type="application/json" id="data">`
	if n := strings.Count(page, open); n != 1 {
		t.Fatalf("%d data blocks, want 1", n)
	}
	data := page[strings.Index(page, open)+len(open):]
	data = data[:strings.Index(data, "</script>")]
	var back HTMLReport
	if err := json.Unmarshal([]byte(data), &back); err != nil {
		t.Fatalf("data block does not parse: %v", err)
	}
	if back.Model != name || len(back.Passes) != len(e.Passes) {
		t.Errorf("data read back: model %q, %d passes; want %q, %d", back.Model, len(back.Passes), name, len(e.Passes))
	}
	for _, bad := range []string{"<!--@", "http://", "https://", "<alert"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if !strings.Contains(page, "<title>wolong explain: x&lt;/script&gt;") {
		t.Errorf("title not escaped")
	}
}

func TestFillSlots(t *testing.T) {
	parts := map[string][]byte{"A": []byte("<!--@B-->"), "B": []byte("b")}
	for _, tc := range []struct {
		page, want, err string
	}{
		{"x<!--@A-->y<!--@B-->z", "x<!--@B-->yb" + "z", ""},
		{"no slots", "no slots", ""},
		{"<!--@C-->", "", `unknown slot "C"`},
		{"<!--@A", "", "unterminated"},
	} {
		var buf bytes.Buffer
		err := fillSlots(&buf, []byte(tc.page), parts)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want %q", tc.page, err, tc.err)
		case tc.err == "" && (err != nil || buf.String() != tc.want):
			t.Errorf("%q: have %q, %v; want %q", tc.page, buf.String(), err, tc.want)
		}
	}
}

// TestPassRecorderInterns: an unchanged graph recorded twice shares its
// table entries, and a changed node gets a new one.
func TestPassRecorderInterns(t *testing.T) {
	m := modelgen.SampleCNN()
	rec := NewPassRecorder()
	rec.Record("input", m)
	n := len(rec.nodes)
	rec.Record("same", m)
	if len(rec.nodes) != n || !slices.Equal(rec.snaps[0].ids, rec.snaps[1].ids) {
		t.Fatalf("unchanged graph: %d -> %d entries", n, len(rec.nodes))
	}
	m.Graph.Nodes[0].Name = "renamed"
	rec.Record("renamed", m)
	if len(rec.nodes) != n+1 {
		t.Errorf("one renamed node: %d -> %d entries, want %d", n, len(rec.nodes), n+1)
	}
	if a, r := listDelta(rec.snaps[1].ids, rec.snaps[2].ids); a != 1 || r != 1 {
		t.Errorf("delta %d added, %d removed; want 1, 1", a, r)
	}
	if rec.snap(1, "other") != nil || rec.snap(9, "same") != nil {
		t.Errorf("snap of a pass not recorded there is not nil")
	}
}

// TestHTMLSelect: --pass marks the focus, --diff puts each pass's diff on
// its column, cut at a line end past maxPageDiff with a note.
func TestHTMLSelect(t *testing.T) {
	e := htmlReportOf(t, "sample_cnn.onnx", modelgen.SampleCNN(), 3)
	big := strings.Repeat("+%1 = Relu(%0)\n", maxPageDiff/14+10)
	e.Select("cse", map[string]string{"fuse": "-a\n+b\n", "cse": big})
	if e.Focus != "cse" {
		t.Errorf("focus %q, want cse", e.Focus)
	}
	seen := 0
	for _, p := range e.Passes {
		switch p.Name {
		case "fuse":
			seen++
			if p.Diff != "-a\n+b\n" {
				t.Errorf("fuse diff %q", p.Diff)
			}
		case "cse":
			seen++
			if len(p.Diff) > maxPageDiff+200 || !strings.HasSuffix(p.Diff, "explain --diff prints it whole)\n") || !strings.HasPrefix(p.Diff, "+%1 = Relu(%0)\n") {
				t.Errorf("cse diff not cut: %d bytes, ends %q", len(p.Diff), p.Diff[max(0, len(p.Diff)-80):])
			}
		default:
			if p.Diff != "" {
				t.Errorf("%s has a diff: %q", p.Name, p.Diff)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d of the fuse and cse columns found, want both", seen)
	}
}
