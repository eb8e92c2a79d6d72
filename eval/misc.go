package eval

// This file implements assorted ops: BitCast, Det, Unique, the signal
// windows, NonMaxSuppression, the experimental image ops (ImageScaler,
// Crop, Affine) and the string ops (StringConcat, StringSplit,
// StringNormalizer, RegexFullMatch).

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/wolong-dev/wolong/ir"
)

func registerMisc() {
	register(kernelBitCast, "BitCast")
	register(kernelDet, "Det")
	register(kernelUnique, "Unique")
	register(windowKernel(func(n, d float64) float64 { return 0.5 - 0.5*math.Cos(2*math.Pi*n/d) }), "HannWindow")
	register(windowKernel(func(n, d float64) float64 {
		a := 25.0 / 46
		return a - (1-a)*math.Cos(2*math.Pi*n/d)
	}), "HammingWindow")
	register(windowKernel(func(n, d float64) float64 {
		return 0.42 - 0.5*math.Cos(2*math.Pi*n/d) + 0.08*math.Cos(4*math.Pi*n/d)
	}), "BlackmanWindow")
	register(kernelNMS, "NonMaxSuppression")
	register(kernelImageScaler, "ImageScaler")
	register(kernelCrop, "Crop")
	register(unaryFloatC(func(c *Ctx) func(float64) float64 {
		a, b := float64(c.Float("alpha", 1)), float64(c.Float("beta", 0))
		return func(x float64) float64 { return a*x + b }
	}), "Affine")
	register(kernelStringConcat, "StringConcat")
	register(kernelStringSplit, "StringSplit")
	register(kernelStringNormalizer, "StringNormalizer")
	register(kernelRegexFullMatch, "RegexFullMatch")
}

