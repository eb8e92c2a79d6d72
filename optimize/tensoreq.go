package optimize

// This file implements finding equal constant tensors while reading as
// little of them as possible (CSE's initializer and tensor-attribute
// matching). A tensor's bytes are read only when another tensor of its
// dtype and shape exists, and then only its first bytes unless those
// match too (small tensors: tensorsmall.go).

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

const (
	// cseHashMaxBytes: tensors up to this size (shapes, scales, biases)
	// are found by the hash of their data (smallIndex); larger ones are
	// compared lazily. It is one probe,
	// so a model of thousands of distinct weights of a few KiB is not
	// read whole: the lazy path reads one probe of each, and only when
	// another tensor of its dtype and dims exists (docs/speed.md).
	cseHashMaxBytes = cseProbeBytes
	// cseProbeBytes is how much of a large tensor is hashed, once another
	// tensor of its dtype and shape appears.
	cseProbeBytes = 4 << 10
	// cseCompareChunk is the unit of the byte comparison (with early exit).
	cseCompareChunk = 64 << 10
)

// tensorIndex maps tensors to the first equal one seen.
type tensorIndex struct {
	small  smallIndex
	large  map[string][]*ir.Tensor // dtype and dims, in the order added
	canon  map[*ir.Tensor]*ir.Tensor
	probes map[*ir.Tensor]probe
	buf    [2][]byte
	// The large tensors by the file bytes they view, and by dtype, dims
	// and probe hash (those of a dtype and dims only once a second tensor
	// of them came: indexed counts them), so that a tensor meets the
	// earlier ones that may equal it without a pass over all of its
	// dtype and dims.
	bySource map[tensorSource]*ir.Tensor
	byProbe  map[string][]*ir.Tensor
	indexed  map[string]int
}

// tensorSource is the file bytes a tensor of a dtype and dims (shape)
// views (sameSource's test).
type tensorSource struct {
	shape, file    string
	offset, length int64
}

// sourceOf returns the bytes t, of shape, views whole, and false when it
// views none.
func sourceOf(shape string, t *ir.Tensor) (tensorSource, bool) {
	if t.Loc.File == "" || t.Loc.Length != t.PackedSize() {
		return tensorSource{}, false
	}
	return tensorSource{shape, t.Loc.File, t.Loc.Offset, t.Loc.Length}, true
}

// probe is the hash of a large tensor's first bytes, or of a small
// tensor's data (ok: they could be read; size: the bytes hashed, for a
// small tensor). Tensors are never changed in place, so one Run probes
// each large tensor once (Context.probes), however many times CSE runs.
type probe struct {
	ok   bool
	hash uint64
	size int
}

// shapeKey encodes t's dtype and dims as a map key.
func shapeKey(t *ir.Tensor) string {
	b := make([]byte, 0, 8+8*len(t.Dims))
	b = strconv.AppendInt(b, int64(t.DType), 10)
	for _, d := range t.Dims {
		b = append(b, ' ')
		b = strconv.AppendInt(b, d, 10)
	}
	return string(b)
}

// newTensorIndex returns an empty index; probes (may be nil) caches probe
// hashes across indexes.
func newTensorIndex(probes map[*ir.Tensor]probe) *tensorIndex {
	if probes == nil {
		probes = map[*ir.Tensor]probe{}
	}
	return &tensorIndex{large: map[string][]*ir.Tensor{}, canon: map[*ir.Tensor]*ir.Tensor{}, probes: probes,
		bySource: map[tensorSource]*ir.Tensor{}, byProbe: map[string][]*ir.Tensor{}, indexed: map[string]int{}}
}

// canonical returns the first tensor added that holds the same data as t
// (t itself when there is none, or when t's data cannot be read).
func (x *tensorIndex) canonical(t *ir.Tensor) *ir.Tensor {
	if t == nil {
		return nil
	}
	if c, ok := x.canon[t]; ok {
		return c
	}
	c := x.find(t)
	x.canon[t] = c
	return c
}

