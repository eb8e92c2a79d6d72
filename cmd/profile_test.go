package cmd

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// writeModel exports a one-node model (op over inputs of the given
// shapes) to an ONNX file.
func writeModel(t *testing.T, op string, dt ir.DType, shapes ...ir.Shape) string {
	t.Helper()
	g := ir.NewGraph("g")
	var ins []*ir.Value
	for i, s := range shapes {
		ins = append(ins, g.AddInput(string(rune('a'+i)), ir.TensorType(dt, s)))
	}
	n := g.AddNode(op, "", "node0", ins, []string{"y"})
	g.Outputs = n.Outputs
	m := &ir.Model{IRVersion: 8, Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	ir.InferModel(m, ir.InferOptions{})
	path := filepath.Join(t.TempDir(), op+".onnx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := importer.Export(m, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func wolong(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return out.String(), errb.String(), code
}

func profileJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errs, code := wolong(t, append([]string{"profile", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("wolong profile %v: exit %d: %s", args, code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("profile JSON: %v\n%s", err, out)
	}
	return doc
}

// Anchors measured on this workplace's H200 with PyTorch (wolong issue 3):
// bf16 8192^3 MatMul at 769-798 TFLOP/s, about 1.40 ms; device-to-device
// copy about 4.3 TB/s counting read + write. `profile --hw h200` must land
// within 10%.
func TestProfileAnchorsH200(t *testing.T) {
	mm := writeModel(t, "MatMul", ir.BFloat16, ir.ShapeOf(8192, 8192), ir.ShapeOf(8192, 8192))
	doc := profileJSON(t, mm, "--hw", "h200")
	if ms := doc["total_ms"].(float64); math.Abs(ms/1.40-1) > 0.10 {
		t.Errorf("8192^3 bf16 MatMul on h200: %.4f ms, want 1.40 ms +-10%%", ms)
	}
	t.Logf("MatMul: %.4f ms, %.0f TFLOP/s", doc["total_ms"], doc["achieved_tflops"])

	add := writeModel(t, "Add", ir.Float32, ir.ShapeOf(1<<30), ir.ShapeOf(1<<30))
	doc = profileJSON(t, add, "--hw", "h200")
	bytes := doc["bytes"].(float64)
	if bytes != 12*(1<<30) {
		t.Errorf("Add moved %g bytes, want 12 GiB (two 4 GiB reads, one 4 GiB write)", bytes)
	}
	tbs := bytes / (doc["total_ms"].(float64) * 1e-3) / 1e12
	if math.Abs(tbs/4.3-1) > 0.10 {
		t.Errorf("2^30 float32 Add on h200: %.2f TB/s, want 4.3 TB/s +-10%%", tbs)
	}
	t.Logf("Add: %.4f ms, %.2f TB/s", doc["total_ms"], tbs)
}

func TestProfileFlags(t *testing.T) {
	mm := writeModel(t, "MatMul", ir.Float32, ir.DimsShape(ir.S("N"), ir.D(256)), ir.ShapeOf(256, 256))
	// symbolic N defaults to 1, and says so
	doc := profileJSON(t, mm, "--hw", "a100")
	if f := doc["flops"].(float64); f != 2*256*256 {
		t.Errorf("N defaulted to 1: flops %g, want %d", f, 2*256*256)
	}
	if !strings.Contains(strings.Join(toStrings(doc["assumptions"]), "\n"), "N=1") {
		t.Errorf("assumptions do not state N=1: %v", doc["assumptions"])
	}
	// --dim and --batch
	if f := profileJSON(t, mm, "--hw", "a100", "--dim", "N=4")["flops"].(float64); f != 2*4*256*256 {
		t.Errorf("--dim N=4: flops %g", f)
	}
	if f := profileJSON(t, mm, "--hw", "a100", "--batch", "16")["flops"].(float64); f != 2*16*256*256 {
		t.Errorf("--batch 16: flops %g", f)
	}
	// --tf32 speeds float32 GEMM up on a100
	slow := profileJSON(t, mm, "--hw", "a100", "--batch", "8192")["total_ms"].(float64)
	fast := profileJSON(t, mm, "--hw", "a100", "--batch", "8192", "--tf32")["total_ms"].(float64)
	if !(fast < slow) {
		t.Errorf("--tf32 %g ms not faster than fp32 %g ms", fast, slow)
	}
	// train mode costs more than inference
	inf := profileJSON(t, mm, "--hw", "h100", "--batch", "64")
	tr := profileJSON(t, mm, "--hw", "h100", "--batch", "64", "--mode", "train")
	if !(tr["flops"].(float64) > inf["flops"].(float64)) || tr["mode"] != "train" {
		t.Errorf("train flops %v vs inference %v", tr["flops"], inf["flops"])
	}
	// a hardware file
	hwFile := filepath.Join(t.TempDir(), "mine.json")
	out, _, code := wolong(t, "hw", "show", "h100", "--format", "json")
	if code != 0 {
		t.Fatal("hw show failed")
	}
	os.WriteFile(hwFile, []byte(strings.Replace(out, `"name": "h100"`, `"name": "mine"`, 1)), 0o644)
	if doc := profileJSON(t, mm, "--hw", hwFile); doc["hardware"] != "mine" {
		t.Errorf("--hw file: hardware %v", doc["hardware"])
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestProfileTraceAndTable(t *testing.T) {
	mm := writeModel(t, "MatMul", ir.Float16, ir.ShapeOf(1024, 1024), ir.ShapeOf(1024, 1024))
	trace := filepath.Join(t.TempDir(), "trace.json")
	out, errs, code := wolong(t, "profile", mm, "--hw", "h100", "--trace", trace, "--by", "op")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Predicted step time", "Top 1 op type by", "MatMul", "Assumptions:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			Dur  float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.TraceEvents) < 3 {
		t.Fatalf("trace: %v, %d events", err, len(doc.TraceEvents))
	}
}

func TestProfileUsageErrors(t *testing.T) {
	mm := writeModel(t, "Relu", ir.Float32, ir.ShapeOf(4))
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"profile", mm, "--by", "layer"}, 2, "--by"},
		{[]string{"profile", mm, "--hw", "tpu"}, 2, "no preset"},
		{[]string{"profile", mm, "--mode", "serve"}, 2, "mode"},
		{[]string{"profile", mm, "--streams", "0"}, 2, "--streams"},
		{[]string{"profile", mm, "--dtype", "int8"}, 2, "--dtype"},
		{[]string{"profile", filepath.Join(t.TempDir(), "missing.onnx")}, 1, "missing.onnx"},
		{[]string{"hw", "show", "tpu"}, 2, "no preset"}, // a name, like --hw tpu: a usage error
	}
	for _, tc := range tests {
		_, errs, code := wolong(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

func TestHwCommands(t *testing.T) {
	out, _, code := wolong(t, "hw", "list")
	if code != 0 {
		t.Fatal("hw list failed")
	}
	for _, name := range []string{"v100", "a100", "h100", "h200", "cpu"} {
		if !strings.Contains(out, name) {
			t.Errorf("hw list lacks %s", name)
		}
	}
	out, _, code = wolong(t, "hw", "show", "cpu")
	if code != 0 || !strings.Contains(out, "Assumptions:") || !strings.Contains(out, "/proc/cpuinfo") {
		t.Errorf("hw show cpu: exit %d\n%s", code, out)
	}
}
