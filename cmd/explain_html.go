package cmd

// This file wires `wolong explain --html FILE`: the node list after each
// pass is kept by report.PassRecorder (chained onto explain's OnPass
// hook), and the page is staged with explain's other outputs.

import (
	"io"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
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

// hook wraps onPass so the recorder sees every pass too.
func (h *htmlExplain) hook(onPass func(string, *ir.Model) error) func(string, *ir.Model) error {
	if h == nil {
		return onPass
	}
	return func(name string, m *ir.Model) error {
		if err := h.rec.Record(name, m); err != nil {
			return err
		}
		return onPass(name, m)
	}
}

// write stages the page for p's run res (the predictor's last simulation
// is the optimized model's: it predicts after every pass).
func (h *htmlExplain) write(out *outputs, path string, p *pipeline, res *optimize.Result) error {
	if h == nil {
		return nil
	}
	e := report.NewHTMLReport(path, p.hw.Name, res, h.rec, p.pred.last, p.warnings)
	return out.write("--html", h.file, func(w io.Writer) error { return report.WriteHTML(w, e) })
}