func kernelBitCast(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	a := c.Attr("to")
	if a == nil {
		return nil, c.Errorf("missing attribute to")
	}
	to := ir.DType(a.I)
	if classOf(to) == clsBad || to == ir.String || x.DType == ir.String || to.Bits() < 8 || x.DType.Bits() < 8 {
		return nil, c.unsupported("bitcast %s to %s", x.DType, to)
	}
	it, err := x.ToIR("")
	if err != nil {
		return nil, err
	}
	from, dst := x.DType.Bits()/8, to.Bits()/8
	dims := append([]int64{}, it.Dims...)
	switch {
	case dst < from:
		dims = append(dims, int64(from/dst))
	case dst > from:
		if len(dims) == 0 || dims[len(dims)-1] != int64(dst/from) {
			return nil, c.Errorf("last dim of %s must be %d to bitcast to %s", x, dst/from, to)
		}
		dims = dims[:len(dims)-1]
	}
	it.DType, it.Dims = to, dims
	out, err := FromIR(it, c.e.opt.MaxMemory)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelDet(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	r := x.Rank()
	if r < 2 || x.Shape[r-1] != x.Shape[r-2] {
		return nil, c.Errorf("X must be a batch of square matrices, got %s", x)
	}
	n := x.Shape[r-1]
	f := x.f64()
	nb := numel(x.Shape[:r-2])
	res := make([]float64, nb)
	a := make([]float64, n*n)
	for b := 0; b < nb; b++ {
		copy(a, f[b*n*n:(b+1)*n*n])
		det := 1.0
		for col := 0; col < n; col++ {
			p := col
			for i := col + 1; i < n; i++ {
				if math.Abs(a[i*n+col]) > math.Abs(a[p*n+col]) {
					p = i
				}
			}
			if a[p*n+col] == 0 {
				det = 0
				break
			}
			if p != col {
				for j := 0; j < n; j++ {
					a[p*n+j], a[col*n+j] = a[col*n+j], a[p*n+j]
				}
				det = -det
			}
			det *= a[col*n+col]
			for i := col + 1; i < n; i++ {
				m := a[i*n+col] / a[col*n+col]
				for j := col; j < n; j++ {
					a[i*n+j] -= m * a[col*n+j]
				}
			}
		}
		res[b] = det
	}
	return []*Tensor{fromFloat64s(x.DType, append([]int{}, x.Shape[:r-2]...), res)}, nil
}

// elemLess orders two elements of the same tensor.
func elemLess(t *Tensor, i, j int) int {
	switch t.cls() {
	case clsS:
		return strings.Compare(t.S[i], t.S[j])
	case clsI:
		return cmpInt(t.DType, t.I[i], t.I[j])
	}
	return cmpFloat(t.Float64s1(i), t.Float64s1(j))
}

func kernelUnique(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	var err error
	sorted := c.Int("sorted", 1) != 0
	var outer, n, inner int
	axisAttr := c.Attr("axis")
	axis := 0
	if axisAttr == nil {
		x = x.reshaped([]int{x.Len()})
	} else if axis, err = normAxis(axisAttr.I, x.Rank()); err != nil {
		return nil, err
	}
	outer, n, inner = numel(x.Shape[:axis]), x.Shape[axis], numel(x.Shape[axis+1:])
	// cmpSlice compares slices a and b along axis.
	cmpSlice := func(a, b int) int {
		for o := 0; o < outer; o++ {
			for i := 0; i < inner; i++ {
				if r := elemLess(x, (o*n+a)*inner+i, (o*n+b)*inner+i); r != 0 {
					return r
				}
			}
		}
		return 0
	}
	var firsts []int // first occurrence of each unique slice, in order of appearance
	inverse := make([]int64, n)
	counts := []int64{}
	for k := 0; k < n; k++ {
		found := -1
		for u, f := range firsts {
			if cmpSlice(f, k) == 0 {
				found = u
				break
			}
		}
		if found < 0 {
			found = len(firsts)
			firsts = append(firsts, k)
			counts = append(counts, 0)
		}
		inverse[k] = int64(found)
		counts[found]++
	}
	order := make([]int, len(firsts))
	for i := range order {
		order[i] = i
	}
	if sorted {
		sort.SliceStable(order, func(a, b int) bool { return cmpSlice(firsts[order[a]], firsts[order[b]]) < 0 })
	}
	rank := make([]int64, len(order))
	pos := make([]int, len(order))
	idx := make([]int64, len(order))
	cnt := make([]int64, len(order))
	for newPos, u := range order {
		rank[u] = int64(newPos)
		pos[newPos] = firsts[u]
		idx[newPos] = int64(firsts[u])
		cnt[newPos] = counts[u]
	}
	for k := range inverse {
		inverse[k] = rank[inverse[k]]
	}
	y, err := c.gatherAxis(x, axis, pos)
	if err != nil {
		return nil, err
	}
	return []*Tensor{y, NewInt64([]int{len(idx)}, idx), NewInt64([]int{n}, inverse), NewInt64([]int{len(cnt)}, cnt)}, nil
}

func windowKernel(f func(n, d float64) float64) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		st := in[0]
		sz, err := scalarFloat(st, "size")
		if err != nil {
			return nil, err
		}
		n := int(sz)
		if n < 0 {
			return nil, c.Errorf("negative size")
		}
		dt := ir.DType(c.Int("output_datatype", int64(ir.Float32)))
		out, err := c.alloc(dt, []int{n})
		if err != nil {
			return nil, err
		}
		d := float64(n)
		if c.Int("periodic", 1) == 0 {
			d = float64(n - 1)
		}
		for i := 0; i < n; i++ {
			v := f(float64(i), d)
			switch out.cls() {
			case clsI:
				out.I[i] = int64(v)
			case clsF, clsD:
				out.setF(i, v)
			default:
				return nil, c.Errorf("output type %s", dt)
			}
		}
		return []*Tensor{out}, nil
	}
}

