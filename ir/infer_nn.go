package ir

// This file implements inference for neural-network operators:
// convolutions, pooling, normalizations, Dropout and LRN.
//
// Spatial output sizes follow the ONNX convolution / pooling formulas.
// A symbolic input size gives a symbolic expression ("H+2", "(H-3)/2+1")
// where the arithmetic is exact, and an unknown dim otherwise (ceil-mode
// pooling, for one).

// cxAddConst returns d+off for a possibly negative offset.
func cxAddConst(d Dim, off int64) Dim {
	if off >= 0 {
		return DimAdd(d, D(off))
	}
	if d.IsConcrete() && d.Val+off < 0 {
		return Unknown()
	}
	return DimSub(d, D(-off))
}

// cxMaxWindowAttr bounds kernel, stride, dilation and pad values so that
// window arithmetic cannot overflow.
const cxMaxWindowAttr = 1 << 30

// cxWindowParams are the per-spatial-axis window attributes.
type cxWindowParams struct {
	kernel, strides, dilations, padBegin, padEnd []int64
	autoPad                                      string
	ceil                                         bool
}

// cxWindow reads kernel_shape (or the given kernel), strides, dilations,
// pads and auto_pad for n spatial axes.
func cxWindow(c *InferContext, n int, kernel []int64) (*cxWindowParams, error) {
	p := &cxWindowParams{autoPad: c.AttrString("auto_pad", "NOTSET"), ceil: c.AttrInt("ceil_mode", 0) != 0}
	if k, ok := c.AttrInts("kernel_shape"); ok {
		kernel = k
	}
	if len(kernel) != n {
		return nil, errorf(CodeAttr, "kernel has %d dims, want %d", len(kernel), n)
	}
	for _, k := range kernel {
		if k <= 0 || k > cxMaxWindowAttr {
			return nil, errorf(CodeAttr, "kernel_shape %v: values must be in 1..%d", kernel, cxMaxWindowAttr)
		}
	}
	p.kernel = kernel
	ones := func(name string) ([]int64, error) {
		v, ok := c.AttrInts(name)
		if !ok || len(v) == 0 {
			v = make([]int64, n)
			for i := range v {
				v[i] = 1
			}
		}
		if len(v) != n {
			return nil, errorf(CodeAttr, "%s has %d values, want %d", name, len(v), n)
		}
		for _, x := range v {
			if x <= 0 || x > cxMaxWindowAttr {
				return nil, errorf(CodeAttr, "%s %v: values must be in 1..%d", name, v, cxMaxWindowAttr)
			}
		}
		return v, nil
	}
	var err error
	if p.strides, err = ones("strides"); err != nil {
		return nil, err
	}
	if p.dilations, err = ones("dilations"); err != nil {
		return nil, err
	}
	p.padBegin, p.padEnd = make([]int64, n), make([]int64, n)
	if pads, ok := c.AttrInts("pads"); ok && len(pads) > 0 && (p.autoPad == "NOTSET" || p.autoPad == "") {
		if len(pads) != 2*n {
			return nil, errorf(CodeAttr, "pads has %d values, want %d", len(pads), 2*n)
		}
		for _, x := range pads {
			if x < -cxMaxWindowAttr || x > cxMaxWindowAttr {
				return nil, errorf(CodeAttr, "pads %v: values must be within ±%d", pads, cxMaxWindowAttr)
			}
		}
		copy(p.padBegin, pads[:n])
		copy(p.padEnd, pads[n:])
	}
	return p, nil
}

