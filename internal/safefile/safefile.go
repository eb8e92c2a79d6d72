// Package safefile writes output files atomically: the content goes to a
// temporary file in the target folder, which is synced and renamed into
// place only when writing succeeded, so a failed run leaves no partial
// file. It also refuses to write over the files a run reads. A Batch does
// the same for several files that appear together or not at all. Every
// file is written with mode 0644. Errors name the target, never the
// temporary file.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Mode is the permission of every file written.
const Mode = 0o644

// Write creates or replaces path with what write produces. It refuses to
// write over any file in refuse (compared by identity, so links and other
// spellings of the same path are caught) and over a directory.
func Write(path string, refuse []string, write func(io.Writer) error) error {
	return WriteChecked(path, refuse, write, nil)
}

// WriteChecked is Write with a check of the finished temporary file (its
// path is given) before it is moved into place: when check fails, path is
// left as it was and the error returned. A nil check is none.
func WriteChecked(path string, refuse []string, write func(io.Writer) error, check func(tmp string) error) error {
	b := NewBatch(refuse...)
	defer b.Abort()
	if err := b.WriteChecked(path, nil, write, check); err != nil {
		return err
	}
	return b.Commit()
}

// Batch is a set of output files committed together: each is checked
// (Check) before the work that produces it, staged in a temporary file
// beside its target (Write), and renamed into place with the others by
// Commit. Until Commit nothing is visible at any target; Abort removes
// what was staged, and the folders MkdirAll created and left empty.
type Batch struct {
	refuse  []string
	targets map[string]string // cleaned absolute target -> as given
	staged  []staged
	dirs    []string // folders MkdirAll created, outermost first
	// Committed are the paths the last Commit put in place, in order.
	Committed []string
}

type staged struct{ path, tmp string }

// NewBatch returns an empty batch that refuses to write over the files in
// refuse (the run's inputs).
func NewBatch(refuse ...string) *Batch {
	return &Batch{refuse: refuse, targets: map[string]string{}}
}

// cause drops the file name an *fs.PathError carries (the temporary's),
// keeping what went wrong.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Check verifies that path can be written now, before any work: its
// folder exists and takes a new file, it is not a directory, not one of
// the inputs (or extra) and not already a target of the batch.
func (b *Batch) Check(path string, extra ...string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("%s: %v", path, cause(err))
	}
	if prev, ok := b.targets[abs]; ok {
		return fmt.Errorf("%s is written twice (also as %s)", path, prev)
	}
	if err := b.refused(path, extra); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &MissingFolderError{Path: path, Dir: dir}
	case err != nil:
		return fmt.Errorf("cannot write %s: %v", path, cause(err))
	case !st.IsDir():
		return fmt.Errorf("cannot write %s: %s is not a folder", path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, cause(err))
	}
	f.Close()
	os.Remove(f.Name())
	b.targets[abs] = path
	return nil
}

// refused says whether path may not be written: a directory, or a file
// the run reads.
func (b *Batch) refused(path string, extra []string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	for _, r := range append(append([]string{}, b.refuse...), extra...) {
		if r == "" {
			continue
		}
		if rs, err := os.Stat(r); err == nil && os.SameFile(st, rs) {
			return fmt.Errorf("refusing to overwrite the input file %s", path)
		}
	}
	return nil
}

// MissingFolderError is an output whose folder does not exist. The rule
// for every output (file or folder) is the same: the folder it is written
// into must exist; a flag naming a folder of outputs creates that folder
// itself (Mkdir), never its parents.
type MissingFolderError struct {
	Path string // the output
	Dir  string // its folder, missing
}

func (e *MissingFolderError) Error() string {
	return fmt.Sprintf("cannot write %s: folder %s does not exist", e.Path, e.Dir)
}

// Mkdir creates the folder dir when it is missing (its parent must exist:
// a *MissingFolderError otherwise), remembering it so that Abort removes
// it again if it is still empty. An existing folder is kept as it is.
func (b *Batch) Mkdir(dir string) error {
	st, err := os.Stat(dir)
	if err == nil {
		if !st.IsDir() {
			return fmt.Errorf("cannot create folder %s: a file of that name exists", dir)
		}
		return nil
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if pst, perr := os.Stat(parent); errors.Is(perr, fs.ErrNotExist) {
		return &MissingFolderError{Path: dir, Dir: parent}
	} else if perr == nil && !pst.IsDir() {
		return fmt.Errorf("cannot create folder %s: %s is not a folder", dir, parent)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create folder %s: %v", dir, cause(err))
	}
	b.dirs = append(b.dirs, filepath.Clean(dir))
	return nil
}

// MkdirAll creates the folder dir (and its parents) as os.MkdirAll does,
// remembering the folders it created so that Abort removes them again if
// they are still empty.
func (b *Batch) MkdirAll(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create folder %s: %v", dir, cause(err))
	}
	b.dirs = append(b.dirs, missing...)
	return nil
}

// Write stages what write produces for path (refusing, besides the
// batch's inputs, the files in extra), synced, in a temporary file beside
// it. The file appears at path only when Commit runs.
func (b *Batch) Write(path string, extra []string, write func(io.Writer) error) error {
	return b.WriteChecked(path, extra, write, nil)
}

// WriteChecked is Write with a check of the finished temporary file (its
// path is given) before it is staged: when check fails, nothing is staged
// and the error returned. A nil check is none.
func (b *Batch) WriteChecked(path string, extra []string, write func(io.Writer) error, check func(tmp string) error) (err error) {
	if err := b.refused(path, extra); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, cause(err))
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
	if err = f.Sync(); err == nil {
		if err = f.Close(); err == nil {
			err = os.Chmod(tmp, Mode)
		}
	}
	if err != nil {
		return fmt.Errorf("writing %s: %v", path, cause(err))
	}
	if check != nil {
		if err = check(tmp); err != nil {
			return err
		}
	}
	b.staged = append(b.staged, staged{path, tmp})
	if abs, aerr := filepath.Abs(path); aerr == nil {
		b.targets[abs] = path
	}
	return nil
}

// Staged returns the temporary file that holds path's content until
// Commit ("" when path is not staged): what a check of another output that
// refers to path reads instead.
func (b *Batch) Staged(path string) string {
	for _, s := range b.staged {
		if s.path == path {
			return s.tmp
		}
	}
	return ""
}

// Commit renames every staged file into place, in the order they were
// written, and empties the batch. A rename failing (rare: the folder was
// checked and the temporary is beside its target) stops there; the files
// already renamed stay and the rest are removed.
func (b *Batch) Commit() error {
	b.Committed = b.Committed[:0]
	for i, s := range b.staged {
		if err := os.Rename(s.tmp, s.path); err != nil {
			b.staged = b.staged[i:]
			b.Abort()
			return fmt.Errorf("cannot write %s: %v", s.path, cause(err))
		}
		b.Committed = append(b.Committed, s.path)
	}
	b.staged, b.dirs = nil, nil
	return nil
}

// Abort removes every staged temporary file and the folders MkdirAll
// created that are empty; after Commit it does nothing.
func (b *Batch) Abort() {
	for _, s := range b.staged {
		os.Remove(s.tmp)
	}
	b.staged = nil
	for i := len(b.dirs) - 1; i >= 0; i-- {
		os.Remove(b.dirs[i]) // fails, as wanted, on a folder that is not empty
	}
	b.dirs = nil
}
