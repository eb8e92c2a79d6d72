package llm

// This file implements TransformerOf: reading a decoder transformer's
// architecture from an ONNX graph, so the LLM planner runs on the model a
// user gives (wolong's generator, a Hugging Face / onnxruntime-genai
// export) rather than on flags.
//
// What it reads, in the graph as imported (before optimization):
//
//   - attention cores, one per layer: ai.onnx Attention, com.microsoft
//     Attention / MultiHeadAttention / GroupQueryAttention, wolong's fused
//     Attention, or an unfused Softmax between two activation MatMuls;
//     their head counts (attributes, else the Q/K shapes);
//   - the token embedding: a Gather of a 2-D float table by integer ids
//     (or EmbedLayerNormalization), giving vocab and hidden;
//   - every weight matrix a MatMul or Gemm multiplies by (through
//     Transpose / Cast / Identity of a constant): per-layer totals give the
//     MLP size; 3-D [experts, in, out] weights are experts; the head is the
//     [hidden, vocab] matrix, or the embedding table itself (tied);
//   - the norms (RMS or Layer), biases (an Add of a 1-D constant to a
//     matmul), learned positions (a second [positions, hidden] table),
//     top-k (the TopK that routes), and the sequence length (static dims).

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

// The ops the transformer detector reads, by key (ir's op identity).
var (
	keyGather         = ir.Key("", "Gather")
	keyWhere          = ir.Key("", "Where")
	keySoftmax        = ir.Key("", "Softmax")
	keyTopK           = ir.Key("", "TopK")
	keyAttention      = ir.Key("", "Attention")
	keyAttentionMS    = ir.Key("com.microsoft", "Attention")
	keyMHA            = ir.Key("com.microsoft", "MultiHeadAttention")
	keyGQA            = ir.Key("com.microsoft", "GroupQueryAttention")
	keyEmbedLayerNorm = ir.Key("com.microsoft", "EmbedLayerNormalization")
	keyFastGelu       = ir.Key("com.microsoft", "FastGelu")
)

// NotTransformerError says a graph is not a decoder transformer the
// planner can read.
type NotTransformerError struct{ Reason string }

func (e *NotTransformerError) Error() string {
	return "not a decoder transformer: " + e.Reason
}

// weight is one matrix a linear op multiplies by, as it sees it.
type weight struct {
	node *ir.Node
	src  *ir.Value // the constant it comes from
	dims []int64   // [in, out] or [experts, in, out]
}

func (w weight) elems() float64 {
	p := 1.0
	for _, d := range w.dims {
		p *= float64(d)
	}
	return p
}

type detector struct {
	g       *ir.Graph
	cores   []*ir.Node
	weights []weight
	emb     *ir.Value // embedding table
	t       Transformer
}

// TransformerOf reads the architecture of the decoder-only transformer m
// (see the file comment). Seq is 0 when the sequence length is symbolic;
// Dropout is false (an exported graph has none); Name is the graph's.
// A graph with no attention, no weights or dimensions that do not add up
// returns a *NotTransformerError.
func TransformerOf(m *ir.Model) (*Transformer, error) {
	if m == nil || m.Graph == nil {
		return nil, &NotTransformerError{"no graph"}
	}
	d := &detector{g: m.Graph}
	d.t.Name = m.Graph.Name
	d.scan()
	if len(d.cores) == 0 {
		return nil, &NotTransformerError{"no attention (ai.onnx or com.microsoft Attention, MultiHeadAttention, GroupQueryAttention, or MatMul-Softmax-MatMul)"}
	}
	if len(d.weights) == 0 {
		return nil, &NotTransformerError{"no weight matrices (MatMul or Gemm by a constant)"}
	}
	if err := d.dims(); err != nil {
		return nil, err
	}
	t := d.t
	if err := t.Validate(); err != nil && t.Seq != 0 {
		return nil, &NotTransformerError{err.Error()}
	}
	return &t, nil
}