// find returns the first tensor added that holds the same data as t, and
// adds t when there is none (t itself is returned then, as when its data
// cannot be read). Unlike canonical it keeps no record of t's answer
// (asked again, it finds the same tensor, reading t again), so a caller
// that asks about each tensor once (CSE's initializers) skips that map.
func (x *tensorIndex) find(t *ir.Tensor) *ir.Tensor {
	if !t.HasPacked() && !hasTyped(t) {
		return t // no data to compare (or external data not loaded)
	}
	if t.ByteSize() <= cseHashMaxBytes {
		return x.small.find(t)
	}
	shape := shapeKey(t)
	if c := x.findLarge(shape, t); c != nil {
		return c
	}
	if src, ok := sourceOf(shape, t); ok {
		if _, dup := x.bySource[src]; !dup {
			x.bySource[src] = t
		}
	}
	x.large[shape] = append(x.large[shape], t)
	return t
}

// findLarge returns the first large tensor added, of t's dtype and dims
// (shape), that views the same file bytes as t or, its first bytes
// hashing as t's, holds the same data; nil when none does. The first
// tensor of a shape is not read; once a second comes, each is probed
// once and indexed by its probe hash.
func (x *tensorIndex) findLarge(shape string, t *ir.Tensor) *ir.Tensor {
	list := x.large[shape]
	if len(list) == 0 {
		return nil
	}
	if src, ok := sourceOf(shape, t); ok {
		if best := x.bySource[src]; best != nil && sameSource(best, t) {
			// Only the tensors added before it can come first (usually
			// none: nothing is read).
			for _, c := range list {
				if c == best {
					break
				}
				if p, q := x.probe(c), x.probe(t); p.ok && q.ok && p.hash == q.hash && x.equal(c, t) {
					return c
				}
			}
			return best
		}
	}
	for _, c := range list[x.indexed[shape]:] {
		if p := x.probe(c); p.ok {
			k := probeKey(shape, p.hash)
			x.byProbe[k] = append(x.byProbe[k], c)
		}
	}
	x.indexed[shape] = len(list)
	q := x.probe(t)
	if !q.ok {
		return nil
	}
	for _, c := range x.byProbe[probeKey(shape, q.hash)] {
		if x.equal(c, t) {
			return c // the first: the bucket is in the order added
		}
	}
	return nil
}

// probeKey is the byProbe key of a tensor of shape whose probe hashes to h.
func probeKey(shape string, h uint64) string {
	return shape + "#" + strconv.FormatUint(h, 16)
}

// sameSource reports whether a and b view the same bytes of one file.
func sameSource(a, b *ir.Tensor) bool {
	return a.Loc.File != "" && a.Loc.File == b.Loc.File && a.Loc.Offset == b.Loc.Offset && a.Loc.Length == b.Loc.Length &&
		a.Loc.Length == a.PackedSize() && b.Loc.Length == b.PackedSize()
}

// probe hashes the first cseProbeBytes of t's data, once.
func (x *tensorIndex) probe(t *ir.Tensor) probe {
	if p, ok := x.probes[t]; ok {
		return p
	}
	var res probe
	if r := readerOf(t); r != nil {
		b := make([]byte, min(r.Size(), cseProbeBytes))
		if n, err := r.ReadAt(b, 0); n == len(b) || err == nil {
			res = probe{ok: true, hash: dataHash(b)}
		}
	}
	x.probes[t] = res
	return res
}

// equal compares the data of a and b (same dtype and dims) chunk by chunk,
// stopping at the first difference.
func (x *tensorIndex) equal(a, b *ir.Tensor) bool {
	ra, rb := readerOf(a), readerOf(b)
	if ra == nil || rb == nil || ra.Size() != rb.Size() {
		return false
	}
	for i := range x.buf {
		if x.buf[i] == nil {
			x.buf[i] = make([]byte, cseCompareChunk)
		}
	}
	for off := int64(0); off < ra.Size(); off += cseCompareChunk {
		k := int(min(cseCompareChunk, ra.Size()-off))
		p, q := x.buf[0][:k], x.buf[1][:k]
		if n, err := ra.ReadAt(p, off); n != k && err != nil {
			return false
		}
		if n, err := rb.ReadAt(q, off); n != k && err != nil {
			return false
		}
		if !bytes.Equal(p, q) {
			return false
		}
	}
	return true
}

