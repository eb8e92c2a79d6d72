package importer

// This file implements the entry points: Load, Decode and the .pb tensor
// reader.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wolong-dev/wolong/ir"
)

// Options steer importing.
type Options struct {
	// MaxDepth bounds the nesting of subgraphs (If/Loop/Scan bodies and
	// function bodies). Default 64.
	MaxDepth int
	// Warn, if set, receives non-fatal messages (ignored fields, ...).
	Warn func(msg string)
	// KeepFunctions keeps calls of wolong's fused-kernel functions as
	// function calls; by default they become the fused nodes they were
	// written from (ir.InlineFusedFunctions).
	KeepFunctions bool
	// Staged reads the external data at a location (as the file writes it)
	// from another path: an exporter checks a model whose data file is
	// still staged under a temporary name.
	Staged map[string]string
}

// Error is an import failure. It prints as one line naming the file and,
// where known, the graph and node.
type Error struct {
	File  string
	Graph string // "" for the main graph
	Node  string
	Err   error
}

func (e *Error) Error() string {
	s := e.File
	if e.Graph != "" {
		s += ": graph " + e.Graph
	}
	if e.Node != "" {
		s += ": node " + e.Node
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Load maps the model file at path and decodes it. Tensor data stays
// mapped until the returned model's Close is called. On error nothing
// stays mapped.
func Load(path string, opt Options) (*ir.Model, error) {
	m, err := mapFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &Error{File: path, Err: err}
	}
	maps := &mappings{}
	maps.add(m)
	abs, _ := filepath.Abs(path)
	model, err := decodeModel(m.data, path, filepath.Dir(abs), maps, m, opt)
	if err != nil {
		maps.Close()
		return nil, err
	}
	model.Path = path
	model.Closer = maps
	return model, nil
}

// Decode decodes a model held in memory. Tensors view data; data must not
// change while the model is in use. Models with external data cannot be
// decoded this way (there is no folder to resolve them against).
func Decode(data []byte, opt Options) (*ir.Model, error) {
	return decodeModel(data, "<memory>", "", &mappings{}, nil, opt)
}

func decodeModel(data []byte, path, dir string, maps *mappings, self *mapping, opt Options) (*ir.Model, error) {
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = 64
	}
	d := &decoder{file: data, path: path, dir: dir, maps: maps, self: self, ext: map[string]*mapping{}, opt: opt}
	if len(data) == 0 {
		return nil, &Error{File: path, Err: errors.New("empty file")}
	}
	m, err := d.model(data)
	if err != nil {
		var ie *Error
		if errors.As(err, &ie) {
			return nil, ie
		}
		return nil, &Error{File: path, Err: err}
	}
	if !opt.KeepFunctions {
		if _, err := ir.InlineFusedFunctions(m); err != nil {
			return nil, &Error{File: path, Err: err}
		}
	}
	return m, nil
}

// ReadTensorFile reads a TensorProto from a .pb file (the ONNX test data
// format). The tensor's data is copied, so nothing stays mapped.
func ReadTensorFile(path string) (*ir.Tensor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := DecodeTensor(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return t, nil
}

// DecodeTensor decodes a serialized TensorProto. The returned tensor's Raw
// data views b. External data is refused.
func DecodeTensor(b []byte) (*ir.Tensor, error) {
	d := &decoder{file: b, path: "<tensor>", maps: &mappings{}, ext: map[string]*mapping{}}
	if len(b) == 0 {
		// An empty message is a valid TensorProto with no type.
		return nil, errors.New("empty tensor file")
	}
	return d.tensor(b)
}
