package eval

// This file implements Resize and Upsample: nearest, linear and cubic
// interpolation, applied separably one axis at a time, with every ONNX
// coordinate transformation mode and antialiasing.

import (
	"math"
)

func registerResize() {
	register(kernelResize, "Resize")
	register(kernelUpsample, "Upsample")
}

// tap is one input contribution to an output position along an axis.
type tap struct {
	idx int
	w   float64
}

type resizeSpec struct {
	mode, coord, nearest string
	cubicA               float64
	excludeOutside       bool
	antialias            bool
	extrapolation        float64
}

// axisTaps computes, for every output index along one axis, the input taps
// and whether the position lies outside the input (tf_crop_and_resize).
func (r *resizeSpec) axisTaps(in, out int, scale float64, roiStart, roiEnd float64) ([][]tap, []bool) {
	taps := make([][]tap, out)
	outside := make([]bool, out)
	outF := scale * float64(in) // the reference uses the unrounded length
	for o := 0; o < out; o++ {
		x := float64(o)
		var xo float64
		switch r.coord {
		case "half_pixel":
			xo = (x+0.5)/scale - 0.5
		case "half_pixel_symmetric":
			ow := scale * float64(in)
			adj := float64(out) / ow
			center := float64(in) / 2
			xo = center*(1-adj) + (x+0.5)/scale - 0.5
		case "pytorch_half_pixel":
			xo = -0.5
			if outF != 1 {
				xo = (x+0.5)/scale - 0.5
			}
		case "align_corners":
			if outF != 1 {
				xo = x * float64(in-1) / (outF - 1)
			}
		case "asymmetric":
			xo = x / scale
		case "tf_crop_and_resize":
			if outF != 1 {
				xo = roiStart*float64(in-1) + x*(roiEnd-roiStart)*float64(in-1)/(outF-1)
			} else {
				xo = 0.5 * (roiStart + roiEnd) * float64(in-1)
			}
			if xo < 0 || xo > float64(in-1) {
				outside[o] = true
			}
		}
		clampI := func(i int) int { return max(0, min(in-1, i)) }
		switch r.mode {
		case "nearest":
			var i float64
			switch r.nearest {
			case "round_prefer_ceil":
				i = math.Floor(xo + 0.5)
			case "floor":
				i = math.Floor(xo)
			case "ceil":
				i = math.Ceil(xo)
			default: // round_prefer_floor
				if xo-math.Floor(xo) == 0.5 {
					i = math.Floor(xo)
				} else {
					i = math.Round(xo)
				}
			}
			taps[o] = []tap{{clampI(int(i)), 1}}
		case "linear", "cubic":
			if r.antialias && scale < 1 {
				taps[o] = r.antialiasTaps(xo, in, scale)
				continue
			}
			x0 := math.Floor(xo)
			t := xo - x0
			var ws []float64
			var offs []int
			if r.mode == "linear" {
				ws, offs = []float64{1 - t, t}, []int{0, 1}
			} else {
				a := r.cubicA
				ws = []float64{
					((a*(t+1)-5*a)*(t+1)+8*a)*(t+1) - 4*a,
					((a+2)*t-(a+3))*t*t + 1,
					((a+2)*(1-t)-(a+3))*(1-t)*(1-t) + 1,
					((a*(2-t)-5*a)*(2-t)+8*a)*(2-t) - 4*a,
				}
				offs = []int{-1, 0, 1, 2}
			}
			sum := 0.0
			var tp []tap
			for k, off := range offs {
				i := int(x0) + off
				if r.excludeOutside && (i < 0 || i >= in) {
					continue
				}
				tp = append(tp, tap{clampI(i), ws[k]})
				sum += ws[k]
			}
			if r.excludeOutside && sum != 0 {
				for k := range tp {
					tp[k].w /= sum
				}
			}
			taps[o] = tp
		}
	}
	return taps, outside
}