// readerOf returns a Source over t's data as packed bytes (typed fields
// are packed; they are in memory already).
func readerOf(t *ir.Tensor) ir.Source {
	if r := t.Reader(); r != nil {
		return r
	}
	b, ok := tensorBytes(t)
	if !ok {
		return nil
	}
	return bytes.NewReader(b)
}

func hasTyped(t *ir.Tensor) bool {
	return len(t.Floats()) > 0 || len(t.Int32s()) > 0 || len(t.Int64s()) > 0 || len(t.Float64s()) > 0 || len(t.Uint64s()) > 0 || len(t.Strings()) > 0 ||
		(t.DType.Valid() && t.ByteSize() == 0)
}

// tensorBytes returns a byte image of t's data, read whole: callers use
// it on small tensors only.
func tensorBytes(t *ir.Tensor) ([]byte, bool) {
	if t.HasPacked() {
		b, err := t.Packed(max(t.PackedSize(), 0))
		return b, err == nil
	}
	if t.Loc.External {
		return nil, false
	}
	var buf bytes.Buffer
	switch {
	case len(t.Floats()) > 0:
		binary.Write(&buf, binary.LittleEndian, t.Floats())
	case len(t.Int32s()) > 0:
		binary.Write(&buf, binary.LittleEndian, t.Int32s())
	case len(t.Int64s()) > 0:
		binary.Write(&buf, binary.LittleEndian, t.Int64s())
	case len(t.Float64s()) > 0:
		binary.Write(&buf, binary.LittleEndian, t.Float64s())
	case len(t.Uint64s()) > 0:
		binary.Write(&buf, binary.LittleEndian, t.Uint64s())
	case len(t.Strings()) > 0:
		for _, s := range t.Strings() {
			fmt.Fprintf(&buf, "%d:", len(s))
			buf.Write(s)
		}
	}
	return buf.Bytes(), true
}

// tensorDataEqual compares two small tensors byte for byte.
func tensorDataEqual(a, b *ir.Tensor) bool {
	if a.DType != b.DType || len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] {
			return false
		}
	}
	x, ok1 := tensorBytes(a)
	y, ok2 := tensorBytes(b)
	return ok1 && ok2 && bytes.Equal(x, y)
}

// tensorAttrKey writes a tensor attribute's part of a node key: the
// canonical tensor's identity when an index is given (equal data, equal
// key), else the hash of a small tensor's data or a large one's identity.
func tensorAttrKey(b *strings.Builder, t *ir.Tensor, idx *tensorIndex) {
	switch {
	case t == nil:
		b.WriteString("nil")
	case idx != nil:
		fmt.Fprintf(b, "%p", idx.canonical(t))
	case t.ByteSize() <= cseHashMaxBytes:
		data, ok := tensorBytes(t)
		if !ok {
			fmt.Fprintf(b, "%p", t)
			return
		}
		fmt.Fprintf(b, "%d%v#%x/%d", t.DType, t.Dims, dataHash(data), len(data))
	default:
		fmt.Fprintf(b, "%p", t)
	}
}

// dataHash is a 64-bit hash of b, eight bytes a step (wyhash's mix: the
// 128-bit product folded): CSE hashes many small weights of a model twice
// per run, and byte-at-a-time FNV-1a was a third of its time on a 100k-node
// CNN. It is deterministic (no per-process seed), so keys built from it
// order the same in every run.
func dataHash(b []byte) uint64 {
	const p0, p1 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	mix := func(a, b uint64) uint64 {
		hi, lo := bits.Mul64(a, b)
		return hi ^ lo
	}
	h := uint64(len(b)) ^ p0
	for ; len(b) >= 8; b = b[8:] {
		h = mix(h^binary.LittleEndian.Uint64(b), p1)
	}
	if len(b) > 0 {
		var tail [8]byte
		copy(tail[:], b)
		h = mix(h^binary.LittleEndian.Uint64(tail[:])^uint64(len(b))<<56, p1)
	}
	return mix(h, p0^p1)
}
