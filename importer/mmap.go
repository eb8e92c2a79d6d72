package importer

// This file implements read-only memory mappings of model and
// external-data files.

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// mapping is a read-only view of a whole file.
type mapping struct {
	path string
	data []byte
	mmap bool // data must be unmapped (false: empty file or heap copy)
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
	if size == 0 {
		return &mapping{path: path}, nil
	}
	if size != int64(int(size)) {
		return nil, fmt.Errorf("%s: file too large to map (%d bytes)", path, size)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("%s: mmap: %w", path, err)
	}
	return &mapping{path: path, data: data, mmap: true}, nil
}

func (m *mapping) close() error {
	if m == nil || !m.mmap {
		return nil
	}
	d := m.data
	m.data, m.mmap = nil, false
	return unix.Munmap(d)
}

// mappings is the set of files one model views; it is the model's Closer.
type mappings struct {
	mu    sync.Mutex
	files []*mapping
}

func (ms *mappings) add(m *mapping) {
	ms.mu.Lock()
	ms.files = append(ms.files, m)
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
	return errors.Join(errs...)
}
