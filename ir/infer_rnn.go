package ir

// This file implements inference for the recurrent operators LSTM, GRU
// and RNN (and onnxruntime's DynamicQuantizeLSTM).
//
// With layout=0 (the default), X is [seq_length, batch_size, input_size],
// Y is [seq_length, num_directions, batch_size, hidden_size] and Y_h / Y_c
// are [num_directions, batch_size, hidden_size]; layout=1 puts the batch
// first: X [batch, seq, input], Y [batch, seq, num_directions, hidden],
// Y_h [batch, num_directions, hidden].

// cxRNN returns the InferFunc of a recurrent op with the given number of
// gates. transposedW marks onnxruntime's quantized form, whose W and R are
// [num_directions, input/hidden, gates*hidden].
func cxRNN(gates int64, transposedW bool) InferFunc {
	return func(c *InferContext) error {
		x, w, r := c.InShape(0), c.InShape(1), c.InShape(2)
		dt := c.InDType(0)
		layout := c.AttrInt("layout", 0)
		if layout != 0 && layout != 1 {
			return errorf(CodeAttr, "%s: layout %d, want 0 or 1", c.Node.Op, layout)
		}
		nd := D(1)
		switch dir := c.AttrString("direction", "forward"); dir {
		case "forward", "reverse":
		case "bidirectional":
			nd = D(2)
		default:
			return errorf(CodeAttr, "%s: unknown direction %q", c.Node.Op, dir)
		}
		hidden := Unknown()
		if h := c.AttrInt("hidden_size", -1); h > 0 {
			hidden = D(h)
		} else if r.Known && len(r.Dims) == 3 {
			if transposedW {
				hidden = r.Dims[1]
			} else {
				hidden = r.Dims[2]
			}
		} else if w.Known && len(w.Dims) == 3 {
			g := w.Dims[1]
			if transposedW {
				g = w.Dims[2]
			}
			if g.IsConcrete() && g.Val%gates == 0 {
				hidden = D(g.Val / gates)
			}
		}
		seq, batch := Unknown(), Unknown()
		if x.Known {
			if len(x.Dims) != 3 {
				return errorf(CodeRank, "%s: X has rank %d, want 3", c.Node.Op, len(x.Dims))
			}
			seq, batch = x.Dims[0], x.Dims[1]
			if layout == 1 {
				seq, batch = batch, seq
			}
		}
		if layout == 0 {
			c.SetTensor(0, dt, DimsShape(seq, nd, batch, hidden))
			c.SetTensor(1, dt, DimsShape(nd, batch, hidden))
			c.SetTensor(2, dt, DimsShape(nd, batch, hidden))
		} else {
			c.SetTensor(0, dt, DimsShape(batch, seq, nd, hidden))
			c.SetTensor(1, dt, DimsShape(batch, nd, hidden))
			c.SetTensor(2, dt, DimsShape(batch, nd, hidden))
		}
		return nil
	}
}

// GRUUnit(hidden_prev [N, D], gates [N, 3D], seq_lengths, t) (ai.onnx
// experimental, opset 1) -> hidden [N, D].
func inferGRUUnit(c *InferContext) error {
	cxSameAs(c, 0, 0)
	return nil
}

func registerInferRnn() {
	cxRegister(
		OpDef{Name: "LSTM", Infer: cxRNN(4, false)},
		OpDef{Name: "GRU", Infer: cxRNN(3, false)},
		OpDef{Name: "RNN", Infer: cxRNN(1, false)},
		OpDef{Name: "GRUUnit", Infer: inferGRUUnit},
		OpDef{Domain: msDomain, Name: "DynamicQuantizeLSTM", Infer: cxRNN(4, true)},
	)
}
