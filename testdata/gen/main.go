// Command gen writes the models the project generates for itself (run
// from the repository root: go run ./testdata/gen). By default it rewrites
// the committed samples in testdata/models; the output is deterministic,
// and a test checks the committed files match. -all also writes the larger
// generated models the checks use (not committed): the Deep Speech-style
// unrolled LSTM, a transformer encoder in primitive ops and an
// Inception-like multi-branch net. -suite writes the host-calibration
// suite instead (wolong calibrate --host generates the same models).
// -mlp HIDDENxLAYERS writes only an MLP of that size (hidden 8192, 4
// layers: 1 GiB of float32 weights) for the memory benchmarks, its weights
// inline (streamed from a sparse scratch file) or, with -external, in a
// sparse external-data file beside it that takes almost no disk whatever
// its size. -wide N writes only wide_N.onnx, modelgen.Wide's graph of
// about N nodes (bench/speed.sh times the pipeline on 100k and 1M).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/llm"
)

func main() {
	out := flag.String("o", "testdata/models", "output folder")
	all := flag.Bool("all", false, "also write the large generated models (LSTM 50x4x1024, transformer, Inception-like)")
	suite := flag.Bool("suite", false, "write only the host-calibration suite (what wolong calibrate --host measures)")
	mlp := flag.String("mlp", "", "write only an MLP of `HIDDENxLAYERS` (e.g. 8192x4: 1 GiB of weights)")
	external := flag.Bool("external", false, "with -mlp: keep the weights in a sparse external-data file")
	llm := flag.String("llm", "", "write only a decoder transformer of the architecture `PRESET` (gpt3-175b, llama3-405b, mixtral-8x7b, ...: wolong profile --llm's names) or of a JSON config FILE.json (wolong profile --llm's fields), its weights in a sparse external-data file")
	seq := flag.Int("seq", 0, "with -llm: the sequence length (default: the architecture's)")
	wide := flag.Int("wide", 0, "write only wide_`N`.onnx, a generated graph of about N nodes (benchmarks)")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if *llm != "" {
		if err := writeLLM(*out, *llm, *seq); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if *wide != 0 {
		if err := writeWide(*out, *wide); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if *mlp != "" {
		if err := writeMLP(*out, *mlp, *external); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	models := modelgen.Samples()
	if *suite {
		models = map[string]*ir.Model{}
		for _, s := range modelgen.CalibrationSuite() {
			models[s.Name+".onnx"] = s.Model
		}
	}
	if *all {
		models["lstm_deepspeech_50x4x1024.onnx"] = modelgen.LSTM(50, 4, 1024, 1024)
		models["transformer_2layer.onnx"] = modelgen.Transformer(2, 1, 128, 256, 4, 1024)
		models["inception_2block.onnx"] = modelgen.Inception(2, 28)
	}
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(*out, name)
		if err := write(models[name], p); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", p)
	}
}

func write(m *ir.Model, path string) error { return importer.WriteFile(m, path) }

// writeWide writes wide_N.onnx: modelgen.Wide(n), for n in [1, 10M]
// (beyond that the model would not fit the 2 GiB protobuf limit).
func writeWide(out string, n int) error {
	if n < 1 || n > 10_000_000 {
		return fmt.Errorf("-wide %d: want a node count in [1, 10000000]", n)
	}
	path := filepath.Join(out, fmt.Sprintf("wide_%d.onnx", n))
	if err := write(modelgen.Wide(n), path); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	return nil
}

// writeMLP writes mlp_HIDDENxLAYERS.onnx (and .onnx.data with external).
func writeMLP(out, spec string, external bool) error {
	var hidden int64
	var layers int
	if _, err := fmt.Sscanf(spec, "%dx%d", &hidden, &layers); err != nil || fmt.Sprintf("%dx%d", hidden, layers) != spec {
		return fmt.Errorf("-mlp %q: want HIDDENxLAYERS, e.g. 8192x4", spec)
	}
	path := filepath.Join(out, "mlp_"+spec+".onnx")
	data := path + ".data"
	if !external {
		data = filepath.Join(out, ".mlp_"+spec+".scratch")
		defer os.Remove(data)
	}
	m, err := modelgen.MLPSparse(hidden, layers, data)
	if err != nil {
		return err
	}
	defer m.Close()
	opt := importer.WriteOptions{}
	if external {
		opt.External = importer.ExternalAlways
	}
	if _, err := importer.WriteFileWith(m, path, opt); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	return nil
}

// writeLLM writes NAME.onnx (the preset's or the config's name) with its
// weights in NAME.onnx.data, a sparse file (a 405B model declares 810 GB
// and takes a few MB of disk), referenced in place.
func writeLLM(out, preset string, seq int) error {
	t, err := llm.Architecture(preset)
	if err != nil {
		return err
	}
	name := strings.Map(func(r rune) rune { // a config's name names a file in out, never a path
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, strings.TrimLeft(t.Name, "."))
	path := filepath.Join(out, name+".onnx")
	m, err := modelgen.LLM(modelgen.Decoder(*t), path+".data", modelgen.LLMOptions{Seq: seq})
	if err != nil {
		return err
	}
	defer m.Close()
	if _, err := importer.WriteFileWith(m, path, importer.WriteOptions{External: importer.ExternalAlways}); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	return nil
}
