package report

// This file implements the `wolong inspect` summary: model IO, op
// histogram, parameters and multiply-accumulate counts.

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// ValueJSON is a graph input or output in JSON: dtype by wolong's name,
// shape as a list of integers (concrete dims), strings (symbolic dims) and
// nulls (unknown dims); the shape is null when the rank is unknown.
type ValueJSON struct {
	Name  string `json:"name"`
	DType string `json:"dtype"`
	Shape []any  `json:"shape"`
}

// NodeInfo is one row of the per-node table (onnx-tool's columns: input
// and output shapes, memory of the outputs, MACs and their share).
type NodeInfo struct {
	Name    string   `json:"name"`
	Op      string   `json:"op"`
	Inputs  []string `json:"inputs"`  // "name: float32[1,3,224,224]" (omitted inputs left out)
	Outputs []string `json:"outputs"` // "name: float32[1,64,112,112]"
	// OutputBytes is the size of the node's outputs (null when a shape is
	// not static): the memory the node allocates.
	OutputBytes *int64   `json:"output_bytes"`
	Params      int64    `json:"params"`
	MACs        *int64   `json:"macs"`      // null when the op does MACs but shapes are unknown
	MACShare    *float64 `json:"mac_share"` // MACs / the model's MACs (null when either is unknown or the model has none)
	FLOPs       *int64   `json:"flops"`     // 2 x MACs
}

// typesOf returns the type part of "name: type" entries.
func typesOf(entries []string) []string {
	n := min(len(entries), maxCellTypes)
	out := make([]string, n, n+1)
	for i, e := range entries[:n] {
		out[i] = e
		if k := strings.LastIndex(e, ": "); k >= 0 {
			out[i] = e[k+2:]
		}
	}
	if len(entries) > n {
		// a node of thousands of inputs (a Concat, a Sum) keeps its row
		// short; the JSON lists them all
		out = append(out, fmt.Sprintf("... (%d in all)", len(entries)))
	}
	return out
}

// maxCellTypes bounds the types one table cell lists.
const maxCellTypes = 8

// valueBytes is the storage size of a tensor value, if static.
func valueBytes(v *ir.Value) (int64, bool) {
	if v.Type.Kind != ir.KindTensor {
		return 0, false
	}
	n, ok := v.Type.Shape.NumElements()
	if !ok {
		return 0, false
	}
	return v.Type.DType.StorageBytes(n), true
}

// Inspect is the summary `wolong inspect` prints.
type Inspect struct {
	Model      string           `json:"model"`
	IRVersion  int64            `json:"ir_version"`
	Producer   string           `json:"producer"`
	Opsets     map[string]int64 `json:"opsets"`
	Inputs     []ValueJSON      `json:"inputs"`
	Outputs    []ValueJSON      `json:"outputs"`
	Nodes      int              `json:"nodes"`       // main graph
	NodesTotal int              `json:"nodes_total"` // including subgraphs and functions
	Ops        map[string]int   `json:"ops"`         // domain-qualified op -> count (main graph and subgraphs)
	Params     int64            `json:"params"`
	ParamBytes int64            `json:"param_bytes"`
	MACs       *int64           `json:"macs"`
	FLOPs      *int64           `json:"flops"` // 2 x MACs; null if unknown
	FLOPsNote  string           `json:"flops_note"`
	Warnings   []string         `json:"warnings"`
	NodeTable  []NodeInfo       `json:"node_table,omitempty"`
}

