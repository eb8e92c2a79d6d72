package ir

import "testing"

func TestInferConvPool(t *testing.T) {
	f := Float32
	x := cxT(f, "N", 3, 224, 224)
	w := cxT(f, 64, 3, 7, 7)
	cxRunAll(t, []cxCase{
		// (224 + 3 + 3 - 7) / 2 + 1 = 112
		{name: "conv stride pads", op: "Conv", in: []Type{x, w}, attrs: []*Attr{cxAttrIs("strides", 2, 2), cxAttrIs("pads", 3, 3, 3, 3)}, want: []string{"float32[N,64,112,112]"}},
		{name: "conv valid no pads", op: "Conv", in: []Type{cxT(f, 1, 3, 10, 8), cxT(f, 4, 3, 3, 3)}, want: []string{"float32[1,4,8,6]"}},
		// dilation 2: effective kernel 5 -> 10 - 5 + 1 = 6
		{name: "conv dilation", op: "Conv", in: []Type{cxT(f, 1, 3, 10, 10), cxT(f, 4, 3, 3, 3)}, attrs: []*Attr{cxAttrIs("dilations", 2, 2)}, want: []string{"float32[1,4,6,6]"}},
		{name: "conv same_upper", op: "Conv", in: []Type{cxT(f, 1, 3, 11, 10), cxT(f, 4, 3, 3, 3)}, attrs: []*Attr{cxAttrS("auto_pad", "SAME_UPPER"), cxAttrIs("strides", 2, 2)}, want: []string{"float32[1,4,6,5]"}},
		{name: "conv auto valid", op: "Conv", in: []Type{cxT(f, 1, 3, 11, 10), cxT(f, 4, 3, 3, 3)}, attrs: []*Attr{cxAttrS("auto_pad", "VALID"), cxAttrIs("strides", 2, 2)}, want: []string{"float32[1,4,5,4]"}},
		{name: "conv valid kernel too big", op: "Conv", in: []Type{cxT(f, 1, 2, 1, 8), cxT(f, 4, 2, 2, 1)}, attrs: []*Attr{cxAttrS("auto_pad", "VALID")}, want: []string{"float32[1,4,?,8]"}},
		{name: "convtranspose same negative total pad", op: "ConvTranspose", in: []Type{cxT(f, 1, 1, 3, 3), cxT(f, 1, 2, 1, 3)}, attrs: []*Attr{cxAttrIs("strides", 3, 2), cxAttrS("auto_pad", "SAME_UPPER")}, want: []string{"float32[1,2,?,6]"}},
		{name: "conv 1d", op: "Conv", in: []Type{cxT(f, 2, 4, 16), cxT(f, 8, 2, 3)}, attrs: []*Attr{cxAttrI("group", 2), cxAttrIs("pads", 1, 1)}, want: []string{"float32[2,8,16]"}},
		{name: "conv symbolic same size", op: "Conv", in: []Type{cxT(f, "N", 3, "H", "W"), cxT(f, 8, 3, 3, 3)}, attrs: []*Attr{cxAttrIs("pads", 1, 1, 1, 1)}, want: []string{"float32[N,8,H,W]"}},
		{name: "conv symbolic shrink", op: "Conv", in: []Type{cxT(f, "N", 3, "H", 5), cxT(f, 8, 3, 3, 3)}, want: []string{"float32[N,8,H-2,3]"}},
		{name: "conv symbolic stride", op: "Conv", in: []Type{cxT(f, "N", 3, "H", 5), cxT(f, 8, 3, 3, 3)}, attrs: []*Attr{cxAttrIs("strides", 2, 2)}, want: []string{"float32[N,8,(H-3)/2+1,2]"}},
		{name: "conv unknown weight", op: "Conv", in: []Type{x, cxT(f, "*")}, want: []string{"float32[N,?,?,?]"}},
		{name: "conv bad weight rank", op: "Conv", in: []Type{x, cxT(f, 4, 3, 3)}, err: CodeRank},
		{name: "convinteger", op: "ConvInteger", opset: 10, in: []Type{cxT(Uint8, 1, 1, 5, 5), cxT(Uint8, 1, 1, 3, 3)}, want: []string{"int32[1,1,3,3]"}},
		// 2*(3-1) + 3 - 0 = 7; with pads 1,1: 5; output_padding 1: 6
		{name: "convtranspose", op: "ConvTranspose", in: []Type{cxT(f, 1, 1, 3, 3), cxT(f, 1, 2, 3, 3)}, attrs: []*Attr{cxAttrIs("strides", 2, 2)}, want: []string{"float32[1,2,7,7]"}},
		{name: "convtranspose pads outpad", op: "ConvTranspose", in: []Type{cxT(f, 1, 1, 3, 3), cxT(f, 1, 2, 3, 3)}, attrs: []*Attr{cxAttrIs("strides", 2, 2), cxAttrIs("pads", 1, 1, 1, 1), cxAttrIs("output_padding", 1, 1)}, want: []string{"float32[1,2,6,6]"}},
		{name: "convtranspose symbolic", op: "ConvTranspose", in: []Type{cxT(f, "N", 1, "H", "W"), cxT(f, 1, 2, 3, 3)}, attrs: []*Attr{cxAttrIs("strides", 2, 1)}, want: []string{"float32[N,2,2*H+1,W+2]"}},
		{name: "convtranspose group", op: "ConvTranspose", in: []Type{cxT(f, 1, 4, 3), cxT(f, 4, 3, 3)}, attrs: []*Attr{cxAttrI("group", 2)}, want: []string{"float32[1,6,5]"}},
		{name: "convtranspose output_shape", op: "ConvTranspose", in: []Type{cxT(f, 1, 1, 3, 3), cxT(f, 1, 2, 3, 3)}, attrs: []*Attr{cxAttrIs("strides", 3, 2), cxAttrIs("output_shape", 10, 8)}, want: []string{"float32[1,2,10,8]"}},
		{name: "convtranspose same", op: "ConvTranspose", in: []Type{cxT(f, 1, 1, 3, "W"), cxT(f, 1, 2, 3, 3)}, attrs: []*Attr{cxAttrIs("strides", 2, 2), cxAttrS("auto_pad", "SAME_UPPER")}, want: []string{"float32[1,2,6,2*W]"}},
		{name: "maxpool indices", op: "MaxPool", in: []Type{cxT(f, 1, 3, 32, 32)}, attrs: []*Attr{cxAttrIs("kernel_shape", 2, 2), cxAttrIs("strides", 2, 2)}, nout: 2, want: []string{"float32[1,3,16,16]", "int64[1,3,16,16]"}},
		// ceil((32 - 3) / 2) + 1 = 16 vs floor: 15
		{name: "maxpool ceil", op: "MaxPool", in: []Type{cxT(f, 1, 3, 32, 32)}, attrs: []*Attr{cxAttrIs("kernel_shape", 3, 3), cxAttrIs("strides", 2, 2), cxAttrI("ceil_mode", 1)}, want: []string{"float32[1,3,16,16]"}},
		{name: "maxpool floor", op: "MaxPool", in: []Type{cxT(f, 1, 3, 32, 32)}, attrs: []*Attr{cxAttrIs("kernel_shape", 3, 3), cxAttrIs("strides", 2, 2)}, want: []string{"float32[1,3,15,15]"}},
		// ceil((4+1-2)/2)+1 = 3, but the last window would start at 4 >= 4+0... -> 2
		{name: "maxpool ceil last window in pad", op: "MaxPool", in: []Type{cxT(f, 1, 1, 4)}, attrs: []*Attr{cxAttrIs("kernel_shape", 2), cxAttrIs("strides", 2), cxAttrIs("pads", 0, 1), cxAttrI("ceil_mode", 1)}, want: []string{"float32[1,1,2]"}},
		{name: "avgpool same_lower", op: "AveragePool", in: []Type{cxT(f, 1, 3, 5, 5)}, attrs: []*Attr{cxAttrIs("kernel_shape", 3, 3), cxAttrIs("strides", 2, 2), cxAttrS("auto_pad", "SAME_LOWER")}, want: []string{"float32[1,3,3,3]"}},
		{name: "pool missing kernel", op: "AveragePool", in: []Type{cxT(f, 1, 3, 5, 5)}, err: CodeAttr},
		{name: "global pool", op: "GlobalAveragePool", in: []Type{cxT(f, "N", 64, "H", "W")}, want: []string{"float32[N,64,1,1]"}},
		{name: "maxroipool", op: "MaxRoiPool", in: []Type{cxT(f, 1, 8, 20, 20), cxT(f, 5, 5)}, attrs: []*Attr{cxAttrIs("pooled_shape", 2, 3)}, want: []string{"float32[5,8,2,3]"}},
		{name: "roialign", op: "RoiAlign", in: []Type{cxT(f, 1, 8, 20, 20), cxT(f, "R", 4), cxT(Int64, "R")}, attrs: []*Attr{cxAttrI("output_height", 7), cxAttrI("output_width", 7)}, want: []string{"float32[R,8,7,7]"}},
		{name: "roialign rois from batch_indices", op: "RoiAlign", in: []Type{cxT(f, 1, 8, 20, 20), cxT(f, "R", 4), cxT(Int64, 5)}, want: []string{"float32[5,8,1,1]"}},
		{name: "maxunpool", op: "MaxUnpool", in: []Type{cxT(f, 1, 1, 2, 2), cxT(Int64, 1, 1, 2, 2)}, attrs: []*Attr{cxAttrIs("kernel_shape", 2, 2), cxAttrIs("strides", 2, 2)}, want: []string{"float32[1,1,4,4]"}},
		{name: "maxunpool output_shape", op: "MaxUnpool", in: []Type{cxT(f, 1, 1, 2, 2), cxT(Int64, 1, 1, 2, 2)}, consts: []*Tensor{cxInts(false, 1, 1, 5, 5)}, attrs: []*Attr{cxAttrIs("kernel_shape", 2, 2), cxAttrIs("strides", 2, 2)}, want: []string{"float32[1,1,5,5]"}},
		{name: "nhwcconv", op: "NhwcConv", domain: "com.microsoft", in: []Type{cxT(f, "N", 32, 32, 3), cxT(f, 8, 3, 3, 3)}, attrs: []*Attr{cxAttrIs("strides", 2, 2), cxAttrIs("pads", 1, 1, 1, 1)}, want: []string{"float32[N,16,16,8]"}},
		{name: "nhwcmaxpool", op: "NhwcMaxPool", domain: "com.microsoft", in: []Type{cxT(f, "N", 32, 32, 3)}, attrs: []*Attr{cxAttrIs("kernel_shape", 2, 2), cxAttrIs("strides", 2, 2)}, want: []string{"float32[N,16,16,3]"}},
		{name: "crop border", op: "Crop", opset: 7, in: []Type{cxT(f, "N", 64, 200, 100)}, attrs: []*Attr{cxAttrIs("border", 1, 2, 3, 4)}, want: []string{"float32[N,64,194,96]"}},
	})
}

