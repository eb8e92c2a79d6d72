package importer

// This file implements read-only memory mappings of model and
// external-data files.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// mapping is a read-only view of a whole file.
type mapping struct {
	path string // absolute
	data []byte
	mmap bool // data must be unmapped (false: empty file or heap copy)
	// info identifies the mapped file (for the Sources over it); owner
	// caches its descriptor.
	info  os.FileInfo
	owner *mappings
}

// mapFile maps path read-only. Empty files give an empty mapping.
func mapFile(path string) (*mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	size := st.Size()
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if size == 0 {
		return &mapping{path: abs, info: st}, nil
	}
	if size != int64(int(size)) {
		return nil, fmt.Errorf("%s: file too large to map (%d bytes)", path, size)
	}
	data, err := mapReadOnly(f, int(size))
	if err != nil {
		return nil, fmt.Errorf("%s: mmap: %w", path, err)
	}
	return &mapping{path: abs, data: data, mmap: true, info: st}, nil
}

func (m *mapping) close() error {
	if m == nil || !m.mmap {
		return nil
	}
	d := m.data
	m.data, m.mmap = nil, false
	return unmap(d)
}

// mappings is the set of files one model views; it is the model's Closer.
type mappings struct {
	mu     sync.Mutex
	files  []*mapping
	fds    []*openFile // descriptors for Sources, most recently used first
	closed bool
	block  readBlock // the last block read for small reads (readSmall)
	spare  []byte    // a block buffer no reader holds (readSmall reads into it)
}

func (ms *mappings) add(m *mapping) {
	ms.mu.Lock()
	ms.files = append(ms.files, m)
	m.owner = ms
	ms.mu.Unlock()
}

// Close unmaps every file. Tensor data read after Close faults.
func (ms *mappings) Close() error {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	var errs []error
	for _, m := range ms.files {
		if err := m.close(); err != nil {
			errs = append(errs, err)
		}
	}
	ms.files = nil
	for _, o := range ms.fds {
		o.evicted = true
		if o.refs == 0 {
			o.f.Close()
		}
	}
	ms.fds, ms.closed = nil, true
	return errors.Join(errs...)
}
