package optimize

// This file implements finding equal small tensors (shapes, scales,
// biases, small weights: up to cseHashMaxBytes) while reading only what
// can tell them apart. A model has many such tensors, each usually
// unlike every other, and CSE and the trial keys ask about all of them:
// a tensor alone of its dtype and dims is not read at all, one that
// shares them has its first bytes hashed, and only tensors whose first
// bytes match too are read and hashed whole.

import (
	"encoding/binary"

	"github.com/wolong-dev/wolong/ir"
)

// cseHeadBytes is how much of a small tensor the second step hashes.
const cseHeadBytes = 16

// smallIndex maps small tensors to the first equal one added. Each step
// keeps the first tensor of a key as it came (unread, or read no further)
// and refines the key, for it and for every later tensor of the key, only
// once a second tensor of the key comes: the entry (first's, for a shape)
// is then nil. A step's tensors of one key are refined in the order
// added, so the first equal tensor of the last step is the first equal
// tensor added.
type smallIndex struct {
	byShape map[shapeID]int32       // shape numbers, indexes of first
	first   []*ir.Tensor            // the first tensor of each shape, unread
	byHead  map[headID]*ir.Tensor   // by the hash of the first bytes
	byData  map[dataID][]*ir.Tensor // by the hash of all the data, in the order added
}

// shapeID identifies a dtype and dims without building a string: ranks
// up to four exactly, the dims past the fourth by a hash (a collision
// only puts two shapes in one bucket; tensorDataEqual checks the dims).
type shapeID struct {
	dtype ir.DType
	rank  int
	dims  [4]int64
	rest  uint64
}

// headID is a small tensor's shape number (smallIndex.byShape: a short
// key hashes faster), data size and the hash of its first cseHeadBytes
// bytes.
type headID struct {
	shape int32
	size  int
	head  uint64
}

// dataID is a headID and the hash of the whole data.
type dataID struct {
	headID
	hash uint64
}

// shapeIDOf returns t's shapeID.
func shapeIDOf(t *ir.Tensor) shapeID {
	id := shapeID{dtype: t.DType, rank: len(t.Dims)}
	n := copy(id.dims[:], t.Dims)
	if rest := t.Dims[n:]; len(rest) > 0 {
		b := make([]byte, 8*len(rest))
		for i, d := range rest {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(d))
		}
		id.rest = dataHash(b)
	}
	return id
}

// find returns the first tensor added holding the same dtype, dims and
// data as t, or t, which it adds, when there is none (t itself, not
// added, when its data cannot be read).
func (x *smallIndex) find(t *ir.Tensor) *ir.Tensor {
	if x.byShape == nil {
		x.byShape = map[shapeID]int32{}
	}
	k := shapeIDOf(t)
	s, seen := x.byShape[k]
	if !seen {
		x.byShape[k] = int32(len(x.first))
		x.first = append(x.first, t)
		return t
	}
	if first := x.first[s]; first != nil {
		x.first[s] = nil
		x.findHead(s, first)
	}
	return x.findHead(s, t)
}

// findHead is find's second step, for t of shape number s. Data no
// longer than cseHeadBytes is hashed whole here, so it goes to the last
// step at once.
func (x *smallIndex) findHead(s int32, t *ir.Tensor) *ir.Tensor {
	size, head, ok := headHash(t)
	if !ok {
		return t
	}
	h := headID{s, size, head}
	if size <= cseHeadBytes {
		return x.findData(dataID{h, head}, t)
	}
	if x.byHead == nil {
		x.byHead = map[headID]*ir.Tensor{}
	}
	first, seen := x.byHead[h]
	if !seen {
		x.byHead[h] = t
		return t
	}
	if first != nil {
		x.byHead[h] = nil
		x.findRead(h, first)
	}
	return x.findRead(h, t)
}

// findRead is find's last step for t of shape, size and head hash h: it
// reads t whole.
func (x *smallIndex) findRead(h headID, t *ir.Tensor) *ir.Tensor {
	data, ok := tensorBytes(t)
	if !ok {
		return t
	}
	return x.findData(dataID{h, dataHash(data)}, t)
}

// findData returns the first tensor added under k with t's data, or adds
// t under k and returns it.
func (x *smallIndex) findData(k dataID, t *ir.Tensor) *ir.Tensor {
	if x.byData == nil {
		x.byData = map[dataID][]*ir.Tensor{}
	}
	for _, c := range x.byData[k] {
		if tensorDataEqual(c, t) {
			return c
		}
	}
	x.byData[k] = append(x.byData[k], t)
	return t
}

// headHash returns the size of t's data (as tensorBytes would give it)
// and the hash of its first cseHeadBytes bytes; false when they cannot be
// read. Packed data is read no further than those bytes.
func headHash(t *ir.Tensor) (size int, head uint64, ok bool) {
	var data []byte
	switch {
	case t.Raw != nil:
		data = t.Raw
	case t.Src != nil:
		n := t.Src.Size()
		if n < 0 {
			return 0, 0, false // not a size: never read
		}
		var buf [cseHeadBytes]byte
		b := buf[:min(n, cseHeadBytes)]
		if k, err := t.Src.ReadAt(b, 0); k != len(b) && err != nil {
			return 0, 0, false
		}
		return int(n), dataHash(b), true
	default:
		if data, ok = tensorBytes(t); !ok {
			return 0, 0, false
		}
	}
	return len(data), dataHash(data[:min(len(data), cseHeadBytes)]), true
}