// antialiasTaps widens the interpolation kernel by 1/scale when
// downscaling, as the ONNX reference does: the taps are the input indices
// nearest to xo (edge-clamped), weighted by the kernel at (i-xo)*scale and
// normalized.
func (r *resizeSpec) antialiasTaps(xo float64, in int, scale float64) []tap {
	xl := math.Floor(xo)
	if xo == xl {
		xl-- // the reference prefers the pixel left of xo: ratio in (0, 1]
	}
	var start int
	if r.mode == "linear" {
		start = int(math.Floor(-1/scale)) + 1
	} else {
		start = int(math.Floor(-2/scale)) + 1
	}
	n := 2 - 2*start
	a := r.cubicA
	var tp []tap
	sum := 0.0
	for j := 0; j < n; j++ {
		i := int(xl) + start + j
		d := math.Abs(float64(i)-xo) * scale
		var w float64
		if r.mode == "linear" {
			w = math.Max(0, 1-d)
		} else {
			switch {
			case d <= 1:
				w = (a+2)*d*d*d - (a+3)*d*d + 1
			case d < 2:
				w = a*d*d*d - 5*a*d*d + 8*a*d - 4*a
			}
		}
		if r.excludeOutside && (i < 0 || i >= in) {
			w = 0
		}
		tp = append(tp, tap{max(0, min(in-1, i)), w})
		sum += w
	}
	for k := range tp {
		tp[k].w /= sum
	}
	return tp
}

// resizeAxis applies taps along axis of data (shape), returning new data.
func resizeAxis(data []float64, shape []int, axis int, taps [][]tap) ([]float64, []int) {
	outer, n, inner := numel(shape[:axis]), shape[axis], numel(shape[axis+1:])
	m := len(taps)
	out := make([]float64, outer*m*inner)
	for o := 0; o < outer; o++ {
		for j, tp := range taps {
			dst := out[(o*m+j)*inner : (o*m+j+1)*inner]
			for _, t := range tp {
				src := data[(o*n+t.idx)*inner : (o*n+t.idx+1)*inner]
				for i := range dst {
					dst[i] += t.w * src[i]
				}
			}
		}
	}
	ns := append([]int{}, shape...)
	ns[axis] = m
	return out, ns
}

func kernelUpsample(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	var scales []float64
	if a, ok := c.Floats("scales"); ok {
		for _, s := range a {
			scales = append(scales, float64(s))
		}
	} else {
		st, err := need(in, 1, "scales")
		if err != nil {
			return nil, err
		}
		scales = st.f64()
	}
	mode := c.Str("mode", "nearest")
	if mode == "bilinear" {
		mode = "linear"
	}
	spec := &resizeSpec{mode: mode, coord: "asymmetric", nearest: "floor", cubicA: -0.75}
	return resizeWith(c, x, spec, scales, nil, nil, nil)
}

func kernelResize(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	var err error
	spec := &resizeSpec{
		mode:           c.Str("mode", "nearest"),
		coord:          c.Str("coordinate_transformation_mode", "half_pixel"),
		nearest:        c.Str("nearest_mode", "round_prefer_floor"),
		cubicA:         float64(c.Float("cubic_coeff_a", -0.75)),
		excludeOutside: c.Int("exclude_outside", 0) != 0,
		antialias:      c.Int("antialias", 0) != 0,
		extrapolation:  float64(c.Float("extrapolation_value", 0)),
	}
	var roi, scales []float64
	var sizes []int64
	if c.Opset < 11 {
		st, err := need(in, 1, "scales")
		if err != nil {
			return nil, err
		}
		scales = st.f64()
		spec.coord = "asymmetric"
		spec.nearest = "floor"
	} else {
		if len(in) > 1 && in[1] != nil {
			roi = in[1].f64()
		}
		if len(in) > 2 && in[2] != nil && in[2].Len() > 0 {
			scales = in[2].f64()
		}
		if len(in) > 3 && in[3] != nil && in[3].Len() > 0 {
			if sizes, err = ints(in[3], "sizes"); err != nil {
				return nil, err
			}
		}
	}
	axes, _, err := axesAttr(c, x.Rank())
	if err != nil {
		return nil, err
	}
	return resizeWith(c, x, spec, scales, sizes, roi, axes)
}

