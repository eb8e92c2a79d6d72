package ir

// This file implements inference for attention and transformer operators:
// ONNX Attention (opset 23/24) and RotaryEmbedding, and onnxruntime's
// com.microsoft transformer ops (Attention, MultiHeadAttention,
// GroupQueryAttention, QAttention, SkipLayerNormalization,
// EmbedLayerNormalization, FastGelu, GatherBlockQuantized ...).

// cxDim returns dim i of s (negative i counts from the end), or an
// unknown dim when the rank is unknown or too small.
func cxDim(s Shape, i int) Dim {
	if !s.Known {
		return Unknown()
	}
	if i < 0 {
		i += len(s.Dims)
	}
	if i < 0 || i >= len(s.Dims) {
		return Unknown()
	}
	return s.Dims[i]
}

// cxDivExact returns a/b when b divides a (or a is symbolic).
func cxDivExact(a Dim, b int64) Dim {
	if b <= 0 {
		return Unknown()
	}
	if a.IsConcrete() && a.Val%b != 0 {
		return Unknown()
	}
	return DimDiv(a, D(b))
}

// cxRankIs reports whether s has known rank r.
func cxRankIs(s Shape, r int) bool { return s.Known && len(s.Dims) == r }

// Attention(Q, K, V[, attn_mask, past_key, past_value, nonpad_kv_seqlen])
// (opset 23) -> Y[, present_key, present_value, qk_matmul_output].
// Q, K, V are 4-D [B, heads, seq, head_size] or 3-D [B, seq, heads *
// head_size] with q_num_heads / kv_num_heads.
func inferAttention(c *InferContext) error {
	q, k, v := c.InShape(0), c.InShape(1), c.InShape(2)
	dt := c.InDType(0)
	qh, kvh := c.AttrInt("q_num_heads", 0), c.AttrInt("kv_num_heads", 0)
	if !q.Known {
		c.SetTensor(0, dt, UnknownShape())
	}
	batch := cxDim(q, 0)
	var qHeads, qSeq, headSize, kvHeads, kvSeq, vHead Dim = Unknown(), Unknown(), Unknown(), Unknown(), Unknown(), Unknown()
	switch {
	case cxRankIs(q, 4):
		qHeads, qSeq, headSize = q.Dims[1], q.Dims[2], q.Dims[3]
	case cxRankIs(q, 3):
		qSeq = q.Dims[1]
		if qh > 0 {
			qHeads, headSize = D(qh), cxDivExact(q.Dims[2], qh)
		}
	case q.Known:
		return errorf(CodeRank, "Attention: Q has rank %d, want 3 or 4", len(q.Dims))
	}
	switch {
	case cxRankIs(k, 4):
		kvHeads, kvSeq = k.Dims[1], k.Dims[2]
	case cxRankIs(k, 3):
		kvSeq = k.Dims[1]
		if kvh > 0 {
			kvHeads = D(kvh)
		}
	}
	switch {
	case cxRankIs(v, 4):
		vHead = v.Dims[3]
		if kvHeads.IsUnknown() {
			kvHeads = v.Dims[1]
		}
	case cxRankIs(v, 3) && kvh > 0:
		vHead = cxDivExact(v.Dims[2], kvh)
	}
	if q.Known {
		if len(q.Dims) == 4 {
			c.SetTensor(0, dt, DimsShape(batch, qHeads, qSeq, vHead))
		} else {
			hid := Unknown()
			if qh > 0 {
				hid = DimMul(D(qh), vHead)
			}
			c.SetTensor(0, dt, DimsShape(batch, qSeq, hid))
		}
	}
	total := kvSeq
	if c.HasInput(4) {
		total = DimAdd(cxDim(c.InShape(4), 2), kvSeq)
	}
	c.SetTensor(1, cxFirstDType(c, 1), DimsShape(batch, kvHeads, total, headSize))
	c.SetTensor(2, cxFirstDType(c, 2), DimsShape(batch, kvHeads, total, vHead))
	c.SetTensor(3, dt, DimsShape(batch, qHeads, qSeq, total))
	return nil
}

