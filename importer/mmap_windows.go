//go:build windows

package importer

import (
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// mapReadOnly maps the first size bytes of f read-only (a file mapping
// and a view of it; the view keeps the mapping alive after its handle is
// closed).
func mapReadOnly(f *os.File, size int) ([]byte, error) {
	h, err := windows.CreateFileMapping(windows.Handle(f.Fd()), nil, windows.PAGE_READONLY, uint32(uint64(size)>>32), uint32(size), nil)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	addr, err := windows.MapViewOfFile(h, windows.FILE_MAP_READ, 0, 0, uintptr(size))
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(addr)), size), nil
}

// unmap undoes mapReadOnly.
func unmap(b []byte) error {
	if len(b) == 0 {
		return errors.New("unmap: empty view")
	}
	return windows.UnmapViewOfFile(uintptr(unsafe.Pointer(&b[0])))
}

// seekData cannot tell data from holes here: the copy reads the file
// through (sparse files are a Unix economy of the 16 GiB tests).
func seekData(f *os.File, off int64) (pos int64, hole bool, err error) {
	return off, false, nil
}
