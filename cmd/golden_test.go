package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
)

// floatRE matches the decimal and exponent numbers of JSON and text outputs.
var floatRE = regexp.MustCompile(`-?\d+\.\d+(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+`)

// normalizeOutput makes an output comparable across machines and runs:
// every non-integer number is rounded to 6 significant digits (the last
// bits of a predicted time may differ where the compiler fuses
// multiply-adds), and the test's temporary folder is written $DIR.
func normalizeOutput(s, dir string) string {
	if dir != "" {
		s = strings.ReplaceAll(s, dir, "$DIR")
	}
	return floatRE.ReplaceAllStringFunc(s, func(f string) string {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return f
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	})
}

// dirNames returns the names of the files in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// readFiles returns the files of dir, each under a "== name" line, in name
// order: one golden file for the files a command writes into a folder.
func readFiles(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range dirNames(t, dir) {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("== " + n + "\n")
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestGoldenOutputs compares the text outputs the table tests do not
// cover (JSON of inspect, profile, optimize and explain, the IR text, the
// Chrome trace, the DOT and IR dumps) with golden files under
// testdata/golden, on the committed sample CNN and on small generated
// models (an LSTM, a transformer block, a Scan loop). go test ./cmd -run
// Golden -update rewrites them. Outputs go through normalizeOutput.
func TestGoldenOutputs(t *testing.T) {
	const cnn = "../testdata/models/sample_cnn.onnx"
	dir := t.TempDir()
	lstm := writeGen(t, dir, "lstm.onnx", modelgen.LSTM(3, 1, 4, 8))
	tfm := writeGen(t, dir, "transformer.onnx", modelgen.Transformer(1, 1, 4, 8, 2, 16))
	loop := writeGen(t, dir, "loop.onnx", modelgen.ScanLoop(3, 2))
	if err := os.Mkdir(filepath.Join(dir, "trace"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		golden string
		args   []string
		files  string // a folder the command writes into, compared instead of stdout
	}{
		{"inspect_cnn.json", []string{"inspect", cnn, "--format", "json"}, ""},
		{"inspect_cnn_ir.txt", []string{"inspect", cnn, "--ir"}, ""},
		{"inspect_lstm.json", []string{"inspect", lstm, "--format", "json"}, ""},
		{"inspect_loop_ir.txt", []string{"inspect", loop, "--ir"}, ""},
		{"profile_cnn.json", []string{"profile", cnn, "--dim", "N=1", "--format", "json"}, ""},
		{"profile_lstm.txt", []string{"profile", lstm}, ""},
		{"profile_cnn_trace.json", []string{"profile", cnn, "--dim", "N=1", "--trace", "$DIR/trace/cnn.json"}, "trace"},
		{"optimize_cnn.json", []string{"optimize", cnn, "--dim", "N=1", "--format", "json"}, ""},
		{"optimize_transformer.txt", []string{"optimize", tfm}, ""},
		{"explain_cnn.txt", []string{"explain", cnn, "--dim", "N=1"}, ""},
		{"explain_cnn.json", []string{"explain", cnn, "--dim", "N=1", "--format", "json"}, ""},
		{"explain_transformer.txt", []string{"explain", tfm}, ""},
		{"explain_cnn_dot.txt", []string{"explain", cnn, "--dim", "N=1", "--pass", "fuse", "--dot", "$DIR/dot"}, "dot"},
		{"profile_llm_train.txt", []string{"profile", "--llm", "gpt3-1.3b", "--cluster", "1x8", "--hw", "a100", "--tp", "2", "--pp", "2", "--sp", "--global-batch", "16"}, ""},
		{"profile_llm_auto.txt", []string{"profile", "--llm", "llama2-7b", "--cluster", "2x8", "--hw", "h100", "--strategy", "auto", "--global-batch", "64"}, ""},
		{"optimize_llm_plan.txt", []string{"optimize", "--llm", "gpt3-1.3b", "--cluster", "2x8", "--hw", "a100", "--tp", "2", "--pp", "4", "--vp", "2", "--sp", "--zero", "1", "--global-batch", "64"}, ""},
		{"profile_llm_serve.txt", []string{"profile", "--llm", "llama3-8b", "--cluster", "1x8", "--hw", "h100", "--serve", "--static", "--tp", "2", "--batch", "8", "--prompt", "512", "--output", "128"}, ""},
		{"profile_llm_serve_requests.txt", []string{"profile", "--llm", "llama3-8b", "--cluster", "1x8", "--hw", "h100", "--serve", "--dtype", "fp8", "--tp", "2", "--requests", "200", "--rate", "50",
			"--prompt", "512", "--output", "128", "--length-dist", "uniform", "--slo", "ttft=200,tpot=20"}, ""},
		{"explain_cnn_dump.txt", []string{"explain", cnn, "--dim", "N=1", "--dump-dir", "$DIR/dump", "--dump-after", "bnfold"}, "dump"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "$DIR", dir)
			}
			out, stderr, code := run(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if tc.files != "" {
				out = readFiles(t, filepath.Join(dir, tc.files))
			}
			golden(t, tc.golden, normalizeOutput(out, dir))
		})
	}
}

// TestNormalizeOutput: numbers are rounded, integers and words kept.
func TestNormalizeOutput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"total_ms": 0.2972907476733976,`, `"total_ms": 0.297291,`},
		{`"dur":14.999999999999998,"pid":0`, `"dur":15,"pid":0`},
		{`1.5e-07 and 3E+09`, `1.5e-07 and 3e+09`},
		{`N=1 conv_2 [1,3,32,32] 10218`, `N=1 conv_2 [1,3,32,32] 10218`},
		{`/tmp/x/lstm.onnx: -0.12345678`, `$DIR/lstm.onnx: -0.123457`},
	} {
		if got := normalizeOutput(tc.in, "/tmp/x"); got != tc.want {
			t.Errorf("normalizeOutput(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
