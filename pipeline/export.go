package pipeline

// This file writes an optimized model as an ONNX file: the graph valid
// for every input size, and the prediction of what was written.

import (
	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
)

// Exportable returns the optimized model to write as a file for o, which
// Optimize made with opt: o itself when its shapes were not specialized
// and no cluster was placed; else the loaded model inferred with no
// shape given and optimized with opt (less predictions, placement and
// dumps), since a graph folded and batched for fixed dims is valid only
// for them, and ONNX has no transfer op. The model is not read again.
// It reports whether it optimized anew.
func Exportable(o *Optimized, opt OptimizeOptions) (*Optimized, bool, error) {
	if !o.From.Specialized() && opt.Cluster == nil {
		return o, false, nil
	}
	g, err := InferGeneric(o.From.Loaded)
	if err != nil {
		return nil, false, err
	}
	opt.Predict, opt.Cluster, opt.Dumps, opt.Hash = false, nil, nil, false
	opt.InPlace = true // g is this call's own copy
	e, err := Optimize(g, opt)
	return e, true, err
}

// Respecialize returns a copy of o's model inferred as like was (its
// given and defaulted dims, its batch): what an exported model, which
// keeps its symbolic dims, runs as at those shapes. It is a second
// inference by design: of another graph than like's.
func Respecialize(o *Optimized, like *Inferred) (*Inferred, error) {
	m, err := ir.CloneModel(o.Model)
	if err != nil {
		return nil, err
	}
	io := copyOptions(like.Options)
	return &Inferred{Loaded: like.Loaded, Model: m, Result: ir.InferModel(m, io), Options: io, Batch: like.Batch, Defaulted: like.Defaulted}, nil
}

// Export writes a copy of o's model to path as standard ONNX (fused
// groups as model-local functions, see optimize.ToONNX, or ONNX
// Runtime's operators after -target ort) with w's external-data choice,
// refusing to write over the file it was loaded from. o is left as it
// was.
func Export(o *Optimized, path string, w importer.WriteOptions) (*importer.Written, error) {
	m, err := ir.CloneModel(o.Model)
	if err != nil {
		return nil, err
	}
	return exportModel(m, o, path, w)
}

// exportModel is Export of m, o's model or a copy of it, which it
// rewrites (ToONNX) in place.
func exportModel(m *ir.Model, o *Optimized, path string, w importer.WriteOptions) (*importer.Written, error) {
	if _, err := optimize.ToONNX(m); err != nil {
		return nil, err
	}
	return importer.WriteFileWith(m, path, w, o.From.Loaded.Path)
}
