package report

// This file implements the scaling plot of `wolong profile --sweep
// --plot`: throughput against GPUs with the linear-scaling line (log-log),
// and scaling efficiency against GPUs, drawn on plotcanvas.go's canvases
// (no plotting library: see there why).

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
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
		return fmt.Errorf("scaling plot: no cluster size has a prediction (every size declined)")
	}
	const width, height = 8 * 72, 7 * 72 // points
	var cv canvas
	switch format {
	case "png":
		cv = newPNG(width, height, 96)
	case "svg":
		cv = newSVG(width, height)
	case "pdf":
		cv = newPDF(width, height)
	default:
		return fmt.Errorf("scaling plot: unknown format %q (want %s)", format, strings.Join(PlotFormats(), ", "))
	}
	tp, eff, ideal := make([]pt, len(pts)), make([]pt, len(pts)), make([]pt, len(pts))
	one := s.Points[pts[0]].Throughput / s.Points[pts[0]].Speedup // one GPU's samples/s
	for k, i := range pts {
		p := s.Points[i]
		tp[k] = pt{float64(p.GPUs), p.Throughput}
		eff[k] = pt{float64(p.GPUs), p.Efficiency}
		ideal[k] = pt{float64(p.GPUs), one * float64(p.GPUs)}
	}
	minX, maxX := tp[0].x, tp[0].x
	lo, hi := math.Inf(1), 0.0
	effMax := 1.05
	for k := range tp {
		minX, maxX = math.Min(minX, tp[k].x), math.Max(maxX, tp[k].x)
		lo, hi = math.Min(lo, math.Min(tp[k].y, ideal[k].y)), math.Max(hi, math.Max(tp[k].y, ideal[k].y))
		effMax = math.Max(effMax, eff[k].y*1.05)
	}
	if maxX <= minX {
		minX, maxX = minX/2, maxX*2
	}
	if hi <= lo {
		lo, hi = lo/2, hi*2
	}
	title := fmt.Sprintf("%s on %s over %s (%s, %s, %s)", baseName(s.Model), s.GPU, s.Network, s.Strategy, s.Transport, s.Mode)
	if n := len(s.Points) - len(pts); n > 0 {
		title += fmt.Sprintf(", %d size(s) declined", n)
	}
	cv.text(pt{width / 2, 18}, title, 11, 0.5, false)
	var xt []float64
	for _, p := range tp {
		xt = append(xt, p.x)
	}
	top := axes{x0: 72, x1: width - 18, y0: 32, y1: 262, xmin: minX, xmax: maxX, ymin: lo, ymax: hi, logY: true}
	top.draw(cv, xt, logTicks(lo, hi), "GPUs", "samples / s (predicted)")
	grey, blue, red := color.RGBA{140, 140, 140, 255}, color.RGBA{31, 119, 180, 255}, color.RGBA{214, 39, 40, 255}
	top.series(cv, ideal, grey, true, false)
	top.series(cv, tp, blue, false, true)
	// legend, lower right (the lines rise to the upper right)
	lx, ly := top.x1-200.0, top.y1-30.0
	cv.polyline([]pt{{lx, ly}, {lx + 24, ly}}, 1, grey, true)
	cv.text(pt{lx + 30, ly + 3.5}, "linear scaling from one GPU", 9, 0, false)
	cv.polyline([]pt{{lx, ly + 14}, {lx + 24, ly + 14}}, 1.5, blue, false)
	cv.dot(pt{lx + 12, ly + 14}, 2.5, blue)
	cv.text(pt{lx + 30, ly + 17.5}, "predicted", 9, 0, false)
	bot := axes{x0: 72, x1: width - 18, y0: 300, y1: height - 46, xmin: minX, xmax: maxX, ymin: 0, ymax: effMax}
	bot.draw(cv, xt, linearTicks(effMax), "GPUs", "scaling efficiency")
	bot.series(cv, eff, red, false, true)
	if err := cv.finish(w); err != nil {
		return fmt.Errorf("scaling plot: %v", err)
	}
	return nil
}