// scan collects attention cores, weights, the embedding and the flags.
func (d *detector) scan() {
	for _, n := range d.g.Nodes {
		switch {
		case d.isCore(n):
			d.cores = append(d.cores, n)
		case n.Is(keyGather) && d.emb == nil:
			if w, ok := constMatrix(n.Input(0)); ok && len(w.dims) == 2 && n.Input(1) != nil && n.Input(1).Type.DType.IsInt() && !n.Input(1).IsConst() {
				d.emb = w.src
				d.t.Vocab, d.t.Hidden = int(w.dims[0]), int(w.dims[1])
				d.seqFrom(n.Input(1), 1)
			}
		case n.Is(keyEmbedLayerNorm) && d.emb == nil:
			if w, ok := constMatrix(n.Input(2)); ok && len(w.dims) == 2 {
				d.emb = w.src
				d.t.Vocab, d.t.Hidden = int(w.dims[0]), int(w.dims[1])
				d.t.LearnedPositions = n.Input(3) != nil
				d.seqFrom(n.Input(0), 1)
			}
		}
		switch n.Op {
		case "RMSNormalization", "SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization", "RMSNorm":
			d.t.RMSNorm = true
		}
		if w, ok := linearWeight(n); ok {
			d.weights = append(d.weights, w)
			d.biasAfter(n)
		}
		if n.Is(keyAttentionMS) {
			if w, ok := constMatrix(n.Input(1)); ok && len(w.dims) == 2 {
				w.node = n
				d.weights = append(d.weights, w)
				d.t.Bias = d.t.Bias || n.Input(2) != nil
			}
		}
		if n.Is(keyFastGelu) && n.Input(1) != nil {
			d.t.Bias = true
		}
	}
}

// isCore reports whether n is an attention core.
func (d *detector) isCore(n *ir.Node) bool {
	switch n.Op {
	case "Attention":
		return n.Domain == "" || n.Domain == "com.microsoft" || n.Domain == ir.FusedDomain
	case "MultiHeadAttention", "GroupQueryAttention":
		return n.Domain == "com.microsoft"
	case "Softmax":
		// unfused: Softmax(MatMul(Q, K^T) [* scale] [+ mask]) feeding a MatMul
		v := n.Input(0)
		for i := 0; i < 4 && v != nil && v.Producer != nil; i++ {
			p := v.Producer
			if p.Is(ir.OpMatMul) {
				return !p.Input(0).IsConst() && !p.Input(1).IsConst() && consumedBy(n.Output(0), "MatMul")
			}
			if !p.IsAny(ir.OpAdd, ir.OpMul, ir.OpDiv, keyWhere) {
				return false
			}
			v = p.Input(0)
		}
	}
	return false
}

// consumedBy reports whether some node of op reads v.
func consumedBy(v *ir.Value, op string) bool {
	for _, u := range v.Uses {
		if u.Node != nil && u.Node.Op == op {
			return true
		}
	}
	return false
}

// constMatrix follows Transpose, Cast and Identity from v to a float
// constant and returns its dims as v holds them.
func constMatrix(v *ir.Value) (weight, bool) {
	transposed := false
	for i := 0; v != nil && i < 8; i++ {
		if v.Const != nil {
			if !v.Const.DType.IsFloat() || len(v.Const.Dims) < 2 || len(v.Const.Dims) > 3 {
				return weight{}, false
			}
			dims := append([]int64(nil), v.Const.Dims...)
			if transposed {
				k := len(dims)
				dims[k-1], dims[k-2] = dims[k-2], dims[k-1]
			}
			return weight{src: v, dims: dims}, true
		}
		p := v.Producer
		if p == nil {
			return weight{}, false
		}
		switch p.Op {
		case "Transpose":
			transposed = !transposed
		case "Cast", "Identity":
		default:
			return weight{}, false
		}
		v = p.Input(0)
	}
	return weight{}, false
}

// linearWeight returns the weight a MatMul (input 1) or Gemm multiplies by.
func linearWeight(n *ir.Node) (weight, bool) {
	if !n.IsAny(ir.OpMatMul, ir.OpGemm) {
		return weight{}, false
	}
	w, ok := constMatrix(n.Input(1))
	if !ok {
		return weight{}, false
	}
	if n.Is(ir.OpGemm) {
		if len(w.dims) != 2 {
			return weight{}, false
		}
		if n.AttrInt("transB", 0) != 0 {
			w.dims[0], w.dims[1] = w.dims[1], w.dims[0]
		}
	}
	w.node = n
	return w, true
}

// biasAfter marks Bias when n's output is added to a 1-D float constant.
func (d *detector) biasAfter(n *ir.Node) {
	if n.Is(ir.OpGemm) && n.Input(2) != nil {
		d.t.Bias = true
	}
	for _, u := range n.Output(0).Uses {
		if u.Node.Is(ir.OpAdd) {
			for _, in := range u.Node.Inputs {
				if in != nil && in.Const != nil && len(in.Const.Dims) == 1 && in.Const.DType.IsFloat() {
					d.t.Bias = true
				}
			}
		}
	}
}