// FlexAttention(Q, K, V) (ai.onnx.preview): rank-4 inputs, Y [B,
// q_heads, q_seq, v_head_size].
func inferFlexAttention(c *InferContext) error {
	q, v := c.InShape(0), c.InShape(2)
	c.SetTensor(0, c.InDType(0), DimsShape(cxDim(q, 0), cxDim(q, 1), cxDim(q, 2), cxDim(v, 3)))
	// score_mod / prob_mod bodies: infer them with their declared input
	// types so their values are typed too.
	for _, g := range c.Node.Subgraphs() {
		c.InferSubgraph(g, nil)
	}
	return nil
}

// LinearAttention(query [B, T, qh*dk], key [B, T, kvh*dk], value [B, T,
// kvh*dv][, past_state, decay, beta]) q_num_heads kv_num_heads (opset 27)
// -> output [B, T, qh*dv], present_state [B, kvh, dk, dv].
func inferLinearAttention(c *InferContext) error {
	q, k, v := c.InShape(0), c.InShape(1), c.InShape(2)
	dt := c.InDType(0)
	qh, kvh := c.AttrInt("q_num_heads", 0), c.AttrInt("kv_num_heads", 0)
	dk, dv := Unknown(), Unknown()
	if kvh > 0 {
		dk, dv = cxDivExact(cxDim(k, 2), kvh), cxDivExact(cxDim(v, 2), kvh)
	}
	hid := Unknown()
	if qh > 0 {
		hid = DimMul(D(qh), dv)
	}
	if q.Known && len(q.Dims) == 3 {
		c.SetTensor(0, dt, DimsShape(q.Dims[0], q.Dims[1], hid))
	} else {
		c.SetTensor(0, dt, UnknownShape())
	}
	heads := Unknown()
	if kvh > 0 {
		heads = D(kvh)
	}
	c.SetTensor(1, dt, DimsShape(cxDim(q, 0), heads, dk, dv))
	return nil
}

// cxPresent is the [2, B, N, past+S, H] state of com.microsoft Attention
// and QAttention.
func cxPresent(c *InferContext, pastIdx int, batch, seq, heads, headSize Dim) Shape {
	if c.HasInput(pastIdx) {
		p := c.InShape(pastIdx)
		if !cxRankIs(p, 5) {
			return UnknownShape()
		}
		if c.AttrInt("past_present_share_buffer", 0) != 0 {
			return p.Clone() // present is the past buffer, updated in place
		}
		return DimsShape(p.Dims[0], p.Dims[1], p.Dims[2], DimAdd(p.Dims[3], seq), p.Dims[4])
	}
	return DimsShape(D(2), batch, heads, seq, headSize)
}

// cxMSAttention infers com.microsoft Attention / QAttention: input [B, S,
// in_hidden], weights [in_hidden, 3*hidden] (qkv_hidden_sizes), bias ->
// output [B, S, v_hidden][, present].
func cxMSAttention(wIdx, bIdx, pastIdx, outDTIdx int) InferFunc {
	return func(c *InferContext) error {
		in := c.InShape(0)
		dt := cxFirstDType(c, outDTIdx)
		n := c.AttrInt("num_heads", 0)
		batch, seq := cxDim(in, 0), cxDim(in, 1)
		qkHidden, vHidden := Unknown(), Unknown()
		if hs, ok := c.AttrInts("qkv_hidden_sizes"); ok && len(hs) == 3 {
			qkHidden, vHidden = D(hs[1]), D(hs[2])
		} else if w := c.InShape(wIdx); cxRankIs(w, 2) {
			qkHidden = cxDivExact(w.Dims[1], 3)
			vHidden = qkHidden
		} else if b := c.InShape(bIdx); cxRankIs(b, 1) {
			qkHidden = cxDivExact(b.Dims[0], 3)
			vHidden = qkHidden
		}
		if in.Known && len(in.Dims) != 3 {
			return errorf(CodeRank, "%s: input rank %d, want 3", c.Node.Op, len(in.Dims))
		}
		if in.Known {
			c.SetTensor(0, dt, DimsShape(batch, seq, vHidden))
		} else {
			c.SetTensor(0, dt, UnknownShape())
		}
		head := Unknown()
		if n > 0 {
			head = cxDivExact(qkHidden, n)
		}
		heads := Unknown()
		if n > 0 {
			heads = D(n)
		}
		c.SetTensor(1, dt, cxPresent(c, pastIdx, batch, seq, heads, head))
		return nil
	}
}

