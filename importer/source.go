package importer

// This file implements ir.Source over a region of a mapped file: streaming
// readers (export, CSE's byte comparison, weights derived on demand) read a
// weight with pread instead of through the mapping, so the weight never
// becomes part of wolong's resident memory.

import (
	"fmt"
	"io"
	"os"
)

// fileSource reads n bytes at off of a mapped file, through a descriptor
// its model keeps in a small cache (a model may have thousands of
// external files, more than a process may keep open; a concatenated
// weight reads its parts row by row). The file is checked to be the one
// that was mapped.
type fileSource struct {
	m      *mapping
	off, n int64
}

func (s *fileSource) Size() int64 { return s.n }

func (s *fileSource) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset", s.m.path)
	}
	if off >= s.n {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	short := false
	if int64(len(p)) > s.n-off {
		p, short = p[:s.n-off], true
	}
	if len(p) <= smallRead && s.m.owner != nil {
		if k, ok := s.m.owner.readSmall(s.m, p, s.off+off); ok {
			if short {
				return k, io.EOF
			}
			return k, nil
		}
	}
	f, done, err := s.m.owner.open(s.m)
	if err != nil {
		return 0, err
	}
	defer done()
	k, err := f.ReadAt(p, s.off+off)
	if err == nil && short {
		err = io.EOF
	}
	return k, err
}

// nextData returns the offset, at or after off, where s's next run of
// data starts in a sparse file (s.n when only a hole is left), so a copy
// skips holes without reading them; off itself when the file system
// cannot tell.
func (s *fileSource) nextData(off int64) int64 {
	f, done, err := s.m.owner.open(s.m)
	if err != nil {
		return off
	}
	defer done()
	pos, hole, err := seekData(f, s.off+off)
	switch {
	case hole:
		return s.n
	case err != nil || pos < s.off+off:
		return off
	}
	return min(pos-s.off, s.n)
}

// source returns a Source over b, a view of m's data, or nil when b does
// not lie inside m or m has no file behind it.
func (m *mapping) source(b []byte) *fileSource {
	if m == nil || m.info == nil || len(b) == 0 {
		return nil
	}
	off := offsetIn(m.data, b)
	if off < 0 {
		return nil
	}
	return &fileSource{m: m, off: off, n: int64(len(b))}
}

// smallRead and blockSize: a read of up to smallRead bytes (cse hashes
// every weight of up to 4 KiB whole: at 100k nodes, tens of thousands of
// them) is served from one cached block of blockSize bytes of the file,
// read with one pread where the block does not hold it. Small weights sit
// next to each other in ONNX files (a BatchNorm's four vectors, a layer's
// biases), so most such reads hit the block: cse on a 100k-node CNN made
// ~30k preads, each a system call. The block is bytes of the file near a
// weight that was asked for, never a weight's data copied for a reader
// that did not ask: a reader is still handed only its own range.
const (
	smallRead = 4 << 10
	blockSize = 32 << 10
)

// readBlock is a cached block of a mapping's file.
type readBlock struct {
	m    *mapping
	off  int64 // file offset of data[0]
	data []byte
}

// readSmall copies file bytes [off, off+len(p)) of m into p from the
// cached block, reading the block that starts at off's 4 KiB boundary when
// the cache does not hold the range. ok is false when it cannot (no file,
// a failed read): the caller reads directly.
func (ms *mappings) readSmall(m *mapping, p []byte, off int64) (int, bool) {
	ms.mu.Lock()
	if b := ms.block; b.m == m && off >= b.off && off+int64(len(p)) <= b.off+int64(len(b.data)) {
		n := copy(p, b.data[off-b.off:]) // under the lock: the buffer is reused once replaced
		ms.mu.Unlock()
		return n, true
	}
	buf := ms.spare
	ms.spare = nil
	ms.mu.Unlock()
	if buf == nil {
		buf = make([]byte, blockSize)
	}
	keep := func(b []byte) { // b is no block's: the next miss may read into it
		ms.mu.Lock()
		if ms.spare == nil {
			ms.spare = b[:blockSize]
		}
		ms.mu.Unlock()
	}
	f, done, err := ms.open(m)
	if err != nil {
		keep(buf)
		return 0, false
	}
	defer done()
	start := off &^ (4<<10 - 1)
	k, err := f.ReadAt(buf, start)
	if (err != nil && err != io.EOF) || off+int64(len(p)) > start+int64(k) {
		keep(buf)
		return 0, false
	}
	n := copy(p, buf[off-start:k])
	ms.mu.Lock()
	old := ms.block.data
	ms.block = readBlock{m: m, off: start, data: buf[:k]}
	if old != nil && ms.spare == nil {
		ms.spare = old[:blockSize]
	}
	ms.mu.Unlock()
	return n, true
}

// maxOpenFiles bounds the descriptors one model keeps for its Sources.
const maxOpenFiles = 8

// openFile is a cached descriptor; refs counts the reads using it, and an
// entry evicted while in use is closed by its last reader.
type openFile struct {
	m       *mapping
	f       *os.File
	refs    int
	evicted bool
}

// open returns a descriptor of m's file (checked to be the file mapped)
// and a function to call when done with it. ms may be nil: the file is
// then opened for this read only.
func (ms *mappings) open(m *mapping) (*os.File, func(), error) {
	if ms != nil {
		ms.mu.Lock()
		for i, o := range ms.fds {
			if o.m == m {
				copy(ms.fds[1:i+1], ms.fds[:i]) // most recently used first
				ms.fds[0] = o
				o.refs++
				ms.mu.Unlock()
				return o.f, ms.release(o), nil
			}
		}
		ms.mu.Unlock()
	}
	f, err := os.Open(m.path)
	if err != nil {
		return nil, nil, err
	}
	if st, err := f.Stat(); err != nil || !os.SameFile(st, m.info) {
		f.Close()
		return nil, nil, fmt.Errorf("%s changed since it was loaded", m.path)
	}
	if ms == nil {
		return f, func() { f.Close() }, nil
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.closed {
		f.Close()
		return nil, nil, fmt.Errorf("%s: model closed", m.path)
	}
	o := &openFile{m: m, f: f, refs: 1}
	ms.fds = append([]*openFile{o}, ms.fds...)
	if len(ms.fds) > maxOpenFiles {
		last := ms.fds[len(ms.fds)-1]
		ms.fds = ms.fds[:len(ms.fds)-1]
		last.evicted = true
		if last.refs == 0 {
			last.f.Close()
		}
	}
	return f, ms.release(o), nil
}

func (ms *mappings) release(o *openFile) func() {
	return func() {
		ms.mu.Lock()
		defer ms.mu.Unlock()
		o.refs--
		if o.evicted && o.refs == 0 {
			o.f.Close()
		}
	}
}