func kernelNMS(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	boxes, scores := in[0], in[1]
	if boxes.Rank() != 3 || boxes.Shape[2] != 4 || scores.Rank() != 3 || scores.Shape[0] != boxes.Shape[0] || scores.Shape[2] != boxes.Shape[1] {
		return nil, c.Errorf("boxes %s and scores %s do not fit", boxes, scores)
	}
	maxOut := int64(0)
	if len(in) > 2 && in[2] != nil && in[2].Len() > 0 {
		v, err := ints(in[2], "max_output_boxes_per_class")
		if err != nil {
			return nil, err
		}
		maxOut = v[0]
	}
	iouT, scoreT := 0.0, math.Inf(-1)
	if len(in) > 3 && in[3] != nil && in[3].Len() > 0 {
		iouT = in[3].f64()[0]
	}
	if len(in) > 4 && in[4] != nil && in[4].Len() > 0 {
		scoreT = in[4].f64()[0]
	}
	center := c.Int("center_point_box", 0) != 0
	nb, nc, nbox := scores.Shape[0], scores.Shape[1], scores.Shape[2]
	bf, sf := boxes.f64(), scores.f64()
	corners := func(b, i int) (y1, x1, y2, x2 float64) {
		p := bf[(b*nbox+i)*4:]
		if center {
			xc, yc, w, h := p[0], p[1], p[2], p[3]
			return yc - h/2, xc - w/2, yc + h/2, xc + w/2
		}
		return math.Min(p[0], p[2]), math.Min(p[1], p[3]), math.Max(p[0], p[2]), math.Max(p[1], p[3])
	}
	iou := func(b, i, j int) float64 {
		ay1, ax1, ay2, ax2 := corners(b, i)
		by1, bx1, by2, bx2 := corners(b, j)
		ih := math.Max(0, math.Min(ay2, by2)-math.Max(ay1, by1))
		iw := math.Max(0, math.Min(ax2, bx2)-math.Max(ax1, bx1))
		inter := ih * iw
		union := (ay2-ay1)*(ax2-ax1) + (by2-by1)*(bx2-bx1) - inter
		if union <= 0 {
			return 0
		}
		return inter / union
	}
	var sel []int64
	for b := 0; b < nb; b++ {
		for cl := 0; cl < nc; cl++ {
			var cand []int
			for i := 0; i < nbox; i++ {
				if sf[(b*nc+cl)*nbox+i] > scoreT {
					cand = append(cand, i)
				}
			}
			sort.SliceStable(cand, func(p, q int) bool {
				return sf[(b*nc+cl)*nbox+cand[p]] > sf[(b*nc+cl)*nbox+cand[q]]
			})
			var kept []int
			for _, i := range cand {
				if int64(len(kept)) >= maxOut {
					break
				}
				ok := true
				for _, k := range kept {
					if iou(b, i, k) > iouT {
						ok = false
						break
					}
				}
				if ok {
					kept = append(kept, i)
					sel = append(sel, int64(b), int64(cl), int64(i))
				}
			}
		}
	}
	return []*Tensor{NewInt64([]int{len(sel) / 3, 3}, sel)}, nil
}

func kernelImageScaler(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.Rank() < 2 {
		return nil, c.Errorf("input must have rank >= 2")
	}
	scale := float64(c.Float("scale", 1))
	bias, _ := c.Floats("bias")
	ch := x.Shape[1]
	if len(bias) != 0 && len(bias) != ch {
		return nil, c.Errorf("bias has %d values for %d channels", len(bias), ch)
	}
	sp := numel(x.Shape[2:])
	f := x.f64()
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	for i, v := range f {
		b := 0.0
		if len(bias) > 0 {
			b = float64(bias[(i/sp)%ch])
		}
		out.setF(i, v*scale+b)
	}
	return []*Tensor{out}, nil
}

func kernelCrop(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.Rank() != 4 {
		return nil, c.Errorf("input must be 4-D, got %s", x)
	}
	border, _ := c.Ints("border")
	if len(border) != 4 {
		return nil, c.Errorf("border must have 4 values")
	}
	left, top, right, bottom := int(border[0]), int(border[1]), int(border[2]), int(border[3])
	h, w := x.Shape[2], x.Shape[3]
	bl, rl := h-bottom, w-right
	if sc, ok := c.Ints("scale"); ok && len(sc) == 2 {
		bl, rl = top+int(sc[0]), left+int(sc[1])
	}
	if top < 0 || left < 0 || bl > h || rl > w || bl < top || rl < left {
		return nil, c.Errorf("crop window out of range")
	}
	t, err := c.sliceAxis(x, 2, top, bl-top)
	if err != nil {
		return nil, err
	}
	t, err = c.sliceAxis(t, 3, left, rl-left)
	if err != nil {
		return nil, err
	}
	return []*Tensor{t}, nil
}

