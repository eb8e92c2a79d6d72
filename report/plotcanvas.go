package report

// This file holds the three canvases the scaling plot draws on (SVG, PDF,
// PNG), in place of gonum.org/v1/plot: that package's initialisation
// parses its Liberation fonts, and the PDF writer it links (go-pdf/fpdf)
// registers gob types, ~4-5 ms before main on every wolong command
// (issue 25: `wolong --help` <= 10 ms), for one plot few runs draw.
// Drawing the plot needs lines, dots and text only: SVG and PDF name
// Helvetica (PDF's base-14 font, nothing embedded), PNG uses the 7x13
// bitmap font of golang.org/x/image/font/basicfont.
//
// Coordinates are points (1/72 inch) from the top-left corner.

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

type pt struct{ x, y float64 }

// canvas is what the plot draws with. anchor: 0 start, 0.5 middle, 1 end;
// vertical text reads bottom to top with (x, y) its baseline's middle.
type canvas interface {
	polyline(ps []pt, width float64, c color.RGBA, dashed bool)
	dot(p pt, r float64, c color.RGBA)
	text(p pt, s string, size, anchor float64, vertical bool)
	finish(w io.Writer) error
}

// helveticaWidth estimates s's width in Helvetica at size (PDF needs it to
// centre text; SVG and PNG measure their own).
func helveticaWidth(s string, size float64) float64 { return 0.55 * size * float64(len([]rune(s))) }

type svgCanvas struct {
	b    strings.Builder
	w, h float64
}

func newSVG(w, h float64) *svgCanvas {
	c := &svgCanvas{w: w, h: h}
	fmt.Fprintf(&c.b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%gpt\" height=\"%gpt\" viewBox=\"0 0 %g %g\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", w, h, w, h)
	return c
}

