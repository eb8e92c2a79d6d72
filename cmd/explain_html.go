package cmd

// This file wires `wolong explain --html FILE`: the node list after each
// pass is kept by report.PassRecorder (a dumper the pass driver calls
// with the input and after every pass), and the page is staged with
// explain's other outputs.

import (
	"io"

	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
)

// htmlExplain is explain's --html output; nil when --html is not given.
type htmlExplain struct {
	file string
	rec  *report.PassRecorder
}

// newHTMLExplain checks file can be written (before any work) and
// returns the recorder to chain, or nil without --html.
func newHTMLExplain(out *outputs, file string) (*htmlExplain, error) {
	if file == "" {
		return nil, nil
	}
	if err := out.check("--html", file); err != nil {
		return nil, err
	}
	return &htmlExplain{file: file, rec: report.NewPassRecorder()}, nil
}

// dump adds the recorder to the driver's dumps: the input and every pass,
// unchanged ones too (the page collapses them).
func (h *htmlExplain) dump(ds []optimize.Dump) []optimize.Dump {
	if h == nil {
		return ds
	}
	return append(ds, optimize.Dump{KeepUnchanged: true, To: h.rec})
}

// write stages the page for the optimized run o (its Predicted is the
// final model's simulation: the predictor runs after every pass), opened
// on the pass focus (--pass) with the diffs of --diff.
func (h *htmlExplain) write(out *outputs, path, hardware string, o *pipeline.Optimized, focus string, diffs map[string]string, warnings []string) error {
	if h == nil {
		return nil
	}
	e := report.NewHTMLReport(path, hardware, o.Result, h.rec, o.Predicted, warnings)
	if o.Predicted != nil {
		e.SetWhy(o.BaselineWhy, o.Why(), o.Predicted.Hardware)
	}
	e.Select(focus, diffs)
	return out.write("--html", h.file, func(w io.Writer) error { return report.WriteHTML(w, e) })
}
