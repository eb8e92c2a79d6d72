package modelgen

// This file generates the calibration suite's front ends and small heads:
// op families the rest of the suite measures one op at a time, here in the
// order small audio and vision models run them, at shapes drawn from
// ranges (issue 29: generated from op families and shape ranges, never
// from a validation model):
//
//   - a log-mel front end with the short-time Fourier transform as a
//     strided 1-D Conv (real and imaginary kernels as output channels),
//     power (Mul, Add), a Transpose, a mel MatMul, a floor (Max), Log and
//     a scale: signal lengths 0.05-0.25 s at 16 kHz, FFT sizes 256-512,
//     hops 128-160, 32-64 mel bands;
//   - the same with the transform as a MatMul on frames cut by Slice,
//     Reshape and Concat (half-overlapping), windowed (Mul), magnitude by
//     Sqrt;
//   - small classifier CNNs: 3x3 Conv (+ BatchNormalization in one),
//     Relu, MaxPool stages, GlobalAveragePool, Flatten, a Gemm to a few
//     classes and Softmax, at spectrogram-like and image-strip inputs;
//   - LayerNorm heads: Flatten, Gemm, LayerNormalization, Relu stacks
//     ending in a one-unit Gemm and Sigmoid;
//   - tiny op chains: a small MatMul, bias Add, Sigmoid gate, Mul,
//     ReduceMean and Sub repeated on [1, 48] and [1, 96] rows.
//
// The ops are the ones a one-thread runtime pays per call for on models of
// tens of microseconds to a millisecond, mixed as no single-op chain mixes
// them (different weights and shapes node to node).

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// frontSuite adds the front ends and small heads.
func frontSuite(add func(group, name string, two bool, m *ir.Model)) {
	for _, f := range []struct{ samples, nfft, hop, mels int64 }{
		{800, 256, 128, 32}, {2400, 400, 160, 40}, {4000, 512, 160, 64},
	} {
		add("front", fmt.Sprintf("melconv_%d_n%d_h%d_m%d", f.samples, f.nfft, f.hop, f.mels), false, melConv(f.samples, f.nfft, f.hop, f.mels))
	}
	for _, f := range []struct{ frames, hop, mels int64 }{
		{6, 128, 32}, {15, 160, 40}, {24, 256, 64},
	} {
		add("front", fmt.Sprintf("melmatmul_%dx%d_m%d", f.frames, 2*f.hop, f.mels), false, melMatMul(f.frames, f.hop, f.mels))
	}
	for _, c := range []struct{ ch, h, w, width, classes int64 }{
		{1, 40, 98, 16, 12}, {3, 32, 128, 16, 4}, {3, 64, 64, 24, 10},
	} {
		add("front", fmt.Sprintf("cls_%dx%dx%d_w%d_c%d", c.ch, c.h, c.w, c.width, c.classes), false, smallClassifier(c.ch, c.h, c.w, c.width, c.classes, c.ch == 3 && c.h == 64))
	}
	for _, h := range []struct{ t, d, hidden int64 }{{8, 64, 48}, {24, 128, 80}} {
		add("front", fmt.Sprintf("lnhead_%dx%d_h%d", h.t, h.d, h.hidden), false, lnHead(h.t, h.d, h.hidden))
	}
	for _, c := range []struct{ width, blocks int64 }{{48, 6}, {96, 12}} {
		add("front", fmt.Sprintf("tinymix_%dx%d", c.width, c.blocks), false, tinyMix(c.width, c.blocks))
	}
}

// logMel is the end of a log-mel front end over a [1, frames, bins] power
// spectrum: the mel MatMul, a floor, Log and a dB scale.
func (b *Builder) logMel(pow *ir.Value, bins, mels int64) *ir.Value {
	m := b.Op("MatMul", []*ir.Value{pow, b.Weight("mel", bins, mels)})
	m = b.Op("Max", []*ir.Value{m, b.ConstF("floor", nil, 1e-10)})
	m = b.Op("Log", []*ir.Value{m})
	return b.Op("Mul", []*ir.Value{m, b.ConstF("db", nil, 4.3429448)})
}

// melConv is a log-mel front end whose Fourier transform is a strided
// Conv over the [1, samples] signal: nfft/2+1 real and as many imaginary
// kernels of nfft taps, stride hop.
func melConv(samples, nfft, hop, mels int64) *ir.Model {
	b := New(fmt.Sprintf("melconv_%d_%d_%d_%d", samples, nfft, hop, mels), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(samples))
	bins := nfft/2 + 1
	s := b.Op("Unsqueeze", []*ir.Value{x, b.ConstI("ax1", []int64{1}, 1)})
	s = b.Op("Pad", []*ir.Value{s, b.ConstI("pads", []int64{6}, 0, 0, nfft/2, 0, 0, nfft/2)}, Str("mode", "reflect"))
	spec := b.Op("Conv", []*ir.Value{s, b.Weight("dft", 2*bins, 1, nfft)}, Ints("kernel_shape", nfft), Ints("strides", hop))
	re := b.Op("Slice", []*ir.Value{spec, b.ConstI("re.st", []int64{1}, 0), b.ConstI("re.en", []int64{1}, bins), b.ConstI("re.ax", []int64{1}, 1)})
	im := b.Op("Slice", []*ir.Value{spec, b.ConstI("im.st", []int64{1}, bins), b.ConstI("im.en", []int64{1}, 2*bins), b.ConstI("im.ax", []int64{1}, 1)})
	pow := b.Op("Add", []*ir.Value{b.Op("Mul", []*ir.Value{re, re}), b.Op("Mul", []*ir.Value{im, im})})
	pow = b.Op("Transpose", []*ir.Value{pow}, Ints("perm", 0, 2, 1))
	return b.outputY(b.logMel(pow, bins, mels))
}