// axes maps data to a panel [x0, x1] x [y0, y1] (points): x on a log
// scale, y on a log or linear one.
type axes struct {
	x0, x1, y0, y1         float64
	xmin, xmax, ymin, ymax float64
	logY                   bool
}

func (a axes) at(x, y float64) pt {
	u := (math.Log(x) - math.Log(a.xmin)) / (math.Log(a.xmax) - math.Log(a.xmin))
	v := (y - a.ymin) / (a.ymax - a.ymin)
	if a.logY {
		v = (math.Log(y) - math.Log(a.ymin)) / (math.Log(a.ymax) - math.Log(a.ymin))
	}
	return pt{a.x0 + u*(a.x1-a.x0), a.y1 - v*(a.y1-a.y0)}
}

// draw draws the grid, the axis lines, the ticks with their labels and
// the axis titles.
func (a axes) draw(cv canvas, xt, yt []float64, xlabel, ylabel string) {
	grid, black := color.RGBA{220, 220, 220, 255}, color.RGBA{0, 0, 0, 255}
	for _, x := range xt {
		p := a.at(x, a.ymin)
		cv.polyline([]pt{{p.x, a.y0}, {p.x, a.y1}}, 0.5, grid, false)
		cv.polyline([]pt{{p.x, a.y1}, {p.x, a.y1 + 4}}, 0.75, black, false)
		cv.text(pt{p.x, a.y1 + 15}, fmt.Sprint(x), 9, 0.5, false)
	}
	for _, y := range yt {
		p := a.at(a.xmin, y)
		cv.polyline([]pt{{a.x0, p.y}, {a.x1, p.y}}, 0.5, grid, false)
		cv.polyline([]pt{{a.x0 - 4, p.y}, {a.x0, p.y}}, 0.75, black, false)
		cv.text(pt{a.x0 - 6, p.y + 3}, tickLabel(y), 9, 1, false)
	}
	cv.polyline([]pt{{a.x0, a.y0}, {a.x0, a.y1}, {a.x1, a.y1}}, 0.75, black, false)
	cv.text(pt{(a.x0 + a.x1) / 2, a.y1 + 30}, xlabel, 10, 0.5, false)
	cv.text(pt{a.x0 - 50, (a.y0 + a.y1) / 2}, ylabel, 10, 0.5, true)
}

// series draws a line through ps, with a dot at each point when dots.
func (a axes) series(cv canvas, ps []pt, c color.RGBA, dashed, dots bool) {
	line := make([]pt, len(ps))
	for i, p := range ps {
		line[i] = a.at(p.x, p.y)
	}
	cv.polyline(line, 1.5, c, dashed)
	if dots {
		for _, p := range line {
			cv.dot(p, 2.5, c)
		}
	}
}

// logTicks are the powers of ten in [lo, hi]; the 1-2-5 series when
// fewer than two are; lo and hi when fewer still.
func logTicks(lo, hi float64) []float64 {
	for _, mults := range [][]float64{{1}, {1, 2, 5}} {
		var t []float64
		for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
			for _, m := range mults {
				if v := m * math.Pow(10, e); v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
					t = append(t, v)
				}
			}
		}
		if len(t) >= 2 {
			return t
		}
	}
	return []float64{lo, hi}
}

// tickLabel writes a tick's value: whole numbers in full below 10^9.
func tickLabel(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// linearTicks are 0, 0.2, 0.4, ... up to max (steps of 0.5 past 2).
func linearTicks(max float64) []float64 {
	step := 0.2
	if max > 2 {
		step = 0.5
	}
	var t []float64
	for k := 0; float64(k)*step <= max+1e-9; k++ {
		t = append(t, math.Round(float64(k)*step*10)/10)
	}
	return t
}

// baseName is the last element of a slash- or backslash-separated path.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
