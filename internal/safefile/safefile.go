// Package safefile writes output files atomically: the content goes to a
// temporary file in the target folder, which is synced and renamed into
// place only when writing succeeded, so a failed run leaves no partial
// file. It also refuses to write over the files a run reads.
package safefile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what write produces. It refuses to
// write over any file in refuse (compared by identity, so links and other
// spellings of the same path are caught) and over a directory.
func Write(path string, refuse []string, write func(io.Writer) error) error {
	return WriteChecked(path, refuse, write, nil)
}

// WriteChecked is Write with a check of the finished temporary file
// (its path is given) before it is moved into place: when check fails,
// path is left as it was and the error returned. A nil check is none.
func WriteChecked(path string, refuse []string, write func(io.Writer) error, check func(tmp string) error) (err error) {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a directory", path)
		}
		for _, r := range refuse {
			if r == "" {
				continue
			}
			if rs, err := os.Stat(r); err == nil && os.SameFile(st, rs) {
				return fmt.Errorf("refusing to overwrite the input file %s", path)
			}
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if check != nil {
		if err = check(tmp); err != nil {
			return err
		}
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