func kernelStringConcat(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	a, b, out, ia, ib, err := binaryAlloc(c, in, true, ir.Undefined)
	if err != nil {
		return nil, err
	}
	for k := range out.S {
		out.S[k] = a.S[at(ia, k)] + b.S[at(ib, k)]
	}
	return []*Tensor{out}, nil
}

func kernelStringSplit(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	delim := c.Str("delimiter", "")
	maxSplit := int(c.Int("maxsplit", -1))
	parts := make([][]string, x.Len())
	width := 0
	for i, s := range x.S {
		var p []string
		if delim == "" {
			p = strings.FieldsFunc(s, unicode.IsSpace)
			if maxSplit >= 0 && len(p) > maxSplit+1 {
				// Re-split keeping the remainder after maxsplit fields.
				rest := strings.TrimLeftFunc(s, unicode.IsSpace)
				p = nil
				for k := 0; k < maxSplit; k++ {
					j := strings.IndexFunc(rest, unicode.IsSpace)
					p = append(p, rest[:j])
					rest = strings.TrimLeftFunc(rest[j:], unicode.IsSpace)
				}
				p = append(p, rest)
			}
		} else {
			n := -1
			if maxSplit >= 0 {
				n = maxSplit + 1
			}
			p = strings.SplitN(s, delim, n)
		}
		parts[i] = p
		width = max(width, len(p))
	}
	shape := append(append([]int{}, x.Shape...), width)
	out, err := c.alloc(ir.String, shape)
	if err != nil {
		return nil, err
	}
	counts, err := c.alloc(ir.Int64, x.Shape)
	if err != nil {
		return nil, err
	}
	for i, p := range parts {
		copy(out.S[i*width:], p)
		counts.I[i] = int64(len(p))
	}
	return []*Tensor{out, counts}, nil
}

func kernelStringNormalizer(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.cls() != clsS || x.Rank() > 2 || x.Rank() == 2 && x.Shape[0] != 1 {
		return nil, c.Errorf("X must be strings of shape [C] or [1,C], got %s", x)
	}
	action := c.Str("case_change_action", "NONE")
	sensitive := c.Int("is_case_sensitive", 0) != 0
	stop, _ := c.Strs("stopwords")
	stopSet := map[string]bool{}
	for _, s := range stop {
		if !sensitive {
			s = strings.ToLower(s)
		}
		stopSet[s] = true
	}
	var kept []string
	for _, s := range x.S {
		k := s
		if !sensitive {
			k = strings.ToLower(s)
		}
		if stopSet[k] {
			continue
		}
		switch action {
		case "LOWER":
			s = strings.ToLower(s)
		case "UPPER":
			s = strings.ToUpper(s)
		}
		kept = append(kept, s)
	}
	if len(kept) == 0 {
		kept = []string{""}
	}
	shape := []int{len(kept)}
	if x.Rank() == 2 {
		shape = []int{1, len(kept)}
	}
	return []*Tensor{{DType: ir.String, Shape: shape, S: kept}}, nil
}

func kernelRegexFullMatch(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	re, err := regexp.Compile("^(?:" + c.Str("pattern", "") + ")$")
	if err != nil {
		return nil, c.unsupported("pattern %q is not RE2 syntax: %v", c.Str("pattern", ""), err)
	}
	out, err := c.alloc(ir.Bool, x.Shape)
	if err != nil {
		return nil, err
	}
	for i, s := range x.S {
		out.B[i] = re.MatchString(s)
	}
	return []*Tensor{out}, nil
}