func TestInferNorm(t *testing.T) {
	f := Float32
	x := cxT(f, "N", 8, 4, 4)
	c8 := cxT(f, 8)
	cxRunAll(t, []cxCase{
		{name: "batchnorm", op: "BatchNormalization", opset: 15, in: []Type{x, c8, c8, c8, c8}, want: []string{"float32[N,8,4,4]"}},
		{name: "batchnorm training", op: "BatchNormalization", opset: 15, in: []Type{x, c8, c8, cxT(Float64, 8), cxT(Float64, 8)}, nout: 3, want: []string{"float32[N,8,4,4]", "float64[8]", "float64[8]"}},
		{name: "batchnorm opset9 saved", op: "BatchNormalization", opset: 9, in: []Type{x, c8, c8, c8, c8}, nout: 5, want: []string{"float32[N,8,4,4]", "float32[8]", "float32[8]", "float32[8]", "float32[8]"}},
		{name: "layernorm outputs", op: "LayerNormalization", in: []Type{cxT(Float16, "B", "S", 16), cxT(Float16, 16)}, nout: 3, want: []string{"float16[B,S,16]", "float32[B,S,1]", "float32[B,S,1]"}},
		{name: "layernorm axis", op: "LayerNormalization", in: []Type{cxT(f, 2, 3, 4), cxT(f, 3, 4)}, attrs: []*Attr{cxAttrI("axis", 1), cxAttrI("stash_type", int64(Float64))}, nout: 2, want: []string{"float32[2,3,4]", "float64[2,1,1]"}},
		{name: "layernorm bad axis", op: "LayerNormalization", in: []Type{cxT(f, 2, 3), cxT(f, 3)}, attrs: []*Attr{cxAttrI("axis", 2)}, nout: 2, err: CodeAxis},
		{name: "groupnorm", op: "GroupNormalization", opset: 21, in: []Type{x, c8, c8}, want: []string{"float32[N,8,4,4]"}},
		{name: "instancenorm", op: "InstanceNormalization", in: []Type{x, c8, c8}, want: []string{"float32[N,8,4,4]"}},
		{name: "rmsnorm", op: "RMSNormalization", opset: 23, in: []Type{cxT(f, "B", 16), cxT(f, 16)}, want: []string{"float32[B,16]"}},
		{name: "dropout mask bool", op: "Dropout", opset: 13, in: []Type{x}, nout: 2, want: []string{"float32[N,8,4,4]", "bool[N,8,4,4]"}},
		{name: "dropout mask old", op: "Dropout", opset: 7, in: []Type{x}, nout: 2, want: []string{"float32[N,8,4,4]", "float32[N,8,4,4]"}},
		{name: "lrn", op: "LRN", in: []Type{x}, attrs: []*Attr{cxAttrI("size", 3)}, want: []string{"float32[N,8,4,4]"}},
	})
}

