package cmd

// This file implements a command's output files as one set: every output
// flag is checked before the work starts, the files are staged as the work
// produces them, and they appear together when the command succeeds, or
// none does.

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/wolong-dev/wolong/internal/safefile"
)

// outputs are the files one command run writes.
type outputs struct {
	b *safefile.Batch
}

// newOutputs returns an empty set that refuses to write over inputs.
func newOutputs(inputs ...string) *outputs {
	return &outputs{b: safefile.NewBatch(inputs...)}
}

// formatNames are what --format takes (and the other tools' -o takes): a
// bare one given as a file name is a habit, not a file.
var formatNames = []string{"json", "table", "csv", "yaml", "yml", "wide", "text", "txt"}

// checkOutputName refuses "-o json" and its kin: a file called like an
// output format, without folder or extension, written where the user
// meant stdout in that format (kubectl's -o json). "./json" writes it.
func checkOutputName(flag, path string) error {
	for _, f := range formatNames {
		if path == f {
			return Usagef("%s %s would write a file named %q: for %s on stdout use --format %s (to write a file of that name, give ./%s)", flag, path, path, strings.ToUpper(f), f, path)
		}
	}
	return nil
}

// check verifies, before the work, that path can be written for flag
// (e.g. "-o"): named like a file, its folder exists and is writable, it
// is not an input and no other flag writes it. Empty paths are skipped.
func (o *outputs) check(flag, path string) error {
	if path == "" {
		return nil
	}
	if err := checkOutputName(flag, path); err != nil {
		return err
	}
	if err := o.b.Check(path); err != nil {
		return fmt.Errorf("%s: %v", flag, err)
	}
	return nil
}

// checkDir verifies that dir can hold the files of flag (created if
// missing, and removed again if the run fails): an existing folder, or a
// path whose nearest existing parent is a folder.
func (o *outputs) checkDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	if err := checkOutputName(flag, dir); err != nil {
		return err
	}
	if err := o.b.MkdirAll(dir); err != nil {
		return fmt.Errorf("%s: %v", flag, err)
	}
	return o.check(flag, filepath.Join(dir, ".wolong-probe")) // takes a file
}

// write stages path's content; it appears at commit.
func (o *outputs) write(flag, path string, write func(io.Writer) error) error {
	if err := o.b.Write(path, nil, write); err != nil {
		return fmt.Errorf("%s: %v", flag, err)
	}
	return nil
}

// commit makes every staged file appear.
func (o *outputs) commit() error { return o.b.Commit() }

// abort removes what was staged (deferred by every command; nothing
// after commit).
func (o *outputs) abort() { o.b.Abort() }