func resizeWith(c *Ctx, x *Tensor, spec *resizeSpec, scales []float64, sizes []int64, roi []float64, axes []int) ([]*Tensor, error) {
	r := x.Rank()
	if axes == nil {
		for i := 0; i < r; i++ {
			axes = append(axes, i)
		}
	}
	k := len(axes)
	full := make([]float64, r)
	outShape := append([]int{}, x.Shape...)
	for i := range full {
		full[i] = 1
	}
	switch {
	case sizes != nil:
		if len(sizes) != k {
			return nil, c.Errorf("sizes %v do not match %d axes", sizes, k)
		}
		policy := c.Str("keep_aspect_ratio_policy", "stretch")
		if policy != "stretch" {
			s := math.Inf(1)
			if policy == "not_smaller" {
				s = math.Inf(-1)
			}
			for i, ax := range axes {
				v := float64(sizes[i]) / float64(x.Shape[ax])
				if policy == "not_larger" {
					s = math.Min(s, v)
				} else {
					s = math.Max(s, v)
				}
			}
			for _, ax := range axes {
				full[ax] = s
				outShape[ax] = int(math.Floor(float64(x.Shape[ax])*s + 0.5))
			}
		} else {
			for i, ax := range axes {
				if sizes[i] < 0 {
					return nil, c.Errorf("negative size %d", sizes[i])
				}
				outShape[ax] = int(sizes[i])
				full[ax] = float64(sizes[i]) / float64(x.Shape[ax])
			}
		}
	case scales != nil:
		if len(scales) != k {
			return nil, c.Errorf("scales %v do not match %d axes", scales, k)
		}
		for i, ax := range axes {
			if scales[i] <= 0 {
				return nil, c.Errorf("scale %g must be positive", scales[i])
			}
			full[ax] = scales[i]
			outShape[ax] = int(math.Floor(float64(x.Shape[ax]) * scales[i]))
		}
	default:
		return nil, c.Errorf("neither scales nor sizes given")
	}
	switch spec.mode {
	case "nearest", "linear", "cubic":
	default:
		return nil, c.Errorf("unknown mode %q", spec.mode)
	}
	switch spec.coord {
	case "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize":
	default:
		return nil, c.Errorf("unknown coordinate_transformation_mode %q", spec.coord)
	}
	out, err := c.alloc(x.DType, outShape)
	if err != nil {
		return nil, err
	}
	data := x.f64()
	if data == nil || x.cls() == clsB {
		return nil, c.Errorf("X must be numeric, got %s", x)
	}
	shape := append([]int{}, x.Shape...)
	var outsideAxes map[int][]bool // per axis: output positions outside the input
	for ai := 0; ai < r; ai++ {
		if outShape[ai] == x.Shape[ai] && full[ai] == 1 && spec.coord != "tf_crop_and_resize" {
			continue
		}
		rs, re := 0.0, 1.0
		if spec.coord == "tf_crop_and_resize" {
			pos := -1
			for i, ax := range axes {
				if ax == ai {
					pos = i
				}
			}
			if pos < 0 {
				continue
			}
			if len(roi) != 2*k {
				return nil, c.Errorf("roi %v does not match %d axes", roi, k)
			}
			rs, re = roi[pos], roi[pos+k]
		}
		taps, outside := spec.axisTaps(shape[ai], outShape[ai], full[ai], rs, re)
		data, shape = resizeAxis(data, shape, ai, taps)
		for _, o := range outside {
			if o {
				if outsideAxes == nil {
					outsideAxes = map[int][]bool{}
				}
				outsideAxes[ai] = outside
				break
			}
		}
	}
	// tf_crop_and_resize: a point outside the input on any axis takes the
	// extrapolation value.
	if outsideAxes != nil {
		forEachIndex(shape, func(k int, ix []int) {
			for ax, o := range outsideAxes {
				if o[ix[ax]] {
					data[k] = spec.extrapolation
					return
				}
			}
		})
	}
	if len(data) != out.Len() {
		return nil, c.Errorf("internal error: resize produced %d elements for %v", len(data), outShape)
	}
	for i, v := range data {
		switch out.cls() {
		case clsI:
			lo, hi := intRange(out.DType)
			out.I[i] = int64(math.Max(lo, math.Min(hi, math.RoundToEven(v))))
		default:
			out.setF(i, v)
		}
	}
	return []*Tensor{out}, nil
}
