//go:build unix

package importer

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// mapReadOnly maps the first size bytes of f read-only.
func mapReadOnly(f *os.File, size int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
}

// unmap undoes mapReadOnly.
func unmap(b []byte) error { return unix.Munmap(b) }

// seekData returns the offset of f's next data at or after off
// (lseek SEEK_DATA); hole reports that only a hole is left.
func seekData(f *os.File, off int64) (pos int64, hole bool, err error) {
	pos, err = unix.Seek(int(f.Fd()), off, unix.SEEK_DATA)
	if errors.Is(err, unix.ENXIO) {
		return 0, true, nil
	}
	return pos, false, err
}
