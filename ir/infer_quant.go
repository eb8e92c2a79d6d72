package ir

// This file implements inference for quantization operators: ONNX
// QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear / QLinearConv,
// and onnxruntime's com.microsoft QLinear* operators (QOperator format).

// QuantizeLinear(x, y_scale[, y_zero_point]) [output_dtype]: the zero
// point's dtype, else output_dtype, else uint8.
func inferQuantizeLinear(c *InferContext) error {
	dt := Uint8
	if c.HasInput(2) {
		dt = c.InDType(2)
	} else if od := DType(c.AttrInt("output_dtype", 0)); od != Undefined {
		if !od.Valid() {
			return c.Errorf(CodeDType, "QuantizeLinear: invalid output_dtype %d", int64(od))
		}
		dt = od
	}
	c.SetTensor(0, dt, c.InShape(0).Clone())
	return nil
}

// DequantizeLinear(x, x_scale[, x_zero_point]) [output_dtype]: the scale's
// dtype (or output_dtype when set).
func inferDequantizeLinear(c *InferContext) error {
	dt := c.InDType(1)
	if od := DType(c.AttrInt("output_dtype", 0)); od != Undefined {
		if !od.Valid() {
			return c.Errorf(CodeDType, "DequantizeLinear: invalid output_dtype %d", int64(od))
		}
		dt = od
	}
	if dt == Undefined && c.Opset < 19 {
		dt = Float32
	}
	c.SetTensor(0, dt, c.InShape(0).Clone())
	return nil
}

// DynamicQuantizeLinear(x) -> y uint8, y_scale float32[], y_zero_point
// uint8[].
func inferDynamicQuantizeLinear(c *InferContext) error {
	c.SetTensor(0, Uint8, c.InShape(0).Clone())
	c.SetTensor(1, Float32, Shape{Known: true})
	c.SetTensor(2, Uint8, Shape{Known: true})
	return nil
}

// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B]).
func inferQLinearConv(c *InferContext) error {
	s, err := cxConvShape(c, 0, 3)
	if err != nil {
		return err
	}
	c.SetTensor(0, cxFirstDType(c, 7, 0), s)
	return nil
}

// QLinearConv (com.microsoft) is QLinearConv with an NHWC option; only the
// NCHW form is inferred.
func inferMSQLinearConv(c *InferContext) error {
	if c.AttrInt("channels_last", 0) != 0 {
		c.SetTensor(0, cxFirstDType(c, 7, 0), UnknownShape())
		return nil
	}
	return inferQLinearConv(c)
}

// QLinearAdd / QLinearMul (A, A_scale, A_zp, B, B_scale, B_zp, C_scale[,
// C_zp]) (com.microsoft): broadcast of A and B, A's dtype.
func inferQLinearBinary(c *InferContext) error {
	s, err := cxBroadcastInputs(c, 0, 3)
	if err != nil {
		return err
	}
	c.SetTensor(0, cxFirstDType(c, 0, 3), s)
	return nil
}

// QLinearGlobalAveragePool(X, x_scale, x_zp, y_scale, y_zp) channels_last.
func inferQLinearGlobalAveragePool(c *InferContext) error {
	x := c.InShape(0)
	dt := c.InDType(0)
	if c.AttrInt("channels_last", 0) == 0 {
		s, err := cxGlobalPoolShape(x)
		if err != nil {
			return err
		}
		c.SetTensor(0, dt, s)
		return nil
	}
	if !x.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	if len(x.Dims) < 2 {
		return errorf(CodeRank, "QLinearGlobalAveragePool: input rank %d, want >= 2", len(x.Dims))
	}
	out := x.Clone()
	for i := 1; i < len(out.Dims)-1; i++ {
		out.Dims[i] = D(1)
	}
	c.SetTensor(0, dt, out)
	return nil
}

// QLinearAveragePool(X, x_scale, x_zp, y_scale[, y_zp]) (NCHW only).
func inferQLinearAveragePool(c *InferContext) error {
	if c.AttrInt("channels_last", 0) != 0 {
		c.SetTensor(0, c.InDType(0), UnknownShape())
		return nil
	}
	s, err := cxPoolShape(c, 0)
	if err != nil {
		return err
	}
	c.SetTensor(0, c.InDType(0), s)
	return nil
}

// QLinearConcat(Y_scale, Y_zp, (X, X_scale, X_zp)...) axis.
func inferQLinearConcat(c *InferContext) error {
	dt := cxFirstDType(c, 1, 2)
	axis := c.AttrInt("axis", 0)
	var out Shape
	for i := 2; i < c.NumInputs(); i += 3 {
		s := c.InShape(i)
		if !s.Known {
			c.SetTensor(0, dt, UnknownShape())
			return nil
		}
		if !out.Known {
			out = s.Clone()
			if _, err := cxNormAxis(axis, len(s.Dims)); err != nil {
				return wrapf(err, "QLinearConcat")
			}
			continue
		}
		if len(s.Dims) != len(out.Dims) {
			return errorf(CodeRank, "QLinearConcat: ranks %d and %d differ", len(out.Dims), len(s.Dims))
		}
		a, _ := cxNormAxis(axis, len(s.Dims))
		for j := range out.Dims {
			switch {
			case j == a:
				out.Dims[j] = DimAdd(out.Dims[j], s.Dims[j])
			case out.Dims[j].IsUnknown():
				out.Dims[j] = s.Dims[j]
			}
		}
	}
	c.SetTensor(0, dt, out)
	return nil
}

// cxQLinearUnary is the InferFunc of X -> Y ops of the form
// (X, X_scale, X_zp, Y_scale, Y_zp).
func cxQLinearUnary(c *InferContext) error {
	cxSameAs(c, 0, 0)
	return nil
}

func registerInferQuant() {
	cxRegister(
		OpDef{Name: "QuantizeLinear", Infer: inferQuantizeLinear},
		OpDef{Name: "DequantizeLinear", Infer: inferDequantizeLinear},
		OpDef{Name: "DynamicQuantizeLinear", Infer: inferDynamicQuantizeLinear},
		OpDef{Name: "QLinearConv", Infer: inferQLinearConv},

		OpDef{Domain: msDomain, Name: "QuantizeLinear", Infer: inferQuantizeLinear},
		OpDef{Domain: msDomain, Name: "DequantizeLinear", Infer: inferDequantizeLinear},
		OpDef{Domain: msDomain, Name: "QLinearConv", Infer: inferMSQLinearConv},
		OpDef{Domain: msDomain, Name: "QLinearAdd", Infer: inferQLinearBinary},
		OpDef{Domain: msDomain, Name: "QLinearMul", Infer: inferQLinearBinary},
		OpDef{Domain: msDomain, Name: "QLinearGlobalAveragePool", Infer: inferQLinearGlobalAveragePool},
		OpDef{Domain: msDomain, Name: "QLinearAveragePool", Infer: inferQLinearAveragePool},
		OpDef{Domain: msDomain, Name: "QLinearConcat", Infer: inferQLinearConcat},
		OpDef{Domain: msDomain, Name: "QLinearSigmoid", Infer: cxQLinearUnary},
		OpDef{Domain: msDomain, Name: "QLinearLeakyRelu", Infer: cxQLinearUnary},
		OpDef{Domain: msDomain, Name: "QLinearSoftmax", Infer: cxQLinearUnary},
	)
}
