package report

// This file implements the scaling plot of `wolong profile --sweep
// --plot`: throughput against GPUs with the linear-scaling line (log-log),
// and scaling efficiency against GPUs, drawn with gonum.org/v1/plot.

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PlotFormats lists the file extensions WriteScalingPlot draws.
func PlotFormats() []string { return []string{"png", "svg", "pdf"} }

// WriteScalingPlot draws s as an image in format (png, svg or pdf): the
// predicted throughput and the ideal linear scaling from one GPU on
// log-log axes above, the scaling efficiency below. Sizes a strategy
// declined are left out (and named in the title).
func WriteScalingPlot(w io.Writer, s *Scaling, format string) error {
	format = strings.ToLower(strings.TrimPrefix(format, "."))
	var pts []int
	for i, p := range s.Points {
		if p.Declined == "" && p.GPUs > 0 && p.Throughput > 0 && !math.IsInf(p.Throughput, 0) && p.Speedup > 0 {
			pts = append(pts, i)
		}
	}
	if len(pts) == 0 {
		return fmt.Errorf("report: scaling plot: no cluster size has a prediction (every size declined)")
	}
	tp, eff, ideal := make(plotter.XYs, len(pts)), make(plotter.XYs, len(pts)), make(plotter.XYs, len(pts))
	one := s.Points[pts[0]].Throughput / s.Points[pts[0]].Speedup // one GPU's samples/s
	for k, i := range pts {
		p := s.Points[i]
		tp[k] = plotter.XY{X: float64(p.GPUs), Y: p.Throughput}
		eff[k] = plotter.XY{X: float64(p.GPUs), Y: p.Efficiency}
		ideal[k] = plotter.XY{X: float64(p.GPUs), Y: one * float64(p.GPUs)}
	}
	minX, maxX := tp[0].X, tp[len(tp)-1].X
	for _, xy := range tp {
		minX, maxX = math.Min(minX, xy.X), math.Max(maxX, xy.X)
	}
	if maxX <= minX {
		minX, maxX = minX/2, maxX*2
	}

	title := fmt.Sprintf("%s on %s over %s (%s, %s, %s)", baseName(s.Model), s.GPU, s.Network, s.Strategy, s.Transport, s.Mode)
	if n := len(s.Points) - len(pts); n > 0 {
		title += fmt.Sprintf(", %d size(s) declined", n)
	}
	top := plot.New()
	top.Title.Text = title
	top.X.Label.Text = "GPUs"
	top.Y.Label.Text = "samples / s (predicted)"
	top.X.Scale, top.Y.Scale = plot.LogScale{}, plot.LogScale{}
	top.X.Tick.Marker, top.Y.Tick.Marker = gpuTicks(tp), plot.LogTicks{Prec: -1}
	top.X.Min, top.X.Max = minX, maxX
	lo, hi := math.Inf(1), 0.0
	for k := range tp {
		lo, hi = math.Min(lo, math.Min(tp[k].Y, ideal[k].Y)), math.Max(hi, math.Max(tp[k].Y, ideal[k].Y))
	}
	if hi <= lo {
		lo, hi = lo/2, hi*2
	}
	top.Y.Min, top.Y.Max = lo, hi
	il, err := plotter.NewLine(ideal)
	if err != nil {
		return fmt.Errorf("report: scaling plot: %v", err)
	}
	il.Color = color.Gray{Y: 140}
	il.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	tl, tpts, err := plotterLinePoints(tp, color.RGBA{R: 31, G: 119, B: 180, A: 255})
	if err != nil {
		return err
	}
	top.Add(plotter.NewGrid(), il, tl, tpts)
	top.Legend.Add("linear scaling from one GPU", il)
	top.Legend.Add("predicted", tl, tpts)
	top.Legend.Top, top.Legend.Left = false, false // lines rise to the upper right
	top.Legend.XOffs, top.Legend.YOffs = -vg.Points(6), vg.Points(6)

	bot := plot.New()
	bot.X.Label.Text = "GPUs"
	bot.Y.Label.Text = "scaling efficiency"
	bot.X.Scale = plot.LogScale{}
	bot.X.Tick.Marker = gpuTicks(tp)
	bot.X.Min, bot.X.Max = minX, maxX
	bot.Y.Min, bot.Y.Max = 0, 1.05
	for _, xy := range eff {
		bot.Y.Max = math.Max(bot.Y.Max, xy.Y*1.05)
	}
	el, epts, err := plotterLinePoints(eff, color.RGBA{R: 214, G: 39, B: 40, A: 255})
	if err != nil {
		return err
	}
	bot.Add(plotter.NewGrid(), el, epts)

	width, height := 8*vg.Inch, 7*vg.Inch
	var cw vg.CanvasWriterTo
	switch format {
	case "png":
		cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(96))}
	case "svg":
		cw = vgsvg.New(width, height)
	case "pdf":
		cw = vgpdf.New(width, height)
	default:
		return fmt.Errorf("report: scaling plot: unknown format %q (want %s)", format, strings.Join(PlotFormats(), ", "))
	}
	dc := draw.New(cw)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12), PadY: vg.Points(12)}
	cv := plot.Align([][]*plot.Plot{{top}, {bot}}, tiles, dc)
	top.Draw(cv[0][0])
	bot.Draw(cv[1][0])
	if _, err := cw.WriteTo(w); err != nil {
		return fmt.Errorf("report: scaling plot: %v", err)
	}
	return nil
}

func plotterLinePoints(xys plotter.XYs, c color.Color) (*plotter.Line, *plotter.Scatter, error) {
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, nil, fmt.Errorf("report: scaling plot: %v", err)
	}
	l.Color = c
	l.Width = vg.Points(1.5)
	s.Color = c
	s.Shape = draw.CircleGlyph{}
	return l, s, nil
}

// baseName is the last element of a slash- or backslash-separated path.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// gpuTicks labels the x axis at the cluster sizes swept.
func gpuTicks(xys plotter.XYs) plot.ConstantTicks {
	var t plot.ConstantTicks
	for _, xy := range xys {
		t = append(t, plot.Tick{Value: xy.X, Label: fmt.Sprint(xy.X)})
	}
	return t
}