// NewInspect summarizes an inferred model. warnings are the import and
// inference messages; withNodes fills the per-node table.
func NewInspect(path string, m *ir.Model, warnings []string, withNodes bool) *Inspect {
	r := &Inspect{
		Model:     path,
		IRVersion: m.IRVersion,
		Producer:  strings.TrimSpace(m.ProducerName + " " + m.ProducerVersion),
		Opsets:    map[string]int64{},
		Ops:       map[string]int{},
		Nodes:     len(m.Graph.Nodes),
		Warnings:  append([]string{}, warnings...),
		FLOPsNote: "FLOPs = 2 x MACs; MACs count Conv/ConvTranspose/Gemm/MatMul/Einsum/Attention and LSTM/GRU/RNN (every time step and direction), Loop/Scan bodies x trip count; elementwise, pooling and normalization ops are not counted",
	}
	for _, o := range m.Opsets {
		r.Opsets[o.Domain] = o.Version
	}
	for _, v := range m.Graph.Inputs {
		if v.Const != nil {
			continue // an initializer listed as an input (IR < 4)
		}
		r.Inputs = append(r.Inputs, valueJSON(v))
	}
	for _, v := range m.Graph.Outputs {
		r.Outputs = append(r.Outputs, valueJSON(v))
	}
	m.Graph.Walk(func(g *ir.Graph) bool {
		r.NodesTotal += len(g.Nodes)
		for _, n := range g.Nodes {
			r.Ops[n.QualifiedOp()]++
		}
		return true
	})
	for _, f := range m.Functions {
		if f.Body != nil {
			r.NodesTotal += len(f.Body.Nodes)
		}
	}
	pc := newParamCounter()
	pc.model(m)
	r.Params, r.ParamBytes = pc.elems, pc.bytes
	var macs int64
	known := true
	for _, n := range m.Graph.Nodes {
		res := ir.NodeMACs(n)
		var params int64
		if p, _, ok := constantParams(n); ok {
			params = p
		}
		for _, in := range n.Inputs {
			if in != nil && in.Const != nil && in.Producer == nil {
				k, _ := in.Const.NumElements()
				params += k
			}
		}
		if res.Counted {
			if res.Known {
				macs += res.MACs
			} else {
				known = false
			}
		}
		if withNodes {
			info := NodeInfo{Name: ir.NodeLabel(n), Op: n.QualifiedOp(), Params: params, Inputs: []string{}}
			for _, in := range n.Inputs {
				if in != nil {
					info.Inputs = append(info.Inputs, in.Name+": "+in.Type.String())
				}
			}
			var size int64
			sized := true
			for _, o := range n.Outputs {
				if o != nil {
					info.Outputs = append(info.Outputs, o.Name+": "+o.Type.String())
					b, ok := valueBytes(o)
					size, sized = size+b, sized && ok
				}
			}
			if sized {
				info.OutputBytes = &size
			}
			if res.Counted && res.Known {
				m, f := res.MACs, 2*res.MACs
				info.MACs, info.FLOPs = &m, &f
			} else if !res.Counted {
				z := int64(0)
				info.MACs, info.FLOPs = &z, &z
			}
			r.NodeTable = append(r.NodeTable, info)
		}
	}
	if known {
		f := 2 * macs
		r.MACs, r.FLOPs = &macs, &f
		for i := range r.NodeTable {
			if m := r.NodeTable[i].MACs; m != nil && macs > 0 {
				s := float64(*m) / float64(macs)
				r.NodeTable[i].MACShare = &s
			}
		}
	} else {
		r.Warnings = append(r.Warnings, "MACs/FLOPs unknown: some multiply-accumulate ops have shapes that are not static (give --dim or --input values)")
	}
	return r
}

// constantParams counts the tensors that constant nodes materialize:
// Constant values (as inference decoded them), and ConstantOfShape outputs
// whose shape input is itself constant (some exporters and the ONNX
// "light" zoo models store weights that way).
func constantParams(n *ir.Node) (elems, bytes int64, ok bool) {
	if n.Domain != "" {
		return 0, 0, false
	}
	out := n.Output(0)
	if out == nil {
		return 0, 0, false
	}
	switch n.Op {
	case "Constant":
		if out.Const == nil {
			return 0, 0, false
		}
		e, _ := out.Const.NumElements()
		return e, out.Const.ByteSize(), true
	case "ConstantOfShape":
		if in := n.Input(0); in == nil || in.Const == nil {
			return 0, 0, false
		}
		e, ok := out.Type.Shape.NumElements()
		if !ok {
			return 0, 0, false
		}
		return e, out.Type.DType.StorageBytes(e), true
	}
	return 0, 0, false
}

func valueJSON(v *ir.Value) ValueJSON {
	t := v.Type
	if t.Kind == ir.KindUnknown && v.Declared != nil {
		t = *v.Declared
	}
	j := ValueJSON{Name: v.Name, DType: t.DType.String()}
	switch t.Kind {
	case ir.KindSequence, ir.KindOptional, ir.KindMap:
		j.DType = t.String()
	case ir.KindUnknown:
		j.DType = "unknown"
	}
	if t.Shape.Known && (t.Kind == ir.KindTensor || t.Kind == ir.KindSparse) {
		j.Shape = make([]any, len(t.Shape.Dims))
		for i, d := range t.Shape.Dims {
			switch {
			case d.IsConcrete():
				j.Shape[i] = d.Val
			case d.IsSymbolic():
				j.Shape[i] = d.Sym
			default:
				j.Shape[i] = nil
			}
		}
	}
	return j
}