// MultiHeadAttention(query, key, value, bias, key_padding_mask,
// attention_bias, past_key, past_value, ...) num_heads (com.microsoft) ->
// output, present_key, present_value.
func inferMultiHeadAttention(c *InferContext) error {
	q, k, v := c.InShape(0), c.InShape(1), c.InShape(2)
	dt := c.InDType(0)
	n := c.AttrInt("num_heads", 0)
	if n <= 0 {
		return errorf(CodeAttr, "MultiHeadAttention: num_heads must be positive")
	}
	batch, seq := cxDim(q, 0), cxDim(q, 1)
	var outHidden, head, vHead, kvSeq Dim = Unknown(), Unknown(), Unknown(), Unknown()
	kvIsBNSH := false
	switch {
	case cxRankIs(q, 5) && !c.HasInput(1): // packed QKV [B, S, N, 3, H]
		head, vHead = q.Dims[4], q.Dims[4]
		outHidden = DimMul(q.Dims[2], q.Dims[4])
		kvSeq = seq
	case cxRankIs(q, 3) && cxRankIs(k, 5): // packed KV [B, L, N, 2, H]
		head, vHead = k.Dims[4], k.Dims[4]
		outHidden = DimMul(k.Dims[2], k.Dims[4])
		kvSeq = k.Dims[1]
	case cxRankIs(q, 3):
		head = cxDivExact(q.Dims[2], n)
		switch {
		case cxRankIs(k, 3):
			kvSeq = k.Dims[1]
		case cxRankIs(k, 4):
			kvSeq, kvIsBNSH = k.Dims[2], true
		}
		switch {
		case cxRankIs(v, 3):
			outHidden, vHead = v.Dims[2], cxDivExact(v.Dims[2], n)
		case cxRankIs(v, 4):
			vHead = v.Dims[3]
			outHidden = DimMul(v.Dims[1], v.Dims[3])
		}
	}
	if q.Known {
		c.SetTensor(0, dt, DimsShape(batch, seq, outHidden))
	} else {
		c.SetTensor(0, dt, UnknownShape())
	}
	total := kvSeq
	if c.HasInput(6) && !kvIsBNSH {
		total = DimAdd(cxDim(c.InShape(6), 2), kvSeq)
	}
	c.SetTensor(1, dt, DimsShape(batch, D(n), total, head))
	c.SetTensor(2, dt, DimsShape(batch, D(n), total, vHead))
	c.SetTensor(3, dt, DimsShape(batch, D(n), seq, total)) // qk
	return nil
}

