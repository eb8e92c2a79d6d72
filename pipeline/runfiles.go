package pipeline

// This file names the files `wolong run` writes: each output (and, with
// --save-inputs, each input fed) as NAME_N.pb in a folder, in the
// layout of ONNX's test data sets.

import (
	"fmt"
	"path/filepath"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/ir"
)

// PBFile is a tensor to write as a TensorProto file.
type PBFile struct {
	Path  string
	Name  string // the graph's input or output name, recorded in the file
	Value eval.Value
}

// Encode is the file's content.
func (f PBFile) Encode() ([]byte, error) { return eval.EncodeValue(f.Value, f.Name) }

// InputFiles are dir/input_N.pb for the inputs of g fed (constant inputs
// and those inputs lacks left out), numbered in graph order.
func InputFiles(g *ir.Graph, inputs map[string]eval.Value, dir string) []PBFile {
	var out []PBFile
	for _, in := range g.Inputs {
		v, ok := inputs[in.Name]
		if !ok || in.Const != nil {
			continue
		}
		out = append(out, PBFile{Path: filepath.Join(dir, fmt.Sprintf("input_%d.pb", len(out))), Name: in.Name, Value: v})
	}
	return out
}

// OutputFiles are dir/output_N.pb for the outputs of g, outs in the
// graph's order.
func OutputFiles(g *ir.Graph, outs []eval.Value, dir string) []PBFile {
	out := make([]PBFile, len(g.Outputs))
	for i, o := range g.Outputs {
		out[i] = PBFile{Path: filepath.Join(dir, fmt.Sprintf("output_%d.pb", i)), Name: o.Name, Value: outs[i]}
	}
	return out
}