// WriteText prints the summary as tables. Warnings are not printed:
// the command writes them on stderr.
func (r *Inspect) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Model: %s\n", r.Model)
	var ops []string
	for d, v := range r.Opsets {
		if d == "" {
			d = ir.OnnxDomain
		}
		ops = append(ops, fmt.Sprintf("%s %d", d, v))
	}
	sort.Strings(ops)
	fmt.Fprintf(ew, "IR version %d, opsets: %s", r.IRVersion, strings.Join(ops, ", "))
	if r.Producer != "" {
		fmt.Fprintf(ew, ", producer: %s", r.Producer)
	}
	fmt.Fprintln(ew)
	io := func(title string, vs []ValueJSON) {
		fmt.Fprintf(ew, "\n%s:\n", title)
		rows := make([][]string, len(vs))
		for i, v := range vs {
			rows[i] = []string{v.Name, v.DType, shapeText(v.Shape)}
		}
		ew.check(WriteTable(ew, []string{"name", "dtype", "shape"}, rows))
	}
	io("Inputs", r.Inputs)
	io("Outputs", r.Outputs)
	fmt.Fprintln(ew, "\nOperators:")
	type kv struct {
		op string
		n  int
	}
	var hist []kv
	for op, n := range r.Ops {
		hist = append(hist, kv{op, n})
	}
	sort.Slice(hist, func(i, j int) bool {
		if hist[i].n != hist[j].n {
			return hist[i].n > hist[j].n
		}
		return hist[i].op < hist[j].op
	})
	rows := make([][]string, len(hist))
	for i, h := range hist {
		rows[i] = []string{h.op, fmt.Sprint(h.n)}
	}
	ew.check(WriteTable(ew, []string{"op", "count"}, rows))
	if r.NodeTable != nil {
		fmt.Fprintln(ew, "\nNodes:")
		rows := make([][]string, len(r.NodeTable))
		for i, n := range r.NodeTable {
			mem, share := "?", "?"
			if n.OutputBytes != nil {
				mem = Bytes(*n.OutputBytes)
			}
			if n.MACShare != nil {
				share = Pct(*n.MACShare)
			}
			rows[i] = []string{fmt.Sprint(i), n.Name, n.Op, strings.Join(typesOf(n.Inputs), "\n"), strings.Join(typesOf(n.Outputs), "\n"),
				mem, fmt.Sprint(n.Params), optInt(n.MACs), share, optInt(n.FLOPs)}
		}
		// narrow terminals lose FLOPs (2 x MACs), params, the inputs, #
		ew.check(TextTable{Header: []string{"#", "node", "op", "input shapes", "output shapes", "memory", "params", "MACs", "MAC share", "FLOPs (2 x MACs)"},
			Rows: rows, Drop: []int{9, 6, 3, 0}}.Write(ew))
	}
	fmt.Fprintf(ew, "\nNodes: %d in the main graph, %d in all (subgraphs and functions included)\n", r.Nodes, r.NodesTotal)
	fmt.Fprintf(ew, "Parameters: %s (%d elements), %s\n", SI(float64(r.Params)), r.Params, Bytes(r.ParamBytes))
	if r.MACs != nil {
		fmt.Fprintf(ew, "MACs: %sMAC (%d); FLOPs: %sFLOP (%d, = 2 x MACs)\n", SI(float64(*r.MACs)), *r.MACs, SI(float64(*r.FLOPs)), *r.FLOPs)
	} else {
		fmt.Fprintln(ew, "MACs: unknown; FLOPs: unknown")
	}
	return ew.err
}

func shapeText(s []any) string {
	if s == nil {
		return "?"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		if d == nil {
			parts[i] = "?"
		} else {
			parts[i] = fmt.Sprint(d)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func optInt(p *int64) string {
	if p == nil {
		return "?"
	}
	return fmt.Sprint(*p)
}

// errWriter remembers the first write error so printing code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, nil
}

func (e *errWriter) check(err error) {
	if e.err == nil {
		e.err = err
	}
}