// GroupQueryAttention(query, key, value, past_key, past_value, seqlens_k,
// total_sequence_length, cos_cache, sin_cache, ...) num_heads kv_num_heads
// (com.microsoft) -> output, present_key, present_value.
func inferGroupQueryAttention(c *InferContext) error {
	q := c.InShape(0)
	dt := c.InDType(0)
	n, kvn := c.AttrInt("num_heads", 0), c.AttrInt("kv_num_heads", 0)
	if n <= 0 || kvn <= 0 {
		return errorf(CodeAttr, "GroupQueryAttention: num_heads and kv_num_heads must be positive")
	}
	batch, seq := cxDim(q, 0), cxDim(q, 1)
	head := Unknown()
	if c.HasInput(1) {
		head = cxDivExact(cxDim(q, 2), n)
	} else {
		head = cxDivExact(cxDim(q, 2), n+2*kvn)
	}
	if q.Known {
		if len(q.Dims) != 3 {
			return errorf(CodeRank, "GroupQueryAttention: query rank %d, want 3", len(q.Dims))
		}
		c.SetTensor(0, dt, DimsShape(batch, seq, DimMul(D(n), head)))
	} else {
		c.SetTensor(0, dt, UnknownShape())
	}
	// present_sequence_length = max(past_sequence_length,
	// total_sequence_length); past's dim is the larger only when the past
	// and present buffers are shared (a static max length).
	present := Unknown()
	past := cxDim(c.InShape(3), 2)
	if tsl, ok := c.Known(6); ok && len(tsl) == 1 && (tsl[0].Sym != "" || tsl[0].Val >= 0) {
		switch t := tsl[0]; {
		case t.IsConcrete() && past.IsConcrete():
			present = D(max(t.Val, past.Val))
		case t.IsConcrete() && !c.HasInput(3):
			present = t
		case t.IsSymbolic() && !past.IsConcrete():
			present = t
		}
	}
	c.SetTensor(1, dt, DimsShape(batch, D(kvn), present, head))
	c.SetTensor(2, dt, DimsShape(batch, D(kvn), present, head))
	return nil
}

// DecoderMaskedMultiHeadAttention(query [B, 1, D], key, value, mask_index,
// attention_bias, past_key [B, N, max_seq, H], past_value, ...)
// (com.microsoft): past and present share one buffer, so present has the
// past's shape; output is [B, 1, Dv].
func inferDecoderMaskedMHA(c *InferContext) error {
	q, v := c.InShape(0), c.InShape(2)
	dt := c.InDType(0)
	if !cxRankIs(q, 3) {
		c.SetTensor(0, dt, UnknownShape())
	} else {
		hid := q.Dims[2]
		if cxRankIs(v, 3) {
			hid = v.Dims[2]
		} else if c.HasInput(2) {
			hid = Unknown()
		}
		c.SetTensor(0, dt, DimsShape(q.Dims[0], q.Dims[1], hid))
	}
	for i := 1; i <= 2; i++ {
		if p := c.InShape(4 + i); c.HasInput(4+i) && p.Known {
			c.SetTensor(i, dt, p.Clone())
		} else {
			c.SetTensor(i, dt, UnknownShape())
		}
	}
	return nil
}

// DecoderMaskedSelfAttention(input [B, 1, D], weights, bias, mask_index,
// past [2, B, N, max_seq, H], ...) (com.microsoft): present shares the
// past buffer.
func inferDecoderMaskedSelfAttention(c *InferContext) error {
	in := c.InShape(0)
	dt := c.InDType(0)
	hid := Unknown()
	if hs, ok := c.AttrInts("qkv_hidden_sizes"); ok && len(hs) == 3 {
		hid = D(hs[2])
	} else if w := c.InShape(1); cxRankIs(w, 2) {
		hid = cxDivExact(w.Dims[1], 3)
	}
	if cxRankIs(in, 3) {
		c.SetTensor(0, dt, DimsShape(in.Dims[0], in.Dims[1], hid))
	} else {
		c.SetTensor(0, dt, UnknownShape())
	}
	if p := c.InShape(4); c.HasInput(4) && p.Known {
		c.SetTensor(1, dt, p.Clone())
	} else {
		c.SetTensor(1, dt, UnknownShape())
	}
	return nil
}