// cxWindowOut is the output size of axis i for an input of size in
// (convolution and pooling).
func (p *cxWindowParams) out(i int, in Dim) Dim {
	k, s, d := p.kernel[i], p.strides[i], p.dilations[i]
	ek := d*(k-1) + 1
	switch p.autoPad {
	case "SAME_UPPER", "SAME_LOWER":
		return DimCeilDiv(in, D(s))
	case "VALID":
		// ceil((in - ek + 1) / s); a window larger than the input is invalid.
		if in.IsConcrete() && in.Val < ek {
			return Unknown()
		}
		return DimCeilDiv(cxAddConst(in, 1-ek), D(s))
	}
	pads := p.padBegin[i] + p.padEnd[i]
	if in.IsConcrete() {
		num := in.Val + pads - ek
		if num < 0 {
			return Unknown()
		}
		o := num/s + 1
		if p.ceil {
			o = (num+s-1)/s + 1
			// The last window must start inside the input or left pad.
			if (o-1)*s >= in.Val+p.padBegin[i] {
				o--
			}
		}
		return D(o)
	}
	if in.IsUnknown() || (p.ceil && s != 1) {
		return Unknown()
	}
	x := cxAddConst(in, pads-ek)
	if s == 1 {
		return cxAddConst(in, pads-ek+1)
	}
	return DimAdd(DimDiv(x, D(s)), D(1))
}

// cxSpatialRank returns the number of spatial axes from X's rank, W's rank
// or kernel_shape, in that order; -1 when none is known.
func cxSpatialRank(c *InferContext, x Shape, w Shape) int {
	switch {
	case x.Known:
		return len(x.Dims) - 2
	case w.Known:
		return len(w.Dims) - 2
	}
	if k, ok := c.AttrInts("kernel_shape"); ok {
		return len(k)
	}
	return -1
}

// cxConvShape computes Conv's output shape from X (input xi) and W (input
// wi): [N, M, out...].
func cxConvShape(c *InferContext, xi, wi int) (Shape, error) {
	x, w := c.InShape(xi), c.InShape(wi)
	n := cxSpatialRank(c, x, w)
	if n < 0 {
		return UnknownShape(), nil
	}
	if n < 0 || (x.Known && len(x.Dims) < 2) {
		return UnknownShape(), errorf(CodeRank, "input rank %d, want >= 2", x.Rank())
	}
	if w.Known && len(w.Dims) != n+2 {
		return UnknownShape(), errorf(CodeRank, "weight rank %d, want %d", len(w.Dims), n+2)
	}
	kernel := cxWeightKernel(w, n)
	out := RankShape(n + 2)
	if x.Known {
		out.Dims[0] = x.Dims[0]
	}
	if w.Known {
		out.Dims[1] = w.Dims[0]
	}
	if _, ok := c.AttrInts("kernel_shape"); !ok && kernel == nil {
		return out, nil
	}
	p, err := cxWindow(c, n, kernel)
	if err != nil {
		return UnknownShape(), err
	}
	if x.Known {
		for i := 0; i < n; i++ {
			out.Dims[2+i] = p.out(i, x.Dims[2+i])
		}
	}
	return out, nil
}

// Conv(X, W[, B]).
func inferConv(c *InferContext) error {
	s, err := cxConvShape(c, 0, 1)
	if err != nil {
		return err
	}
	c.SetTensor(0, c.InDType(0), s)
	return nil
}

// ConvInteger(x, w[, x_zero_point, w_zero_point]) -> int32.
func inferConvInteger(c *InferContext) error {
	s, err := cxConvShape(c, 0, 1)
	if err != nil {
		return err
	}
	c.SetTensor(0, Int32, s)
	return nil
}

// DeformConv(X, W, offset[, B, mask]).
func inferDeformConv(c *InferContext) error { return inferConv(c) }