func rgb(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func (c *svgCanvas) polyline(ps []pt, width float64, col color.RGBA, dashed bool) {
	var pts []string
	for _, p := range ps {
		pts = append(pts, fmt.Sprintf("%.2f,%.2f", p.x, p.y))
	}
	dash := ""
	if dashed {
		dash = ` stroke-dasharray="4,3"`
	}
	fmt.Fprintf(&c.b, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%g\"%s/>\n", strings.Join(pts, " "), rgb(col), width, dash)
}

func (c *svgCanvas) dot(p pt, r float64, col color.RGBA) {
	fmt.Fprintf(&c.b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%g\" fill=\"%s\"/>\n", p.x, p.y, r, rgb(col))
}

func (c *svgCanvas) text(p pt, s string, size, anchor float64, vertical bool) {
	a := map[float64]string{0: "start", 0.5: "middle", 1: "end"}[anchor]
	rot := ""
	if vertical {
		rot = fmt.Sprintf(` transform="rotate(-90 %.2f %.2f)"`, p.x, p.y)
	}
	var esc bytes.Buffer
	for _, r := range s {
		switch r {
		case '<':
			esc.WriteString("&lt;")
		case '>':
			esc.WriteString("&gt;")
		case '&':
			esc.WriteString("&amp;")
		default:
			esc.WriteRune(r)
		}
	}
	fmt.Fprintf(&c.b, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"%g\" text-anchor=\"%s\"%s>%s</text>\n", p.x, p.y, size, a, rot, esc.String())
}

func (c *svgCanvas) finish(w io.Writer) error {
	c.b.WriteString("</svg>\n")
	_, err := io.WriteString(w, c.b.String())
	return err
}

// pdfCanvas writes one page whose content stream draws in points with y
// flipped (PDF's origin is the bottom-left corner).
type pdfCanvas struct {
	s    strings.Builder
	w, h float64
}

func newPDF(w, h float64) *pdfCanvas { return &pdfCanvas{w: w, h: h} }

func (c *pdfCanvas) polyline(ps []pt, width float64, col color.RGBA, dashed bool) {
	if len(ps) < 2 {
		return
	}
	dash := "[] 0 d"
	if dashed {
		dash = "[4 3] 0 d"
	}
	fmt.Fprintf(&c.s, "%.3f %.3f %.3f RG %g w %s ", float64(col.R)/255, float64(col.G)/255, float64(col.B)/255, width, dash)
	for i, p := range ps {
		op := "l"
		if i == 0 {
			op = "m"
		}
		fmt.Fprintf(&c.s, "%.2f %.2f %s ", p.x, c.h-p.y, op)
	}
	c.s.WriteString("S\n")
}

func (c *pdfCanvas) dot(p pt, r float64, col color.RGBA) {
	// a circle as four Bézier arcs
	k := 0.5523 * r
	x, y := p.x, c.h-p.y
	fmt.Fprintf(&c.s, "%.3f %.3f %.3f rg %.2f %.2f m %.2f %.2f %.2f %.2f %.2f %.2f c %.2f %.2f %.2f %.2f %.2f %.2f c %.2f %.2f %.2f %.2f %.2f %.2f c %.2f %.2f %.2f %.2f %.2f %.2f c f\n",
		float64(col.R)/255, float64(col.G)/255, float64(col.B)/255,
		x+r, y, x+r, y+k, x+k, y+r, x, y+r, x-k, y+r, x-r, y+k, x-r, y, x-r, y-k, x-k, y-r, x, y-r, x+k, y-r, x+r, y-k, x+r, y)
}

func (c *pdfCanvas) text(p pt, s string, size, anchor float64, vertical bool) {
	var esc strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			esc.WriteString(`\` + string(r))
		case r < 128:
			esc.WriteRune(r)
		case r < 256:
			fmt.Fprintf(&esc, `\%03o`, r) // WinAnsi (Latin-1 range)
		default:
			esc.WriteRune('?')
		}
	}
	off := anchor * helveticaWidth(s, size)
	x, y := p.x, c.h-p.y
	if vertical {
		fmt.Fprintf(&c.s, "0 g BT /F1 %g Tf 0 1 -1 0 %.2f %.2f Tm (%s) Tj ET\n", size, x, y-off, esc.String())
		return
	}
	fmt.Fprintf(&c.s, "0 g BT /F1 %g Tf %.2f %.2f Td (%s) Tj ET\n", size, x-off, y, esc.String())
}

func (c *pdfCanvas) finish(w io.Writer) error {
	var b bytes.Buffer
	var offs []int
	obj := func(body string) {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offs), body)
	}
	b.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>", c.w, c.h))
	content := "1 J 1 j\n" + c.s.String()
	obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content)+1, content))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	_, err := w.Write(b.Bytes())
	return err
}

// pngCanvas rasterises at scale pixels per point: lines as runs of
// round brush stamps, text in the 7x13 bitmap font (its size fixed,
// whatever the size asked).
type pngCanvas struct {
	img   *image.RGBA
	scale float64
}

func newPNG(w, h, dpi float64) *pngCanvas {
	s := dpi / 72
	img := image.NewRGBA(image.Rect(0, 0, int(math.Ceil(w*s)), int(math.Ceil(h*s))))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	return &pngCanvas{img: img, scale: s}
}

func (c *pngCanvas) stamp(x, y, r float64, col color.RGBA) {
	for py := int(math.Floor(y - r)); py <= int(math.Ceil(y+r)); py++ {
		for px := int(math.Floor(x - r)); px <= int(math.Ceil(x+r)); px++ {
			if dx, dy := float64(px)+0.5-x, float64(py)+0.5-y; dx*dx+dy*dy <= r*r+0.25 {
				c.img.SetRGBA(px, py, col)
			}
		}
	}
}

func (c *pngCanvas) polyline(ps []pt, width float64, col color.RGBA, dashed bool) {
	r := math.Max(width*c.scale/2, 0.5)
	along := 0.0 // distance drawn, for the dash pattern (4 on, 3 off, in points)
	for i := 1; i < len(ps); i++ {
		a, b := ps[i-1], ps[i]
		d := math.Hypot(b.x-a.x, b.y-a.y)
		steps := int(math.Ceil(d*c.scale)) + 1
		for k := 0; k <= steps; k++ {
			f := float64(k) / float64(steps)
			if dashed && math.Mod(along+f*d, 7) >= 4 {
				continue
			}
			c.stamp((a.x+f*(b.x-a.x))*c.scale, (a.y+f*(b.y-a.y))*c.scale, r, col)
		}
		along += d
	}
}

func (c *pngCanvas) dot(p pt, r float64, col color.RGBA) {
	c.stamp(p.x*c.scale, p.y*c.scale, r*c.scale, col)
}

func (c *pngCanvas) text(p pt, s string, size, anchor float64, vertical bool) {
	face := basicfont.Face7x13
	wd := font.MeasureString(face, s).Ceil()
	x, y := int(p.x*c.scale), int(p.y*c.scale)
	if !vertical {
		d := font.Drawer{Dst: c.img, Src: image.Black, Face: face, Dot: fixed.P(x-int(anchor*float64(wd)), y)}
		d.DrawString(s)
		return
	}
	// draw horizontally into a scratch image, then copy it turned a
	// quarter counter-clockwise
	tmp := image.NewRGBA(image.Rect(0, 0, wd, 13))
	d := font.Drawer{Dst: tmp, Src: image.Black, Face: face, Dot: fixed.P(0, 10)}
	d.DrawString(s)
	x0, y0 := x-10, y+int(anchor*float64(wd))
	for ty := 0; ty < 13; ty++ {
		for tx := 0; tx < wd; tx++ {
			if _, _, _, a := tmp.At(tx, ty).RGBA(); a > 0 {
				c.img.Set(x0+ty, y0-tx, tmp.At(tx, ty))
			}
		}
	}
}

func (c *pngCanvas) finish(w io.Writer) error { return png.Encode(w, c.img) }
