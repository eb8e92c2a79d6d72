package ir

// This file implements inference for neural-network operators:
// convolutions, pooling, normalizations, Dropout and LRN.
//
// Spatial output sizes follow the ONNX convolution / pooling formulas.
// A symbolic input size gives a symbolic expression ("H+2", "(H-3)/2+1")
// where the arithmetic is exact, and an unknown dim otherwise (ceil-mode
// pooling, for one).

import "fmt"

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
		return nil, fmt.Errorf("kernel has %d dims, want %d", len(kernel), n)
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
			return nil, fmt.Errorf("%s has %d values, want %d", name, len(v), n)
		}
		for _, x := range v {
			if x <= 0 {
				return nil, fmt.Errorf("%s %v: values must be positive", name, v)
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
			return nil, fmt.Errorf("pads has %d values, want %d", len(pads), 2*n)
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
		// ceil((in - ek + 1) / s)
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
		return UnknownShape(), fmt.Errorf("input rank %d, want >= 2", x.Rank())
	}
	if w.Known && len(w.Dims) != n+2 {
		return UnknownShape(), fmt.Errorf("weight rank %d, want %d", len(w.Dims), n+2)
	}
	var kernel []int64
	if w.Known {
		kernel = make([]int64, n)
		for i := range kernel {
			kernel[i] = w.Dims[2+i].Val
			if !w.Dims[2+i].IsConcrete() {
				kernel = nil
				break
			}
		}
	}
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
		return fmt.Errorf("ConvTranspose: weight rank %d, want %d", len(w.Dims), n+2)
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
			return fmt.Errorf("ConvTranspose: output_shape has %d values, want %d", len(os), n)
		}
		for i, v := range os {
			out.Dims[2+i] = D(v)
		}
		c.SetTensor(0, dt, out)
		return nil
	}
	var kernel []int64
	if w.Known {
		kernel = make([]int64, n)
		for i := range kernel {
			kernel[i] = w.Dims[2+i].Val
			if !w.Dims[2+i].IsConcrete() {
				kernel = nil
				break
			}
		}
	}
	if _, ok := c.AttrInts("kernel_shape"); (!ok && kernel == nil) || !x.Known {
		c.SetTensor(0, dt, out)
		return nil
	}
	p, err := cxWindow(c, n, kernel)
	if err != nil {
		return fmt.Errorf("ConvTranspose: %v", err)
	}
	opad, ok := c.AttrInts("output_padding")
	if !ok || len(opad) == 0 {
		opad = make([]int64, n)
	}
	if len(opad) != n {
		return fmt.Errorf("ConvTranspose: output_padding has %d values, want %d", len(opad), n)
	}
	for i := 0; i < n; i++ {
		in := x.Dims[2+i]
		s := p.strides[i]
		if p.autoPad == "SAME_UPPER" || p.autoPad == "SAME_LOWER" {
			out.Dims[2+i] = DimMul(in, D(s))
			continue
		}
		ek := p.dilations[i]*(p.kernel[i]-1) + 1
		base := DimMul(cxAddConst(in, -1), D(s))
		if in.IsConcrete() && in.Val < 1 {
			base = Unknown()
		}
		out.Dims[2+i] = cxAddConst(base, opad[i]+ek-p.padBegin[i]-p.padEnd[i])
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
		return UnknownShape(), fmt.Errorf("input rank %d, want >= 2", len(x.Dims))
	}
	n := len(x.Dims) - 2
	if !ok {
		return UnknownShape(), fmt.Errorf("missing kernel_shape")
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
		return UnknownShape(), fmt.Errorf("input rank %d, want >= 2", len(x.Dims))
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
	if x.Known && len(x.Dims) == 4 {
		out.Dims[1] = x.Dims[1]
	}
	return out
}