// ConvTranspose(X, W[, B]): [N, W[1]*group, out...] with
// out = stride*(in-1) + output_padding + dilation*(k-1) + 1 - pads, or the
// output_shape attribute.
func inferConvTranspose(c *InferContext) error {
	x, w := c.InShape(0), c.InShape(1)
	dt := c.InDType(0)
	n := cxSpatialRank(c, x, w)
	if n < 0 {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	if w.Known && len(w.Dims) != n+2 {
		return errorf(CodeRank, "ConvTranspose: weight rank %d, want %d", len(w.Dims), n+2)
	}
	out := RankShape(n + 2)
	if x.Known {
		out.Dims[0] = x.Dims[0]
	}
	if w.Known {
		out.Dims[1] = DimMul(w.Dims[1], D(c.AttrInt("group", 1)))
	}
	if os, ok := c.AttrInts("output_shape"); ok && len(os) > 0 {
		if len(os) == n+2 {
			os = os[2:]
		}
		if len(os) != n {
			return errorf(CodeAttr, "ConvTranspose: output_shape has %d values, want %d", len(os), n)
		}
		for i, v := range os {
			if v < 0 {
				return errorf(CodeAttr, "ConvTranspose: negative output_shape %v", os)
			}
			out.Dims[2+i] = D(v)
		}
		c.SetTensor(0, dt, out)
		return nil
	}
	kernel := cxWeightKernel(w, n)
	if _, ok := c.AttrInts("kernel_shape"); (!ok && kernel == nil) || !x.Known {
		c.SetTensor(0, dt, out)
		return nil
	}
	p, err := cxWindow(c, n, kernel)
	if err != nil {
		return wrapf(err, "ConvTranspose")
	}
	opad, ok := c.AttrInts("output_padding")
	if !ok || len(opad) == 0 {
		opad = make([]int64, n)
	}
	if len(opad) != n {
		return errorf(CodeAttr, "ConvTranspose: output_padding has %d values, want %d", len(opad), n)
	}
	for _, v := range opad {
		if v < 0 || v > cxMaxWindowAttr {
			return errorf(CodeAttr, "ConvTranspose: output_padding %v out of range", opad)
		}
	}
	for i := 0; i < n; i++ {
		in := x.Dims[2+i]
		s := p.strides[i]
		ek := p.dilations[i]*(p.kernel[i]-1) + 1
		if p.autoPad == "SAME_UPPER" || p.autoPad == "SAME_LOWER" {
			// The spec pads to in*stride; that needs a total padding of
			// s*(in-1) + output_padding + ek - in*s = output_padding + ek - s
			// >= 0. Runtimes disagree when it is negative: leave it unknown.
			if opad[i]+ek-s < 0 {
				out.Dims[2+i] = Unknown()
			} else {
				out.Dims[2+i] = DimMul(in, D(s))
			}
			continue
		}
		// s*(in-1) + c, written s*in + (c-s) so symbolic dims read "2*W+1".
		if in.IsConcrete() && in.Val < 1 {
			out.Dims[2+i] = Unknown()
			continue
		}
		out.Dims[2+i] = cxAddConst(DimMul(in, D(s)), opad[i]+ek-p.padBegin[i]-p.padEnd[i]-s)
	}
	c.SetTensor(0, dt, out)
	return nil
}

// cxPoolShape is [N, C, out...] for a pooling op on input xi.
func cxPoolShape(c *InferContext, xi int) (Shape, error) {
	x := c.InShape(xi)
	k, ok := c.AttrInts("kernel_shape")
	if !x.Known {
		if ok {
			return RankShape(len(k) + 2), nil
		}
		return UnknownShape(), nil
	}
	if len(x.Dims) < 2 {
		return UnknownShape(), errorf(CodeRank, "input rank %d, want >= 2", len(x.Dims))
	}
	n := len(x.Dims) - 2
	if !ok {
		return UnknownShape(), errorf(CodeAttr, "missing kernel_shape")
	}
	p, err := cxWindow(c, n, k)
	if err != nil {
		return UnknownShape(), err
	}
	out := x.Clone()
	for i := 0; i < n; i++ {
		out.Dims[2+i] = p.out(i, x.Dims[2+i])
	}
	return out, nil
}

// MaxPool / AveragePool / LpPool(X) -> Y[, Indices int64].
func inferPool(c *InferContext) error {
	s, err := cxPoolShape(c, 0)
	if err != nil {
		return err
	}
	c.SetTensor(0, c.InDType(0), s)
	c.SetTensor(1, Int64, s.Clone())
	return nil
}

// cxGlobalPoolShape is [N, C, 1, ...].
func cxGlobalPoolShape(x Shape) (Shape, error) {
	if !x.Known {
		return UnknownShape(), nil
	}
	if len(x.Dims) < 2 {
		return UnknownShape(), errorf(CodeRank, "input rank %d, want >= 2", len(x.Dims))
	}
	out := x.Clone()
	for i := 2; i < len(out.Dims); i++ {
		out.Dims[i] = D(1)
	}
	return out, nil
}

// GlobalAveragePool / GlobalMaxPool / GlobalLpPool(X).
func inferGlobalPool(c *InferContext) error {
	s, err := cxGlobalPoolShape(c.InShape(0))
	if err != nil {
		return err
	}
	c.SetTensor(0, c.InDType(0), s)
	return nil
}

// cxRoiShape is [num_rois, C, h, w].
func cxRoiShape(c *InferContext, h, w int64) Shape {
	x, rois := c.InShape(0), c.InShape(1)
	out := DimsShape(Unknown(), Unknown(), D(h), D(w))
	if rois.Known && len(rois.Dims) == 2 {
		out.Dims[0] = rois.Dims[0]
	}
	// RoiAlign's batch_indices has one entry per roi.
	if bi := c.InShape(2); c.Node.Op == "RoiAlign" && !out.Dims[0].IsConcrete() && cxRankIs(bi, 1) && !bi.Dims[0].IsUnknown() {
		out.Dims[0] = bi.Dims[0]
	}
	if x.Known && len(x.Dims) == 4 {
		out.Dims[1] = x.Dims[1]
	}
	return out
}

// MaxRoiPool(X, rois) pooled_shape=[h, w].
func inferMaxRoiPool(c *InferContext) error {
	ps, ok := c.AttrInts("pooled_shape")
	if !ok || len(ps) != 2 {
		return errorf(CodeAttr, "MaxRoiPool: pooled_shape must have 2 values")
	}
	c.SetTensor(0, c.InDType(0), cxRoiShape(c, ps[0], ps[1]))
	return nil
}

// RoiAlign(X, rois, batch_indices) output_height=1 output_width=1.
func inferRoiAlign(c *InferContext) error {
	c.SetTensor(0, c.InDType(0), cxRoiShape(c, c.AttrInt("output_height", 1), c.AttrInt("output_width", 1)))
	return nil
}

// MaxUnpool(X, I[, output_shape]).
func inferMaxUnpool(c *InferContext) error {
	dt := c.InDType(0)
	if c.HasInput(2) {
		if k, ok := c.Known(2); ok {
			c.SetTensor(0, dt, DimsShape(k...))
			return nil
		}
		if s := c.InShape(2); s.IsStatic() && len(s.Dims) == 1 {
			c.SetTensor(0, dt, RankShape(int(s.Dims[0].Val)))
			return nil
		}
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	x := c.InShape(0)
	k, p, err := cxPoolWindow(c, x, dt)
	if p == nil {
		return wrapErr("MaxUnpool", err)
	}
	out := x.Clone()
	for i := range k {
		in := x.Dims[2+i]
		if in.IsConcrete() && in.Val < 1 {
			out.Dims[2+i] = Unknown()
			continue
		}
		out.Dims[2+i] = cxAddConst(DimMul(in, D(p.strides[i])), k[i]-p.padBegin[i]-p.padEnd[i]-p.strides[i])
	}
	c.SetTensor(0, dt, out)
	return nil
}

// cxPoolWindow reads a pool's kernel_shape and window attributes for
// input x. When x's rank is unknown, there is no kernel_shape or it does
// not fit x's rank, it sets output 0 to an unknown shape of dt and
// returns a nil window and no error; a bad window attribute is an error
// (nil window).
func cxPoolWindow(c *InferContext, x Shape, dt DType) ([]int64, *cxWindowParams, error) {
	k, ok := c.AttrInts("kernel_shape")
	if !x.Known || !ok || len(x.Dims) != len(k)+2 {
		c.SetTensor(0, dt, UnknownShape())
		return nil, nil, nil
	}
	p, err := cxWindow(c, len(k), k)
	return k, p, err
}

// wrapErr prefixes a non-nil err with op, keeping its code; nil stays nil.
func wrapErr(op string, err error) error {
	if err != nil {
		return wrapf(err, "%s", op)
	}
	return nil
}

// Dropout(data[, ratio, training_mode]) -> output[, mask]: the mask is
// bool from opset 10, the data type before.
func inferDropout(c *InferContext) error {
	cxSameAs(c, 0, 0)
	mt := Bool
	if c.Opset < 10 {
		mt = c.InDType(0)
	}
	c.SetTensor(1, mt, c.InShape(0).Clone())
	return nil
}

// BatchNormalization(X, scale, B, mean, var) -> Y[, running_mean,
// running_var] (and saved_mean, saved_var before opset 14).
func inferBatchNorm(c *InferContext) error {
	cxSameAs(c, 0, 0)
	for i := 1; i < c.NumOutputs() && i <= 4; i++ {
		src := 3 + (i-1)%2
		if c.Opset < 7 && c.AttrInt("spatial", 1) == 0 {
			c.SetTensor(i, c.InDType(src), UnknownShape())
			continue
		}
		cxSameAs(c, i, src)
	}
	return nil
}

// cxStatShape is X's shape with the dims from axis on set to 1 (the shape
// of LayerNormalization's Mean and InvStdDev).
func cxStatShape(x Shape, axis int64) (Shape, error) {
	if !x.Known {
		return UnknownShape(), nil
	}
	a, err := cxNormAxis(axis, len(x.Dims))
	if err != nil {
		return UnknownShape(), err
	}
	out := x.Clone()
	for i := a; i < len(out.Dims); i++ {
		out.Dims[i] = D(1)
	}
	return out, nil
}

// LayerNormalization(X, Scale[, B]) axis=-1 stash_type=1 -> Y[, Mean,
// InvStdDev]. SimplifiedLayerNormalization (onnxruntime) has Y[,
// InvStdDev].
func inferLayerNorm(c *InferContext) error {
	cxSameAs(c, 0, 0)
	if c.NumOutputs() < 2 {
		return nil
	}
	s, err := cxStatShape(c.InShape(0), c.AttrInt("axis", -1))
	if err != nil {
		return err
	}
	st := DType(c.AttrInt("stash_type", 1))
	if !st.Valid() {
		st = Float32
	}
	for i := 1; i < c.NumOutputs(); i++ {
		c.SetTensor(i, st, s.Clone())
	}
	return nil
}

// Crop(input) border=[left, top, right, bottom] scale=[h, w] (ai.onnx
// experimental, opset 1): NCHW cropped by the border, or to the scale.
func inferCrop(c *InferContext) error {
	x, dt, ok := knownInput0(c)
	if !ok {
		return nil
	}
	if len(x.Dims) != 4 {
		return errorf(CodeRank, "Crop: input rank %d, want 4", len(x.Dims))
	}
	out := x.Clone()
	if sc, ok := c.AttrInts("scale"); ok && len(sc) == 2 {
		out.Dims[2], out.Dims[3] = D(sc[0]), D(sc[1])
	} else {
		b, ok := c.AttrInts("border")
		if !ok || len(b) != 4 {
			return errorf(CodeAttr, "Crop: border must have 4 values")
		}
		for _, v := range b {
			if v < 0 || v > cxMaxWindowAttr {
				return errorf(CodeAttr, "Crop: border %v out of range", b)
			}
		}
		out.Dims[2] = cxAddConst(x.Dims[2], -(b[1] + b[3]))
		out.Dims[3] = cxAddConst(x.Dims[3], -(b[0] + b[2]))
	}
	c.SetTensor(0, dt, out)
	return nil
}

// CausalConvWithState(input [B, C, L], weight [C, 1, K][, bias,
// past_state]) (opset 27) -> output [B, C, L], present_state [B, C, K-1].
func inferCausalConvWithState(c *InferContext) error {
	x, w := c.InShape(0), c.InShape(1)
	dt := c.InDType(0)
	if !x.Known {
		c.SetTensor(0, dt, UnknownShape())
	} else {
		out := x.Clone()
		if w.Known && len(w.Dims) >= 1 && len(out.Dims) >= 2 {
			out.Dims[1] = w.Dims[0]
		}
		c.SetTensor(0, dt, out)
	}
	if !x.Known || !w.Known || len(x.Dims) < 2 || len(w.Dims) < 3 {
		c.SetTensor(1, dt, UnknownShape())
		return nil
	}
	st := append([]Dim{}, x.Dims[:len(x.Dims)-1]...)
	for _, k := range w.Dims[2:] {
		st = append(st, cxAddConst(k, -1))
	}
	c.SetTensor(1, dt, DimsShape(st...))
	return nil
}

// NhwcConv(X [N, H, W, C], W [M, C/group, kH, kW][, B]) (com.microsoft):
// Conv in channels-last layout -> [N, oH, oW, M].
func inferNhwcConv(c *InferContext) error {
	x, w := c.InShape(0), c.InShape(1)
	dt := c.InDType(0)
	if !x.Known || len(x.Dims) < 3 {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	n := len(x.Dims) - 2
	var kernel []int64
	if cxRankIs(w, n+2) {
		for _, d := range w.Dims[2:] {
			if !d.IsConcrete() {
				kernel = nil
				break
			}
			kernel = append(kernel, d.Val)
		}
	}
	out := RankShape(n + 2)
	out.Dims[0] = x.Dims[0]
	if cxRankIs(w, n+2) {
		out.Dims[n+1] = w.Dims[0]
	}
	if _, ok := c.AttrInts("kernel_shape"); ok || kernel != nil {
		p, err := cxWindow(c, n, kernel)
		if err != nil {
			return wrapf(err, "NhwcConv")
		}
		for i := 0; i < n; i++ {
			out.Dims[1+i] = p.out(i, x.Dims[1+i])
		}
	}
	c.SetTensor(0, dt, out)
	return nil
}

// NhwcMaxPool(X [N, H, W, C]) (com.microsoft): MaxPool in channels-last
// layout.
func inferNhwcMaxPool(c *InferContext) error {
	x := c.InShape(0)
	dt := c.InDType(0)
	k, p, err := cxPoolWindow(c, x, dt)
	if p == nil {
		return wrapErr("NhwcMaxPool", err)
	}
	out := x.Clone()
	for i := range k {
		out.Dims[1+i] = p.out(i, x.Dims[1+i])
	}
	c.SetTensor(0, dt, out)
	return nil
}

// SkipGroupNorm(X, gamma, beta, skip[, bias]) (com.microsoft, NHWC) -> Y[,
// S = X + skip + bias], both X's shape.
func inferSkipGroupNorm(c *InferContext) error {
	cxSameAs(c, 0, 0)
	cxSameAs(c, 1, 0)
	return nil
}

// cxScalarInput returns the known value of a scalar (or 1-element)
// integer input.
func cxScalarInput(c *InferContext, i int) (Dim, bool) {
	k, ok := c.Known(i)
	if !ok || len(k) != 1 {
		return Dim{}, false
	}
	if k[0].Sym == "" && k[0].Val < 0 {
		return Dim{}, false
	}
	return k[0], true
}

// cxOutputDType reads output_datatype (default float32).
func cxOutputDType(c *InferContext) DType {
	dt := DType(c.AttrInt("output_datatype", int64(Float32)))
	if !dt.Valid() {
		return Undefined
	}
	return dt
}

// HannWindow / HammingWindow / BlackmanWindow(size) output_datatype=1 ->
// [size].
func inferWindow(c *InferContext) error {
	n, ok := cxScalarInput(c, 0)
	if !ok {
		n = Unknown()
	}
	c.SetTensor(0, cxOutputDType(c), DimsShape(n))
	return nil
}

// MelWeightMatrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
// upper_edge_hertz) -> [floor(dft_length/2)+1, num_mel_bins].
func inferMelWeightMatrix(c *InferContext) error {
	bins, ok := cxScalarInput(c, 0)
	if !ok {
		bins = Unknown()
	}
	rows := Unknown()
	if n, ok := cxScalarInput(c, 1); ok {
		rows = DimAdd(DimDiv(n, D(2)), D(1))
	}
	c.SetTensor(0, cxOutputDType(c), DimsShape(rows, bins))
	return nil
}

// DFT(input[, dft_length, axis]) inverse onesided (axis is an attribute
// before opset 20): input [..., 1 or 2] -> [..., 2], or [..., 1] for the
// inverse one-sided transform.
func inferDFT(c *InferContext) error {
	x, dt, ok := knownInput0(c)
	if !ok {
		return nil
	}
	r := len(x.Dims)
	if r < 2 {
		return errorf(CodeRank, "DFT: input rank %d, want >= 2", r)
	}
	inverse, onesided := c.AttrInt("inverse", 0) != 0, c.AttrInt("onesided", 0) != 0
	out := x.Clone()
	out.Dims[r-1] = D(2)
	if inverse && onesided {
		out.Dims[r-1] = D(1)
	}
	var axis int64 = 1
	axisKnown := true
	if c.Opset >= 20 {
		axis = -2
		if c.HasInput(2) {
			k, ok := c.KnownInts(2)
			axisKnown = ok && len(k) == 1
			if axisKnown {
				axis = k[0]
			}
		}
	} else {
		axis = c.AttrInt("axis", 1)
	}
	n, hasLen := Dim{}, false
	if c.HasInput(1) {
		n, hasLen = cxScalarInput(c, 1)
		if !hasLen {
			n = Unknown()
			hasLen = true
		}
	}
	if !axisKnown {
		if hasLen || onesided {
			for i := 0; i < r-1; i++ {
				out.Dims[i] = Unknown()
			}
		}
		c.SetTensor(0, dt, out)
		return nil
	}
	if axis < 0 {
		axis += int64(r)
	}
	if axis < 0 || axis >= int64(r-1) {
		return errorf(CodeAxis, "DFT: axis %d out of range for rank %d", axis, r)
	}
	if !hasLen {
		n = x.Dims[axis]
	}
	switch {
	case onesided && !inverse:
		out.Dims[axis] = DimAdd(DimDiv(n, D(2)), D(1))
	case onesided && inverse && !c.HasInput(1):
		out.Dims[axis] = DimMul(cxAddConst(n, -1), D(2))
	default:
		out.Dims[axis] = n
	}
	c.SetTensor(0, dt, out)
	return nil
}

// STFT(signal [B, L, 1|2], frame_step[, window, frame_length]) onesided=1
// -> [B, frames, bins, 2] with frames = (L - frame_length)/frame_step + 1
// and bins = frame_length/2 + 1 (one-sided) or frame_length.
// com.microsoft.experimental's STFT takes (signal [B, L], window,
// frame_length, frame_step).
func inferSTFT(c *InferContext) error {
	sig := c.InShape(0)
	dt := c.InDType(0)
	stepIdx, winIdx, lenIdx := 1, 2, 3
	if c.Node.Domain == msExperimental {
		stepIdx, winIdx, lenIdx = 3, 1, 2
	}
	batch, length := cxDim(sig, 0), cxDim(sig, 1)
	fl, ok := cxScalarInput(c, lenIdx)
	if !ok {
		fl = Unknown()
		if w := c.InShape(winIdx); c.HasInput(winIdx) && cxRankIs(w, 1) {
			fl = w.Dims[0]
		}
	}
	frames := Unknown()
	if step, ok := cxScalarInput(c, stepIdx); ok && step.IsConcrete() && step.Val > 0 && fl.IsConcrete() && length.IsConcrete() && length.Val >= fl.Val {
		frames = D((length.Val-fl.Val)/step.Val + 1)
	}
	bins := fl
	if c.AttrInt("onesided", 1) != 0 {
		bins = DimAdd(DimDiv(fl, D(2)), D(1))
	}
	c.SetTensor(0, dt, DimsShape(batch, frames, bins, D(2)))
	return nil
}

func registerInferNn() {
	cxRegister(
		OpDef{Name: "Conv", Infer: inferConv},
		OpDef{Name: "ConvInteger", Infer: inferConvInteger},
		OpDef{Name: "DeformConv", Infer: inferDeformConv},
		OpDef{Domain: msDomain, Name: "NhwcConv", Infer: inferNhwcConv},
		OpDef{Domain: msDomain, Name: "NhwcMaxPool", Infer: inferNhwcMaxPool},
		OpDef{Domain: msDomain, Name: "MaxpoolWithMask", Infer: inferPool},
		OpDef{Domain: msDomain, Name: "Crop", Infer: inferCrop},
		OpDef{Domain: msDomain, Name: "GroupNorm", Infer: cxUnary},
		OpDef{Domain: msDomain, Name: "SkipGroupNorm", Infer: inferSkipGroupNorm},
		OpDef{Domain: msDomain, Name: "FusedConv", Infer: inferConv},
		OpDef{Name: "ConvTranspose", Infer: inferConvTranspose},
		OpDef{Name: "MaxPool", Infer: inferPool},
		OpDef{Name: "AveragePool", Infer: inferPool},
		OpDef{Name: "LpPool", Infer: inferPool},
		OpDef{Name: "GlobalAveragePool", Infer: inferGlobalPool},
		OpDef{Name: "GlobalMaxPool", Infer: inferGlobalPool},
		OpDef{Name: "GlobalLpPool", Infer: inferGlobalPool},
		OpDef{Name: "MaxRoiPool", Infer: inferMaxRoiPool},
		OpDef{Name: "RoiAlign", Infer: inferRoiAlign},
		OpDef{Name: "MaxUnpool", Infer: inferMaxUnpool},
		OpDef{Name: "Dropout", Infer: inferDropout},
		OpDef{Name: "LRN", Infer: cxUnary},
		OpDef{Name: "BatchNormalization", Infer: inferBatchNorm},
		OpDef{Name: "InstanceNormalization", Infer: cxUnary},
		OpDef{Name: "LayerNormalization", Infer: inferLayerNorm},
		OpDef{Name: "SimplifiedLayerNormalization", Infer: inferLayerNorm},
		OpDef{Name: "GroupNormalization", Infer: cxUnary},
		OpDef{Name: "LpNormalization", Infer: cxUnary},
		OpDef{Name: "MeanVarianceNormalization", Infer: cxUnary},
		OpDef{Name: "RMSNormalization", Infer: cxUnary},
		OpDef{Name: "Crop", Infer: inferCrop},
		OpDef{Name: "CausalConvWithState", Infer: inferCausalConvWithState},
		OpDef{Name: "HannWindow", Infer: inferWindow},
		OpDef{Name: "HammingWindow", Infer: inferWindow},
		OpDef{Name: "BlackmanWindow", Infer: inferWindow},
		OpDef{Name: "MelWeightMatrix", Infer: inferMelWeightMatrix},
		OpDef{Name: "DFT", Infer: inferDFT},
		OpDef{Name: "STFT", Infer: inferSTFT},
	)
	// com.microsoft.experimental has these signal ops of ai.onnx, inferred
	// alike (its STFT orders the inputs its own way: inferSTFT reads the
	// domain).
	for name, f := range map[string]InferFunc{"HannWindow": inferWindow, "HammingWindow": inferWindow, "BlackmanWindow": inferWindow, "MelWeightMatrix": inferMelWeightMatrix, "STFT": inferSTFT} {
		cxRegister(OpDef{Domain: msExperimental, Name: name, Infer: f})
	}
}

// knownInput0 returns input 0's shape and element type. When the shape
// is unknown it types output 0 as the input's type of unknown shape and
// reports false: the caller has nothing more to infer.
func knownInput0(c *InferContext) (Shape, DType, bool) {
	x, dt := c.InShape(0), c.InDType(0)
	if !x.Known {
		c.SetTensor(0, dt, UnknownShape())
		return x, dt, false
	}
	return x, dt, true
}

// cxWeightKernel is the spatial kernel of a convolution's weight w
// ([M, C/group, k1, ..., kn]): its n trailing dims, or nil when w's shape
// is unknown or one of them is not concrete.
func cxWeightKernel(w Shape, n int) []int64 {
	if !w.Known || len(w.Dims) < n+2 {
		return nil
	}
	kernel := make([]int64, n)
	for i := range kernel {
		if !w.Dims[2+i].IsConcrete() {
			return nil
		}
		kernel[i] = w.Dims[2+i].Val
	}
	return kernel
}