func TestInferSignal(t *testing.T) {
	f := Float32
	cxRunAll(t, []cxCase{
		{name: "hann", op: "HannWindow", consts: []*Tensor{cxInts(true, 10)}, want: []string{"float32[10]"}},
		{name: "hann unknown size", op: "HannWindow", in: []Type{cxT(Int64)}, attrs: []*Attr{cxAttrI("output_datatype", int64(Float64))}, want: []string{"float64[?]"}},
		{name: "mel", op: "MelWeightMatrix", consts: []*Tensor{cxInts(true, 8), cxInts(true, 16), cxInts(true, 8192), (&Tensor{DType: Float32}).SetFloats([]float32{0}), (&Tensor{DType: Float32}).SetFloats([]float32{4096})}, want: []string{"float32[9,8]"}},
		{name: "dft opset17", op: "DFT", opset: 17, in: []Type{cxT(f, 1, 10, 10, 1)}, attrs: []*Attr{cxAttrI("axis", 1), cxAttrI("onesided", 1)}, want: []string{"float32[1,6,10,2]"}},
		{name: "dft irfft", op: "DFT", opset: 19, in: []Type{cxT(f, 1, 6, 10, 2)}, attrs: []*Attr{cxAttrI("inverse", 1), cxAttrI("onesided", 1)}, want: []string{"float32[1,10,10,1]"}},
		{name: "dft axis input", op: "DFT", opset: 20, in: []Type{cxT(f, 1, 10, 10, 1), {}}, consts: []*Tensor{cxInts(true, 2)}, attrs: []*Attr{cxAttrI("onesided", 1)}, want: []string{"float32[1,10,6,2]"}},
		{name: "dft axis unknown full", op: "DFT", opset: 20, in: []Type{cxT(f, 1, 10, 10, 1), {}, cxT(Int64)}, want: []string{"float32[1,10,10,2]"}},
		{name: "dft axis unknown onesided", op: "DFT", opset: 20, in: []Type{cxT(f, 1, 10, 10, 1), {}, cxT(Int64)}, attrs: []*Attr{cxAttrI("onesided", 1)}, want: []string{"float32[?,?,?,2]"}},
		// (128 - 16) / 8 + 1 = 15 frames, 16/2 + 1 = 9 bins
		{name: "stft", op: "STFT", in: []Type{cxT(f, 1, 128, 1)}, consts: []*Tensor{cxInts(true, 8), &Tensor{DType: Float32, Dims: []int64{16}, Raw: make([]byte, 64)}}, want: []string{"float32[1,15,9,2]"}},
	})
}
