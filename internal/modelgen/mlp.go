package modelgen

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/wolong-dev/wolong/ir"
)

// MLP is layers x (MatMul by a hidden x hidden float32 weight, Add of a
// bias, Relu) over an [N, hidden] input, with its weights in memory.
func MLP(hidden int64, layers int) *ir.Model {
	b, x := mlpGraph(hidden)
	for i := 0; i < layers; i++ {
		w := b.Weight(fmt.Sprintf("fc%d.weight", i), hidden, hidden)
		bias := b.Weight(fmt.Sprintf("fc%d.bias", i), hidden)
		x = mlpLayer(b, x, w, bias)
	}
	return mlpDone(b, x)
}

func mlpGraph(hidden int64) (*Builder, *ir.Value) {
	b := New(fmt.Sprintf("mlp_%d", hidden), 17)
	return b, b.Input("x", ir.Float32, "N", int(hidden))
}

func mlpLayer(b *Builder, x, w, bias *ir.Value) *ir.Value {
	return b.Op("Relu", []*ir.Value{b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{x, w}), bias})})
}

func mlpDone(b *Builder, x *ir.Value) *ir.Model {
	return b.outputY(x)
}

// MLPSparse builds MLP's graph with its weights in a SparseFile at
// dataPath (biases are filled whole, weights only in their first 4 KiB),
// so a model of any size generates in milliseconds and takes almost no
// disk. The model's Close closes the file.
func MLPSparse(hidden int64, layers int, dataPath string) (*ir.Model, error) {
	if hidden <= 0 || layers <= 0 || hidden > 1<<20 {
		return nil, fmt.Errorf("modelgen: MLPSparse(%d, %d): want hidden in 1..2^20 and layers > 0", hidden, layers)
	}
	sf, err := NewSparseFile(dataPath)
	if err != nil {
		return nil, err
	}
	b, x := mlpGraph(hidden)
	for i := 0; i < layers && err == nil; i++ {
		var w, bias *ir.Value
		if w, err = sf.Weight(b, fmt.Sprintf("fc%d.weight", i), hidden, hidden); err != nil {
			break
		}
		if bias, err = sf.Fill(b, fmt.Sprintf("fc%d.bias", i), hidden); err != nil {
			break
		}
		x = mlpLayer(b, x, w, bias)
	}
	if err == nil {
		err = sf.Finish()
	}
	if err != nil {
		sf.Close()
		return nil, err
	}
	m := mlpDone(b, x)
	m.Closer = sf
	return m, nil
}

// SparseHead is how much of each weight SparseFile.Weight fills with
// random values; the rest is zeros, left as holes in the file.
const SparseHead = 4096

// SparseFile holds weights in an external-data file written sparse: a
// weight of any size costs a few KiB of disk and no memory. Each tensor it
// adds reads the file through its Source and names it in Loc as external
// data, so importer.WriteFileWith with ExternalAlways references the file
// in place (write the model into the file's folder), and WriteFile writes
// the weights inline, streaming them.
type SparseFile struct {
	f    *os.File
	path string // absolute, symlinks resolved
	base string
	off  int64
}

// NewSparseFile creates (or truncates) the data file at path.
func NewSparseFile(path string) (*SparseFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		if real, e := filepath.EvalSymlinks(abs); e == nil {
			abs = real
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &SparseFile{f: f, path: abs, base: filepath.Base(path)}, nil
}

// Weight adds a float32 initializer with random values (uniform in
// +-1/sqrt(fan-in), as Builder.Weight) in its first SparseHead bytes and
// zeros after: no two weights are equal, as with real ones.
func (s *SparseFile) Weight(b *Builder, name string, dims ...int64) (*ir.Value, error) {
	return s.add(b, name, ir.Float32, dims, SparseHead/4)
}

// WeightOf is Weight for a weight of element type dt (float32, float16 or
// bfloat16): random values in its first SparseHead bytes, zeros after.
func (s *SparseFile) WeightOf(b *Builder, name string, dt ir.DType, dims ...int64) (*ir.Value, error) {
	return s.add(b, name, dt, dims, SparseHead/int64(max(1, dt.Bits()/8)))
}

// Fill adds a float32 initializer with random values throughout (biases
// and other small tensors).
func (s *SparseFile) Fill(b *Builder, name string, dims ...int64) (*ir.Value, error) {
	return s.add(b, name, ir.Float32, dims, math.MaxInt64)
}

// add writes the first limit elements of name's values; the rest of the
// tensor stays a hole.
func (s *SparseFile) add(b *Builder, name string, dt ir.DType, dims []int64, limit int64) (*ir.Value, error) {
	return s.write(b, name, dt, dims, b.weightBytesOf(name, dims, limit, dt))
}

// write stores head at the file's next page and adds the initializer: a
// tensor of dims whose bytes past head are zeros (a hole in the file).
func (s *SparseFile) write(b *Builder, name string, dt ir.DType, dims []int64, head []byte) (*ir.Value, error) {
	if dt != ir.Float32 && dt != ir.Float16 && dt != ir.BFloat16 {
		return nil, fmt.Errorf("modelgen: sparse weight %s: element type %s not float32, float16 or bfloat16", name, dt)
	}
	n := int64(dt.Bits() / 8)
	for _, d := range dims {
		n *= d
	}
	if _, err := s.f.WriteAt(head, s.off); err != nil {
		return nil, err
	}
	t := &ir.Tensor{Name: name, DType: dt, Dims: dims, Src: io.NewSectionReader(s.f, s.off, n),
		Loc: ir.ExternalLocation(s.path, s.off, n, s.base, "")}
	s.off = (s.off + n + 4095) / 4096 * 4096 // page-aligned, so runtimes may map each weight
	return b.G.AddInitializer(t), nil
}

// Finish sets the file's length (the last weight's zeros become a hole).
func (s *SparseFile) Finish() error { return s.f.Truncate(s.off) }

// Close closes the file.
func (s *SparseFile) Close() error { return s.f.Close() }