// melMatMul is a log-mel front end whose Fourier transform is a MatMul
// over frames of 2*hop samples cut half-overlapping from a [1,
// (frames+1)*hop] signal (two Slices, Reshapes and a Concat), windowed,
// with the magnitude by Sqrt.
func melMatMul(frames, hop, mels int64) *ir.Model {
	b := New(fmt.Sprintf("melmatmul_%d_%d_%d", frames, hop, mels), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int((frames+1)*hop))
	nfft, bins := 2*hop, hop+1
	shape := b.ConstI("frames", []int64{3}, 1, frames, hop)
	lo := b.Op("Slice", []*ir.Value{x, b.ConstI("lo.st", []int64{1}, 0), b.ConstI("lo.en", []int64{1}, frames*hop), b.ConstI("lo.ax", []int64{1}, 1)})
	hi := b.Op("Slice", []*ir.Value{x, b.ConstI("hi.st", []int64{1}, hop), b.ConstI("hi.en", []int64{1}, (frames+1)*hop), b.ConstI("hi.ax", []int64{1}, 1)})
	fr := b.Op("Concat", []*ir.Value{b.Op("Reshape", []*ir.Value{lo, shape}), b.Op("Reshape", []*ir.Value{hi, shape})}, Int("axis", 2))
	fr = b.Op("Mul", []*ir.Value{fr, b.Weight("window", nfft)})
	spec := b.Op("MatMul", []*ir.Value{fr, b.Weight("dft", nfft, 2*bins)})
	parts := b.OpN("Split", 2, []*ir.Value{spec, b.ConstI("split", []int64{2}, bins, bins)}, Int("axis", 2))
	pow := b.Op("Add", []*ir.Value{b.Op("Mul", []*ir.Value{parts[0], parts[0]}), b.Op("Mul", []*ir.Value{parts[1], parts[1]})})
	return b.outputY(b.logMel(b.Op("Sqrt", []*ir.Value{pow}), bins, mels))
}

// smallClassifier is a three-stage CNN classifier: per stage a 3x3 Conv
// (with a bias, or without one and a BatchNormalization when bn), Relu
// and a 2x2 MaxPool, channels doubling; then GlobalAveragePool, Flatten,
// a Gemm to the classes and Softmax.
func smallClassifier(ch, h, w, width, classes int64, bn bool) *ir.Model {
	b := New(fmt.Sprintf("cls_%d_%d_%d_%d_%d", ch, h, w, width, classes), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(ch), int(h), int(w))
	c := ch
	for stage := int64(0); stage < 3; stage++ {
		out := width << stage
		if bn {
			x = b.convBN(x, c, out, 3, 1, 1)
		} else {
			x = b.Op("Conv", []*ir.Value{x, b.Weight(fmt.Sprintf("conv%d.w", stage), out, c, 3, 3), b.Weight(fmt.Sprintf("conv%d.b", stage), out)},
				Ints("kernel_shape", 3, 3), Ints("pads", 1, 1, 1, 1))
		}
		x = b.Op("Relu", []*ir.Value{x})
		x = b.Op("MaxPool", []*ir.Value{x}, Ints("kernel_shape", 2, 2), Ints("strides", 2, 2))
		c = out
	}
	return b.outputY(b.Op("Softmax", []*ir.Value{b.poolFC(x, c, classes)}, Int("axis", -1)))
}

// lnHead is a classifier head over [1, t, d] features: Flatten, then two
// Gemm + LayerNormalization + Relu layers of hidden units, a one-unit Gemm
// and Sigmoid.
func lnHead(t, d, hidden int64) *ir.Model {
	b := New(fmt.Sprintf("lnhead_%d_%d_%d", t, d, hidden), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(t), int(d))
	h := b.Op("Flatten", []*ir.Value{x}, Int("axis", 1))
	in := t * d
	for i := 0; i < 2; i++ {
		h = b.Op("Gemm", []*ir.Value{h, b.Weight(fmt.Sprintf("fc%d.w", i), hidden, in), b.Weight(fmt.Sprintf("fc%d.b", i), hidden)}, Int("transB", 1))
		h = b.Op("LayerNormalization", []*ir.Value{h, b.Weight(fmt.Sprintf("ln%d.g", i), hidden), b.Weight(fmt.Sprintf("ln%d.b", i), hidden)}, Int("axis", -1))
		h = b.Op("Relu", []*ir.Value{h})
		in = hidden
	}
	h = b.Op("Gemm", []*ir.Value{h, b.Weight("out.w", 1, hidden), b.Weight("out.b", 1)}, Int("transB", 1))
	return b.outputY(b.Op("Sigmoid", []*ir.Value{h}))
}

// tinyMix repeats a block of small kernels of different kinds on a [1,
// width] row: MatMul, bias Add, a Sigmoid gate multiplied in, and the
// row's mean subtracted.
func tinyMix(width, blocks int64) *ir.Model {
	b := New(fmt.Sprintf("tinymix_%d_%d", width, blocks), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(width))
	for i := int64(0); i < blocks; i++ {
		y := b.Op("MatMul", []*ir.Value{h, b.Weight(fmt.Sprintf("w%d", i), width, width)})
		y = b.Op("Add", []*ir.Value{y, b.Weight(fmt.Sprintf("b%d", i), width)})
		y = b.Op("Mul", []*ir.Value{y, b.Op("Sigmoid", []*ir.Value{y})})
		m := b.Op("ReduceMean", []*ir.Value{y}, Ints("axes", 1), Int("keepdims", 1))
		h = b.Op("Sub", []*ir.Value{y, m})
	}
	return b.outputY(h)
}
