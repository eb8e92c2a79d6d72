package cmd

// This file implements a command's output files as one set: every output
// flag is checked before the work starts, the files are staged as the work
// produces them, and they appear together when the command succeeds, or
// none does.

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/wolong-dev/wolong/internal/safefile"
)

// outputs are the files one command run writes.
type outputs struct {
	b     *safefile.Batch
	flags map[string]string // path -> the flag that names it
}

// newOutputs returns an empty set that refuses to write over inputs.
func newOutputs(inputs ...string) *outputs {
	return &outputs{b: safefile.NewBatch(inputs...), flags: map[string]string{}}
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
		return outputErr(flag, err)
	}
	o.flags[path] = flag
	return nil
}

// outputErr labels err with flag; a missing folder is the user's to fix:
// a usage error (exit 2), the one rule of every output flag.
func outputErr(flag string, err error) error {
	var mf *safefile.MissingFolderError
	if errors.As(err, &mf) {
		return Usagef("%s: %v (wolong creates no parent folders)", flag, err)
	}
	return fmt.Errorf("%s: %v", flag, err)
}

// checkDir verifies that dir can hold the files of flag: an existing
// folder, or a missing one whose parent exists (created, and removed
// again if the run fails). A missing parent is a usage error, as for
// every output (outputErr).
func (o *outputs) checkDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	if err := checkOutputName(flag, dir); err != nil {
		return err
	}
	if err := o.b.Mkdir(dir); err != nil {
		return outputErr(flag, err)
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

// commitSaying commits and says on w (stderr) which files it wrote, one
// line each with the flag that named it ("wrote plan.json (-o)").
func (o *outputs) commitSaying(w io.Writer) error {
	if err := o.b.Commit(); err != nil {
		return err
	}
	for _, p := range o.b.Committed {
		if f := o.flags[p]; f != "" {
			fmt.Fprintf(w, "wolong: wrote %s (%s)\n", p, f)
		} else {
			fmt.Fprintf(w, "wolong: wrote %s\n", p)
		}
	}
	return nil
}

// abort removes what was staged (deferred by every command; nothing
// after commit).
func (o *outputs) abort() { o.b.Abort() }
