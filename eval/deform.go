package eval

// This file implements DeformConv (2-D deformable convolution with
// optional modulation mask), after torchvision's deform_conv2d.

import (
	"math"
)

func registerDeform() {
	register(kernelDeformConv, "DeformConv")
}

// bilinearZero samples img (h x w) at (y, x) with zero outside.
func bilinearZero(img []float64, h, w int, y, x float64) float64 {
	if y <= -1 || y >= float64(h) || x <= -1 || x >= float64(w) {
		return 0
	}
	y0, x0 := int(math.Floor(y)), int(math.Floor(x))
	ly, lx := y-float64(y0), x-float64(x0)
	at := func(i, j int) float64 {
		if i < 0 || i >= h || j < 0 || j >= w {
			return 0
		}
		return img[i*w+j]
	}
	return (1-ly)*(1-lx)*at(y0, x0) + (1-ly)*lx*at(y0, x0+1) + ly*(1-lx)*at(y0+1, x0) + ly*lx*at(y0+1, x0+1)
}

func kernelDeformConv(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, wt, off := in[0], in[1], in[2]
	if x.Rank() != 4 || wt.Rank() != 4 || off.Rank() != 4 {
		return nil, c.unsupported("only 2-D deformable convolution")
	}
	N, C, H, W := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	M, kh, kw := wt.Shape[0], wt.Shape[2], wt.Shape[3]
	group := int(c.Int("group", 1))
	og := int(c.Int("offset_group", 1))
	if group <= 0 || og <= 0 || C%group != 0 || M%group != 0 || wt.Shape[1] != C/group || C%og != 0 {
		return nil, c.Errorf("W %s does not fit X %s with group %d, offset_group %d", wt, x, group, og)
	}
	g, err := windowGeometry(c, []int{H, W}, []int{kh, kw}, false)
	if err != nil {
		return nil, err
	}
	oh, ow := g.out[0], g.out[1]
	K := kh * kw
	if off.Shape[0] != N || off.Shape[1] != og*2*K || off.Shape[2] != oh || off.Shape[3] != ow {
		return nil, c.Errorf("offset %s does not fit (%d,%d,%d,%d)", off, N, og*2*K, oh, ow)
	}
	var mask []float64
	if m := optIn(in, 4); m != nil {
		if m.Len() != N*og*K*oh*ow {
			return nil, c.Errorf("mask %s does not fit", m)
		}
		mask = m.f64()
	}
	var bias []float64
	if b := optIn(in, 3); b != nil {
		if b.Len() != M {
			return nil, c.Errorf("B %s does not match %d output channels", b, M)
		}
		bias = b.f64()
	}
	shape := []int{N, M, oh, ow}
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	xf, wf, of := x.f64(), wt.f64(), off.f64()
	cg, mg, cpo := C/group, M/group, C/og
	P := oh * ow
	out := make([]float64, N*M*P)
	// Sampled columns per image: [C*K, P].
	col := make([]float64, C*K*P)
	for n := 0; n < N; n++ {
		for ch := 0; ch < C; ch++ {
			o := ch / cpo
			img := xf[(n*C+ch)*H*W:]
			for ki := 0; ki < kh; ki++ {
				for kj := 0; kj < kw; kj++ {
					k := ki*kw + kj
					for i := 0; i < oh; i++ {
						for j := 0; j < ow; j++ {
							p := i*ow + j
							dy := of[((n*og+o)*2*K+2*k)*P+p]
							dx := of[((n*og+o)*2*K+2*k+1)*P+p]
							y := float64(i*g.stride[0]-g.padB[0]+ki*g.dil[0]) + dy
							xx := float64(j*g.stride[1]-g.padB[1]+kj*g.dil[1]) + dx
							v := bilinearZero(img, H, W, y, xx)
							if mask != nil {
								v *= mask[((n*og+o)*K+k)*P+p]
							}
							col[(ch*K+k)*P+p] = v
						}
					}
				}
			}
		}
		for gi := 0; gi < group; gi++ {
			for m := 0; m < mg; m++ {
				oc := gi*mg + m
				dst := out[(n*M+oc)*P:]
				for ci := 0; ci < cg; ci++ {
					ch := gi*cg + ci
					for k := 0; k < K; k++ {
						w := wf[(oc*cg+ci)*K+k]
						src := col[(ch*K+k)*P:]
						for p := 0; p < P; p++ {
							dst[p] += w * src[p]
						}
					}
				}
				if bias != nil {
					for p := 0; p < P; p++ {
						dst[p] += bias[oc]
					}
				}
			}
		}
	}
	return []*Tensor{fromFloat64s(x.DType, shape, out)}, nil
}
