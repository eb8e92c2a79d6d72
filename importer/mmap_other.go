//go:build !unix && !windows

package importer

import (
	"errors"
	"io"
	"os"
)

// mapReadOnly reads the file where there is no mapping (wasm, plan9):
// weights are then read whether used or not.
func mapReadOnly(f *os.File, size int) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}

// unmap has nothing to undo.
func unmap(b []byte) error { return nil }

// seekData cannot tell data from holes here.
func seekData(f *os.File, off int64) (pos int64, hole bool, err error) {
	return off, false, errors.ErrUnsupported
}