// PackedAttention(input [T, D_in], weights [D_in, 3*D], bias, token_offset,
// cumulative_sequence_length, ...) and PackedMultiHeadAttention(query [T,
// D], key [T, D], value [T, Dv], ...) (com.microsoft): padding removed, one
// row per token -> output [T, Dv].
func inferPackedAttention(c *InferContext) error {
	q := c.InShape(0)
	dt := c.InDType(0)
	hid := Unknown()
	switch {
	case c.Node.Op == "PackedAttention":
		if hs, ok := c.AttrInts("qkv_hidden_sizes"); ok && len(hs) == 3 {
			hid = D(hs[2])
		} else if w := c.InShape(1); cxRankIs(w, 2) {
			hid = cxDivExact(w.Dims[1], 3)
		}
	case cxRankIs(c.InShape(2), 2):
		hid = c.InShape(2).Dims[1]
	case cxRankIs(q, 2) && c.HasInput(1):
		hid = q.Dims[1]
	case cxRankIs(q, 4): // packed QKV [T, N, 3, H]
		hid = DimMul(q.Dims[1], q.Dims[3])
	}
	c.SetTensor(0, dt, DimsShape(cxDim(q, 0), hid))
	return nil
}

// cxLastDimOne is s with its last dim replaced by 1.
func cxLastDimOne(s Shape) Shape {
	if !s.Known || len(s.Dims) == 0 {
		return UnknownShape()
	}
	s = s.Clone()
	s.Dims[len(s.Dims)-1] = D(1)
	return s
}

// SkipLayerNormalization(input, skip, gamma[, beta, bias]) and
// SkipSimplifiedLayerNormalization (com.microsoft) -> output[, mean,
// inv_std_var, input_skip_bias_sum].
func inferSkipLayerNorm(c *InferContext) error {
	cxSameAs(c, 0, 0)
	st := cxLastDimOne(c.InShape(0))
	c.SetTensor(1, Float32, st)
	c.SetTensor(2, Float32, st.Clone())
	cxSameAs(c, 3, 0)
	return nil
}

// EmbedLayerNormalization(input_ids, segment_ids, word_embedding,
// position_embedding, segment_embedding, gamma, beta[, mask,
// position_ids]) (com.microsoft) -> output [B, S, H], mask_index int32
// [B][, embedding_sum].
func inferEmbedLayerNorm(c *InferContext) error {
	ids, we := c.InShape(0), c.InShape(2)
	dt := c.InDType(2)
	b, s, h := cxDim(ids, 0), cxDim(ids, 1), cxDim(we, 1)
	if ids.Known && len(ids.Dims) != 2 {
		return errorf(CodeRank, "EmbedLayerNormalization: input_ids rank %d, want 2", len(ids.Dims))
	}
	c.SetTensor(0, dt, DimsShape(b, s, h))
	c.SetTensor(1, Int32, DimsShape(b))
	c.SetTensor(2, dt, DimsShape(b, s, h))
	return nil
}

// cxBroadcastFirst is the broadcast of inputs 0 and 1, input 0's dtype
// (FastGelu, BiasGelu, BiasAdd ...).
func cxBroadcastFirst(c *InferContext) error {
	s, err := cxBroadcastInputs(c)
	if err != nil {
		return err
	}
	c.SetTensor(0, c.InDType(0), s)
	return nil
}

// BiasSplitGelu(X [N, HW, D], bias [D]) -> [N, HW, D/2].
func inferBiasSplitGelu(c *InferContext) error {
	x := c.InShape(0)
	if !x.Known || len(x.Dims) == 0 {
		c.SetTensor(0, c.InDType(0), UnknownShape())
		return nil
	}
	out := x.Clone()
	out.Dims[len(out.Dims)-1] = cxDivExact(out.Dims[len(out.Dims)-1], 2)
	c.SetTensor(0, c.InDType(0), out)
	return nil
}

// BiasDropout(data, bias[, residual, ratio, training_mode]) -> output[,
// mask bool].
func inferBiasDropout(c *InferContext) error {
	cxSameAs(c, 0, 0)
	c.SetTensor(1, Bool, c.InShape(0).Clone())
	return nil
}

