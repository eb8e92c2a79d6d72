package eval

// This file implements RoiAlign (avg and max modes, both coordinate
// transformation modes), following ONNX Runtime's bilinear sampling.

import (
	"math"
)

func registerRoialign() {
	register(kernelRoiAlign, "RoiAlign")
}

func kernelRoiAlign(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, rt, bt := in[0], in[1], in[2]
	bi, err := ints(bt, "batch_indices")
	if err != nil {
		return nil, err
	}
	if x.Rank() != 4 || rt.Rank() != 2 || rt.Shape[1] != 4 || len(bi) != rt.Shape[0] {
		return nil, c.Errorf("X %s, rois %s and batch_indices %s do not fit", x, rt, bt)
	}
	N, C, H, W := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	oh, ow := int(c.Int("output_height", 1)), int(c.Int("output_width", 1))
	sr := int(c.Int("sampling_ratio", 0))
	scale := float64(c.Float("spatial_scale", 1))
	mode := c.Str("mode", "avg")
	if mode != "avg" && mode != "max" {
		return nil, c.Errorf("unknown mode %q", mode)
	}
	halfPixel := c.Opset >= 16 && c.Str("coordinate_transformation_mode", "half_pixel") == "half_pixel"
	offset := 0.0
	if halfPixel {
		offset = 0.5
	}
	R := rt.Shape[0]
	shape := []int{R, C, oh, ow}
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	xf, rf := x.f64(), rt.f64()
	out := make([]float64, R*C*oh*ow)
	for r := 0; r < R; r++ {
		b := int(bi[r])
		if b < 0 || b >= N {
			return nil, c.Errorf("batch index %d out of range", b)
		}
		sw, sh := rf[r*4]*scale-offset, rf[r*4+1]*scale-offset
		ew, eh := rf[r*4+2]*scale-offset, rf[r*4+3]*scale-offset
		rw, rh := ew-sw, eh-sh
		if !halfPixel {
			rw, rh = math.Max(rw, 1), math.Max(rh, 1)
		}
		binH, binW := rh/float64(oh), rw/float64(ow)
		gh, gw := sr, sr
		if sr <= 0 {
			gh, gw = int(math.Ceil(rh/float64(oh))), int(math.Ceil(rw/float64(ow)))
		}
		count := math.Max(float64(gh*gw), 1)
		for ch := 0; ch < C; ch++ {
			img := xf[(b*C+ch)*H*W:]
			for ph := 0; ph < oh; ph++ {
				for pw := 0; pw < ow; pw++ {
					acc := 0.0
					if mode == "max" {
						acc = math.Inf(-1)
					}
					any := false
					for iy := 0; iy < gh; iy++ {
						y := sh + float64(ph)*binH + (float64(iy)+0.5)*binH/float64(gh)
						for ix := 0; ix < gw; ix++ {
							xx := sw + float64(pw)*binW + (float64(ix)+0.5)*binW/float64(gw)
							if y < -1 || y > float64(H) || xx < -1 || xx > float64(W) {
								if mode == "max" {
									acc = math.Max(acc, 0)
									any = true
								}
								continue
							}
							yy, xv := math.Max(y, 0), math.Max(xx, 0)
							yl, xl := int(yy), int(xv)
							var yh, xh int
							if yl >= H-1 {
								yl, yh, yy = H-1, H-1, float64(H-1)
							} else {
								yh = yl + 1
							}
							if xl >= W-1 {
								xl, xh, xv = W-1, W-1, float64(W-1)
							} else {
								xh = xl + 1
							}
							ly, lx := yy-float64(yl), xv-float64(xl)
							hy, hx := 1-ly, 1-lx
							w1, w2, w3, w4 := hy*hx, hy*lx, ly*hx, ly*lx
							v1, v2, v3, v4 := img[yl*W+xl], img[yl*W+xh], img[yh*W+xl], img[yh*W+xh]
							if mode == "avg" {
								acc += w1*v1 + w2*v2 + w3*v3 + w4*v4
							} else {
								acc = math.Max(acc, math.Max(math.Max(w1*v1, w2*v2), math.Max(w3*v3, w4*v4)))
								any = true
							}
						}
					}
					if mode == "avg" {
						acc /= count
					} else if !any {
						acc = 0
					}
					out[((r*C+ch)*oh+ph)*ow+pw] = acc
				}
			}
		}
	}
	return []*Tensor{fromFloat64s(x.DType, shape, out)}, nil
}
