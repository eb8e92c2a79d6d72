// Command gemmstream writes the GEMM family that measures how a one-thread
// CPU runtime streams weights the cache does not keep (wolong issue 29;
// docs/calibration-protocol.md, "Weights past the cache"): one Gemm of a
// 2048x2048 float weight (16.8 MB) at 1-64 rows, and chains of 2-16 such
// Gemms (34-269 MB) at 1 and 20 rows, with a spec for the ORT harness
// (bench/ort/latency.sh --spec). None of these is in the calibration
// suite: the suite's own chains stop at 17 MB of weights (one row) and
// 9.4 MB (8-128 rows), so these are the check of how its fit carries to
// larger weights, not targets it was fitted on.
//
//	go run ./bench/gemmstream DIR     # DIR/gemmstream/*.onnx, DIR/spec.json
//
// bench/gemmstream.sh measures and predicts them.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

const k = 2048

type input struct {
	Name  string  `json:"name"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

type entry struct {
	Model  string  `json:"model"`
	Inputs []input `json:"inputs"`
	Seed   int     `json:"seed"`
	Out    string  `json:"out"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gemmstream DIR")
		os.Exit(2)
	}
	dir := filepath.Join(os.Args[1], "gemmstream") // the family, as validate names it
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gemmstream:", err)
		os.Exit(1)
	}
	type shape struct {
		rows   int64
		layers int
	}
	var shapes []shape
	for _, m := range []int64{1, 2, 4, 8, 12, 16, 20, 24, 32, 48, 64} {
		shapes = append(shapes, shape{m, 1})
	}
	for _, m := range []int64{1, 20} {
		for _, l := range []int{2, 4, 8, 16} {
			shapes = append(shapes, shape{m, l})
		}
	}
	var spec struct {
		Models []entry `json:"models"`
	}
	for _, s := range shapes {
		name := fmt.Sprintf("gemm_%dx%dx%d_x%d", s.rows, k, k, s.layers)
		b := modelgen.New(name, 17)
		h := b.Input("x", ir.Float32, int(s.rows), k)
		for i := 0; i < s.layers; i++ {
			h = b.Op("Gemm", []*ir.Value{h, b.Weight(fmt.Sprintf("w%d", i), k, k), b.Weight(fmt.Sprintf("b%d", i), k)}, modelgen.Int("transB", 1))
		}
		h.Name = "y"
		b.Output(h)
		path, err := filepath.Abs(filepath.Join(dir, name+".onnx"))
		if err == nil {
			err = importer.WriteFile(b.Model(), path)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gemmstream:", err)
			os.Exit(1)
		}
		spec.Models = append(spec.Models, entry{Model: path, Inputs: []input{{"x", "float32", []int64{s.rows, k}}}, Seed: 1, Out: "gemmstream__" + name + ".json"})
	}
	data, _ := json.MarshalIndent(spec, "", " ")
	if err := os.WriteFile(filepath.Join(os.Args[1], "spec.json"), append(data, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gemmstream:", err)
		os.Exit(1)
	}
}