// seqFrom sets Seq from dim axis of v when it is static.
func (d *detector) seqFrom(v *ir.Value, axis int) {
	if d.t.Seq > 0 || v == nil || !v.Type.Shape.Known || len(v.Type.Shape.Dims) <= axis {
		return
	}
	if s := v.Type.Shape.Dims[axis]; s.IsConcrete() && s.Val > 0 && s.Val <= maxDim {
		d.t.Seq = int(s.Val)
	}
}

// staticDims returns v's dims when all are concrete.
func staticDims(v *ir.Value) []int64 {
	if v == nil || !v.Type.Shape.Known {
		return nil
	}
	out := make([]int64, len(v.Type.Shape.Dims))
	for i, d := range v.Type.Shape.Dims {
		if !d.IsConcrete() {
			return nil
		}
		out[i] = d.Val
	}
	return out
}

// lastDim returns v's static last dim (0 when unknown).
func lastDim(v *ir.Value) int64 {
	if v == nil || !v.Type.Shape.Known || len(v.Type.Shape.Dims) == 0 {
		return 0
	}
	if d := v.Type.Shape.Dims[len(v.Type.Shape.Dims)-1]; d.IsConcrete() {
		return d.Val
	}
	return 0
}

// heads reads the first core's query heads, key/value heads and head
// dimension (0 where the graph does not say).
func (d *detector) heads() (q, kv, dh int64) {
	n := d.cores[0]
	switch {
	case n.Is(keyAttention):
		q, kv = n.AttrInt("q_num_heads", 0), n.AttrInt("kv_num_heads", 0)
		if qd := staticDims(n.Input(0)); len(qd) == 4 {
			q, dh = qd[1], qd[3]
			if kd := staticDims(n.Input(1)); len(kd) == 4 {
				kv = kd[1]
			}
		} else if q > 0 {
			dh = lastDim(n.Input(0)) / q
		}
	case n.Is(keyAttentionMS): // com.microsoft: packed QKV weight [h, 3 heads d]
		q = n.AttrInt("num_heads", 0)
		kv = q
		if sizes, ok := n.AttrInts("qkv_hidden_sizes"); ok && len(sizes) == 3 && q > 0 {
			dh, kv = sizes[0]/q, sizes[1]*q/max(1, sizes[0])
		} else if w, ok := constMatrix(n.Input(1)); ok && q > 0 {
			dh = w.dims[len(w.dims)-1] / (3 * q)
		}
	case n.IsAny(keyMHA, keyGQA):
		q = n.AttrInt("num_heads", 0)
		kv = n.AttrInt("kv_num_heads", q)
		if q > 0 && n.Input(1) != nil {
			dh = lastDim(n.Input(0)) / q
		} else if q > 0 && kv > 0 { // packed query [B, S, (q + 2 kv) d]
			dh = lastDim(n.Input(0)) / (q + 2*kv)
		}
		if kd := staticDims(n.Input(1)); len(kd) == 4 {
			kv = kd[1]
		} else if dh > 0 && n.Is(keyMHA) && lastDim(n.Input(1)) > 0 {
			kv = lastDim(n.Input(1)) / dh
		}
	default: // unfused or wolong: Q [B, heads, S, d], K^T [B, heads, d, S]
		mm := n.Input(0)
		for mm != nil && mm.Producer != nil && !mm.Producer.Is(ir.OpMatMul) {
			mm = mm.Producer.Input(0)
		}
		if n.Domain == ir.FusedDomain {
			mm = nil
			if qd := staticDims(n.Input(0)); len(qd) == 4 {
				q, dh = qd[1], qd[3]
			}
		} else if mm != nil && mm.Producer != nil {
			if qd := staticDims(mm.Producer.Input(0)); len(qd) == 4 {
				q, dh = qd[1], qd[3]
			}
		}
		kv = q
	}
	return q, kv, dh
}

