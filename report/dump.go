package report

// This file implements the dumpers explain hands the pass driver
// (optimize.Dumper): files of IR text and DOT per stage (--dump-after,
// --dump-dir, --dot), and the per-pass diff of the IR text (--diff).

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/wolong-dev/wolong/internal/safefile"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
)

// DumpFileName names the file written for a stage: "16_fuse.dot",
// "00_input.wir".
func DumpFileName(seq int, pass, ext string) string {
	return fmt.Sprintf("%02d_%s.%s", seq, pass, ext)
}

// FileDumper writes each stage it is given into Dir: the IR text
// (NN_pass.wir, ir.Fprint) when Text is set, the main graph as Graphviz DOT
// (NN_pass.dot, WriteDOT) when DOT is. Its methods do nothing on a nil
// *FileDumper.
type FileDumper struct {
	Dir  string
	Text bool
	DOT  bool
	// Write creates one file with what fill writes; nil writes it at once
	// with safefile.Write (explain stages them in its output batch instead).
	Write func(path string, fill func(io.Writer) error) error
}

// Dump writes the files of stage s.
func (d *FileDumper) Dump(s optimize.Stage, m *ir.Model) error {
	if d == nil {
		return nil
	}
	write := d.Write
	if write == nil {
		write = func(path string, fill func(io.Writer) error) error { return safefile.Write(path, nil, fill) }
	}
	if d.Text {
		if err := write(filepath.Join(d.Dir, DumpFileName(s.Seq, s.Pass, "wir")), func(w io.Writer) error { return ir.Fprint(w, m) }); err != nil {
			return err
		}
	}
	if d.DOT {
		return write(filepath.Join(d.Dir, DumpFileName(s.Seq, s.Pass, "dot")), func(w io.Writer) error { return WriteDOT(w, m, s.Pass) })
	}
	return nil
}

// DiffDumper keeps, for the passes Focus selects (nil: every pass), a
// unified diff of the IR text before and after the pass, by pass name
// (explain --diff). It must see every stage from the input on, unchanged
// ones included, since each diff starts from the text of the stage before.
// Its methods do nothing on a nil *DiffDumper.
type DiffDumper struct {
	Focus *optimize.PassPattern
	Diffs map[string]string
	prev  string
}

// Dump records the diff of stage s against the stage before.
func (d *DiffDumper) Dump(s optimize.Stage, m *ir.Model) error {
	if d == nil {
		return nil
	}
	var b bytes.Buffer
	if err := ir.Fprint(&b, m); err != nil {
		return err
	}
	if s.Pass != optimize.InputStage && d.Focus.Match(s.Pass) {
		if d.Diffs == nil {
			d.Diffs = map[string]string{}
		}
		d.Diffs[s.Pass] = UnifiedDiff(d.prev, b.String(), "before "+s.Pass, "after "+s.Pass)
	}
	d.prev = b.String()
	return nil
}
