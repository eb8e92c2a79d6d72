package optimize

// This file implements weights that passes derive from others (BatchNorm
// folded into Conv weights, GEMM weights concatenated for batching)
// without computing them: the new tensor's Source computes any byte range
// from the weights it came from when a reader asks (export streams it;
// the evaluator, for verify or a later fold, reads it whole within its
// memory limit). A pass therefore never holds a derived weight, and no
// weight is read at optimization time, whatever its size; reading costs
// one pass over the parts, in pieces.

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

// derived returns a tensor whose data src computes.
func derived(name string, dt ir.DType, dims []int64, src ir.Source) *ir.Tensor {
	return &ir.Tensor{Name: name, DType: dt, Dims: append([]int64(nil), dims...), Src: src}
}

// packedSource returns a Source over t's data as packed bytes of exactly
// t's size, or nil (no data, or data of the wrong size).
func packedSource(t *ir.Tensor) ir.Source {
	if t == nil {
		return nil
	}
	r := readerOf(t)
	if r == nil || r.Size() != t.ByteSize() {
		return nil
	}
	return r
}

// readFull reads len(p) bytes at off of s.
func readFull(s ir.Source, p []byte, off int64) error {
	n, err := s.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// concatSource is parts concatenated along an axis: outer blocks, each
// holding chunks[i] bytes of part i in turn.
type concatSource struct {
	parts  []ir.Source
	chunks []int64
	block  int64 // sum of chunks
	outer  int64
}

func (s *concatSource) Size() int64 { return s.block * s.outer }

// concatGatherMax bounds the span concatSource.ReadAt reads part by part
// in one call each (see gather).
const concatGatherMax = 1 << 20

func (s *concatSource) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("concatenated weight: negative offset")
	}
	if end := min(off+int64(len(p)), s.Size()); end > off && end-off <= concatGatherMax && off/s.block != (end-1)/s.block {
		return s.gather(p, off, end)
	}
	n := 0
	for n < len(p) && off < s.Size() {
		o, r := off/s.block, off%s.block
		i, start := 0, int64(0)
		for r >= start+s.chunks[i] {
			start += s.chunks[i]
			i++
		}
		k := int(min(int64(len(p)-n), start+s.chunks[i]-r))
		if err := readFull(s.parts[i], p[n:n+k], o*s.chunks[i]+r-start); err != nil {
			return n, err
		}
		n += k
		off += int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// gather serves a read of [off, end) that spans several outer blocks with
// one read per part (of that part's rows for those blocks) instead of one
// per part and block: a 3 KiB weight concatenated from three parts along
// its last axis is then 3 reads, not hundreds (cse hashes every weight of
// up to 4 KiB whole, and each read of an imported part is a pread).
func (s *concatSource) gather(p []byte, off, end int64) (int, error) {
	o0, o1 := off/s.block, (end-1)/s.block+1 // outer blocks [o0, o1)
	rows := make([]byte, (o1-o0)*s.block)
	var start int64 // part i's offset within a block
	for i, part := range s.parts {
		c := s.chunks[i]
		buf := make([]byte, (o1-o0)*c)
		if err := readFull(part, buf, o0*c); err != nil {
			return 0, err
		}
		for o := int64(0); o < o1-o0; o++ {
			copy(rows[o*s.block+start:o*s.block+start+c], buf[o*c:(o+1)*c])
		}
		start += c
	}
	n := copy(p, rows[off-o0*s.block:end-o0*s.block])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// scaleSource is a float32 weight whose every run of per elements (one
// output channel) is multiplied by its own scale, rounded to float32.
type scaleSource struct {
	w     ir.Source
	per   int64
	scale []float64
}

func (s *scaleSource) Size() int64 { return s.w.Size() }

func (s *scaleSource) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("folded weight: negative offset")
	}
	end := min(off+int64(len(p)), s.Size())
	if off >= end {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	e0, e1 := off/4, (end+3)/4
	buf := make([]byte, 4*(e1-e0))
	if err := readFull(s.w, buf, 4*e0); err != nil {
		return 0, err
	}
	for e := e0; e < e1; e++ {
		b := buf[4*(e-e0):]
		w := math.Float32frombits(binary.LittleEndian.Uint32(b))
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(float64(w)*s.scale[e/s.per])))
	}
	n := copy(p, buf[off-4*e0:end-4*e0])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
