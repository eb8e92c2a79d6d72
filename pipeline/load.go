package pipeline

// This file implements the first stage: a model file read, verified and
// its given shapes checked, with no type inferred yet.

import (
	"fmt"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// LoadOptions are the shapes given to a model's inputs and how to report
// progress.
type LoadOptions struct {
	Dims   []GivenDim   // values of the inputs' symbolic dims
	Inputs []GivenInput // shapes of inputs
	// Force lets a given shape change dims the model declares as fixed
	// (the model analyzed at another image size).
	Force bool
	// Progress, when set, is told what loading and inference are doing
	// ("importing PATH"), for a progress line.
	Progress func(line string)
}

func (o LoadOptions) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}

// Loaded is a model read and verified, with the shapes given to its
// inputs checked against it. Its Model keeps the types the file declares:
// no stage infers or rewrites it (Infer and Optimize work on copies).
type Loaded struct {
	Path  string
	Model *ir.Model
	// Warnings are the importer's (unknown operators, ...), in order.
	Warnings []string
	// Given are the inference options the given shapes make: the given
	// dims and input shapes, plus the values given shapes give to
	// symbolic dims other inputs share.
	Given ir.InferOptions

	givenDims   []GivenDim   // the dims given, for messages
	givenInputs []GivenInput // the shapes given, for messages

	progress func(format string, args ...any)
}

// Close releases the model's file mappings (and with them every copy's
// weights).
func (l *Loaded) Close() { l.Model.Close() }

// Load imports path, verifies it and checks the given shapes against its
// inputs: a shape the model cannot take is a *ShapeError. Other errors
// name the file.
func Load(path string, opt LoadOptions) (*Loaded, error) {
	l := &Loaded{Path: path, progress: opt.progress}
	opt.progress("importing %s", path)
	m, err := importer.Load(path, importer.Options{Warn: func(s string) { l.Warnings = append(l.Warnings, s) }})
	if err != nil {
		return nil, err
	}
	opt.progress("verifying %s (%d nodes)", path, len(m.Graph.Nodes))
	if err := ir.Verify(m); err != nil {
		m.Close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	derived, err := checkShapes(m.Graph, opt.Dims, opt.Inputs, opt.Force)
	if err != nil {
		m.Close()
		return nil, err
	}
	l.Model = m
	l.Given = givenOptions(m.Graph, opt.Dims, opt.Inputs, derived)
	l.givenDims, l.givenInputs = opt.Dims, opt.Inputs
	return l, nil
}