// GatherBlockQuantized(data, indices, scales[, zero_points]) gather_axis=0
// quantize_axis=1 block_size=128 bits=4 (com.microsoft): data's shape with
// the gathered axis replaced by indices' shape; uint8 data packs 8/bits
// values per byte along the last axis. Output has the scales' dtype.
func inferGatherBlockQuantized(c *InferContext) error {
	data, idx := c.InShape(0), c.InShape(1)
	dt := c.InDType(2)
	if !data.Known || !idx.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	r := len(data.Dims)
	ga, err := cxNormAxis(c.AttrInt("gather_axis", 0), r)
	if err != nil {
		return wrapf(err, "GatherBlockQuantized")
	}
	dims := append([]Dim{}, data.Dims...)
	if c.InDType(0) == Uint8 {
		bits := c.AttrInt("bits", 4)
		if bits <= 0 || 8%bits != 0 {
			return errorf(CodeAttr, "GatherBlockQuantized: bits %d", bits)
		}
		dims[r-1] = DimMul(dims[r-1], D(8/bits))
	}
	out := append(append(append([]Dim{}, dims[:ga]...), idx.Dims...), dims[ga+1:]...)
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

func registerInferAttention() {
	cxRegister(
		OpDef{Name: "Attention", Infer: inferAttention},
		OpDef{Name: "LinearAttention", Infer: inferLinearAttention},
		OpDef{Name: "RotaryEmbedding", Infer: cxUnary},
		OpDef{Domain: "ai.onnx.preview", Name: "FlexAttention", Infer: inferFlexAttention},

		OpDef{Domain: msDomain, Name: "Attention", Infer: cxMSAttention(1, 2, 4, 0)},
		OpDef{Domain: msDomain, Name: "QAttention", Infer: cxMSAttention(1, 2, 8, 2)},
		OpDef{Domain: msDomain, Name: "MultiHeadAttention", Infer: inferMultiHeadAttention},
		OpDef{Domain: msDomain, Name: "DecoderMaskedMultiHeadAttention", Infer: inferDecoderMaskedMHA},
		OpDef{Domain: msDomain, Name: "DecoderMaskedSelfAttention", Infer: inferDecoderMaskedSelfAttention},
		OpDef{Domain: msDomain, Name: "PackedAttention", Infer: inferPackedAttention},
		OpDef{Domain: msDomain, Name: "PackedMultiHeadAttention", Infer: inferPackedAttention},
		OpDef{Domain: msDomain, Name: "GroupQueryAttention", Infer: inferGroupQueryAttention},
		OpDef{Domain: msDomain, Name: "RotaryEmbedding", Infer: cxUnary},
		OpDef{Domain: msDomain, Name: "SkipLayerNormalization", Infer: inferSkipLayerNorm},
		OpDef{Domain: msDomain, Name: "SkipSimplifiedLayerNormalization", Infer: inferSkipLayerNorm},
		OpDef{Domain: msDomain, Name: "SimplifiedLayerNormalization", Infer: inferLayerNorm},
		OpDef{Domain: msDomain, Name: "EmbedLayerNormalization", Infer: inferEmbedLayerNorm},
		OpDef{Domain: msDomain, Name: "FastGelu", Infer: cxBroadcastFirst},
		OpDef{Domain: "ai.onnx.contrib", Name: "FastGelu", Infer: cxBroadcastFirst},
		OpDef{Domain: msDomain, Name: "BiasGelu", Infer: cxBroadcastFirst},
		OpDef{Domain: msDomain, Name: "BiasAdd", Infer: cxBroadcastFirst},
		OpDef{Domain: msDomain, Name: "Gelu", Infer: cxUnary},
		OpDef{Domain: msDomain, Name: "Inverse", Infer: cxUnary},
		OpDef{Domain: msDomain, Name: "QuickGelu", Infer: cxUnary},
		OpDef{Domain: msDomain, Name: "BiasSplitGelu", Infer: inferBiasSplitGelu},
		OpDef{Domain: msDomain, Name: "BiasDropout", Infer: inferBiasDropout},
		OpDef{Domain: msDomain, Name: "BiasSoftmax", Infer: cxUnary},
		OpDef{Domain: msDomain, Name: "GatherBlockQuantized", Infer: inferGatherBlockQuantized},
	)
}