// dims derives the dimensions from the cores and weights.
func (d *detector) dims() error {
	t := &d.t
	t.Layers = len(d.cores)
	q, kv, dh := d.heads()
	if q <= 0 || dh <= 0 {
		return &NotTransformerError{fmt.Sprintf("cannot read the attention heads of %s (%s)", d.cores[0].Name, d.cores[0].QualifiedOp())}
	}
	if kv <= 0 {
		kv = q
	}
	t.Heads, t.KVHeads = int(q), int(kv)
	if t.Hidden == 0 { // no embedding: the attention input's width
		t.Hidden = int(lastDim(d.cores[0].Input(0)))
		if d.cores[0].Is(keySoftmax) || d.cores[0].Domain == ir.FusedDomain || t.Hidden == int(q*dh) {
			t.Hidden = int(q * dh)
		}
	}
	h := int64(t.Hidden)
	if h <= 0 {
		return &NotTransformerError{"cannot read the hidden size (no token embedding)"}
	}
	if q*dh != h {
		t.HeadDim = int(dh)
	}
	var perLayer, experts float64
	var down int64
	var headW *weight
	for i := range d.weights {
		w := &d.weights[i]
		switch {
		case len(w.dims) == 3: // stacked experts [E, in, out]
			t.Experts = int(w.dims[0])
			experts += w.elems() / float64(w.dims[0])
			if w.dims[2] == h {
				down = max(down, w.dims[1])
			}
		case t.Vocab > 0 && ((w.dims[0] == h && w.dims[1] == int64(t.Vocab)) || w.src == d.emb):
			headW = w
		default:
			perLayer += w.elems()
			if w.dims[1] == h && !w.node.IsAny(keyAttention, keyAttentionMS) {
				down = max(down, w.dims[0])
			}
		}
	}
	t.TiedEmbeddings = headW == nil || headW.src == d.emb
	if t.Vocab == 0 && headW == nil {
		return &NotTransformerError{"no token embedding or language-model head"}
	}
	L := float64(t.Layers)
	attn := float64(h*(q+2*kv)*dh + q*dh*h)
	mlp := perLayer/L - attn
	if t.Experts > 1 {
		router := h * int64(t.Experts)
		mlp = experts / L
		if math.Abs(perLayer/L-attn-float64(router)) > 0.01*attn {
			return &NotTransformerError{fmt.Sprintf("per-layer weights %.0f do not match attention %.0f + router %d", perLayer/L, attn, router)}
		}
		t.TopK = d.topK()
	}
	if down <= 0 || mlp <= 0 {
		return &NotTransformerError{fmt.Sprintf("cannot read the MLP (per-layer weights %.0f, attention %.0f)", perLayer/L, attn)}
	}
	t.FFN = int(down)
	switch m := math.Round(mlp / float64(h*down)); m {
	case 2:
	case 3:
		t.Gated = true
	default:
		return &NotTransformerError{fmt.Sprintf("MLP of %.0f weights per layer is %.2f x hidden x ffn (want 2: GELU, or 3: gated)", mlp, mlp/float64(h*down))}
	}
	if !t.LearnedPositions {
		t.LearnedPositions = d.positionTable()
	}
	if t.Seq == 0 {
		n := d.cores[0]
		if qd := staticDims(n.Input(0)); len(qd) >= 3 {
			t.Seq = int(qd[len(qd)-2])
			if len(qd) == 3 {
				t.Seq = int(qd[1])
			}
		}
	}
	return nil
}

// topK reads the routing TopK's k: per token when it selects over the
// experts axis; per expert (expert choice, k = capacity) when over the
// tokens, converted to experts per token.
func (d *detector) topK() int {
	for _, n := range d.g.Nodes {
		if !n.Is(keyTopK) {
			continue
		}
		k := n.AttrInt("k", 0)
		if kv := n.Input(1); kv != nil && kv.Const != nil {
			if vals, err := kv.Const.Int64Values(1); err == nil && len(vals) == 1 {
				k = vals[0]
			}
		}
		dims := staticDims(n.Input(0))
		if k <= 0 || len(dims) == 0 {
			continue
		}
		axis := n.AttrInt("axis", -1)
		if axis < 0 {
			axis += int64(len(dims))
		}
		if axis < 0 || axis >= int64(len(dims)) {
			continue
		}
		if dims[axis] == int64(d.t.Experts) {
			return int(k)
		}
		if tokens := dims[axis]; tokens > 0 { // expert choice: k = capacity
			return max(1, int(math.Round(float64(k)*float64(d.t.Experts)/float64(tokens))))
		}
	}
	return 2
}

// positionTable reports a learned position table: a second 2-D float
// constant of width hidden read by a Gather or an Add.
func (d *detector) positionTable() bool {
	for _, n := range d.g.Nodes {
		if !n.IsAny(keyGather, ir.OpAdd) {
			continue
		}
		for _, in := range n.Inputs {
			if in != nil && in != d.emb && in.Const != nil && in.Const.DType.IsFloat() &&
				len(in.Const.Dims) == 2 && in.Const.Dims[1] == int64(d.t.Hidden) {
				return true
			}
		}
	}
	return false
}