// MaxRoiPool(X, rois) pooled_shape=[h, w].
func inferMaxRoiPool(c *InferContext) error {
	ps, ok := c.AttrInts("pooled_shape")
	if !ok || len(ps) != 2 {
		return fmt.Errorf("MaxRoiPool: pooled_shape must have 2 values")
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
	k, ok := c.AttrInts("kernel_shape")
	if !x.Known || !ok || len(x.Dims) != len(k)+2 {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	p, err := cxWindow(c, len(k), k)
	if err != nil {
		return fmt.Errorf("MaxUnpool: %v", err)
	}
	out := x.Clone()
	for i := range k {
		in := x.Dims[2+i]
		base := DimMul(cxAddConst(in, -1), D(p.strides[i]))
		out.Dims[2+i] = cxAddConst(base, k[i]-p.padBegin[i]-p.padEnd[i])
	}
	c.SetTensor(0, dt, out)
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

func init() {
	Register(
		OpDef{Name: "Conv", MinInputs: 2, MaxInputs: 3, MinOutputs: 1, MaxOutputs: 1, Infer: inferConv},
		OpDef{Name: "ConvInteger", MinInputs: 2, MaxInputs: 4, MinOutputs: 1, MaxOutputs: 1, Infer: inferConvInteger},
		OpDef{Name: "DeformConv", MinInputs: 3, MaxInputs: 5, MinOutputs: 1, MaxOutputs: 1, Infer: inferDeformConv},
		OpDef{Name: "ConvTranspose", MinInputs: 2, MaxInputs: 3, MinOutputs: 1, MaxOutputs: 1, Infer: inferConvTranspose},
		OpDef{Name: "MaxPool", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 2, Infer: inferPool},
		OpDef{Name: "AveragePool", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 1, Infer: inferPool},
		OpDef{Name: "LpPool", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 1, Infer: inferPool},
		OpDef{Name: "GlobalAveragePool", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 1, Infer: inferGlobalPool},
		OpDef{Name: "GlobalMaxPool", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 1, Infer: inferGlobalPool},
		OpDef{Name: "GlobalLpPool", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 1, Infer: inferGlobalPool},
		OpDef{Name: "MaxRoiPool", MinInputs: 2, MaxInputs: 2, MinOutputs: 1, MaxOutputs: 1, Infer: inferMaxRoiPool},
		OpDef{Name: "RoiAlign", MinInputs: 3, MaxInputs: 3, MinOutputs: 1, MaxOutputs: 1, Infer: inferRoiAlign},
		OpDef{Name: "MaxUnpool", MinInputs: 2, MaxInputs: 3, MinOutputs: 1, MaxOutputs: 1, Infer: inferMaxUnpool},
		OpDef{Name: "Dropout", MinInputs: 1, MaxInputs: 3, MinOutputs: 1, MaxOutputs: 2, Infer: inferDropout},
		OpDef{Name: "LRN", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 1, Infer: cxUnary},
		OpDef{Name: "BatchNormalization", MinInputs: 5, MaxInputs: 5, MinOutputs: 1, MaxOutputs: 5, Infer: inferBatchNorm},
		OpDef{Name: "InstanceNormalization", MinInputs: 3, MaxInputs: 3, MinOutputs: 1, MaxOutputs: 1, Infer: cxUnary},
		OpDef{Name: "LayerNormalization", MinInputs: 2, MaxInputs: 3, MinOutputs: 1, MaxOutputs: 3, Infer: inferLayerNorm},
		OpDef{Name: "SimplifiedLayerNormalization", MinInputs: 2, MaxInputs: 2, MinOutputs: 1, MaxOutputs: 2, Infer: inferLayerNorm},
		OpDef{Name: "GroupNormalization", MinInputs: 3, MaxInputs: 3, MinOutputs: 1, MaxOutputs: 1, Infer: cxUnary},
		OpDef{Name: "LpNormalization", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 1, Infer: cxUnary},
		OpDef{Name: "MeanVarianceNormalization", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 1, Infer: cxUnary},
		OpDef{Name: "RMSNormalization", MinInputs: 2, MaxInputs: 2, MinOutputs: 1, MaxOutputs: 1, Infer: cxUnary},
	)
}
