package importer

// This file implements the exporter: IR -> ONNX ModelProto bytes.
//
// Messages are assembled as lists of chunks, so large initializer data is
// referenced, never copied, until the final write: exporting a model with a
// gigabyte of mapped weights streams each weight from its Source (a pread
// of the file it came from, or a computation) straight to the output,
// holding one buffer at a time. Models over protobuf's 2 GiB limit are
// written with external data (export_data.go).

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/wolong-dev/wolong/internal/pbwire"

	"github.com/wolong-dev/wolong/internal/safefile"
	"github.com/wolong-dev/wolong/ir"
)

// maxProtoSize is the 2 GiB limit of a serialized protobuf message.
const maxProtoSize = 1<<31 - 1

// msg is a protobuf message under construction.
type msg struct {
	chunks []chunk
	tail   []byte
	size   int
}

// chunk is a piece of the encoded message: bytes, or a Source streamed at
// write time.
type chunk struct {
	b   []byte
	src ir.Source
}

const bigChunk = 1 << 12

func (m *msg) flush() {
	if len(m.tail) > 0 {
		m.chunks = append(m.chunks, chunk{b: m.tail})
		m.tail = nil
	}
}

func (m *msg) raw(b []byte) {
	if len(b) >= bigChunk {
		m.flush()
		m.chunks = append(m.chunks, chunk{b: b})
	} else {
		m.tail = append(m.tail, b...)
	}
	m.size += len(b)
}

func (m *msg) tag(n num, t pbwire.Type) {
	l := len(m.tail)
	m.tail = pbwire.AppendTag(m.tail, n, t)
	m.size += len(m.tail) - l
}

func (m *msg) uvarint(v uint64) {
	l := len(m.tail)
	m.tail = pbwire.AppendVarint(m.tail, v)
	m.size += len(m.tail) - l
}

func (m *msg) int(n num, v int64) {
	m.tag(n, pbwire.VarintType)
	m.uvarint(uint64(v))
}

func (m *msg) intNonZero(n num, v int64) {
	if v != 0 {
		m.int(n, v)
	}
}

func (m *msg) bytes(n num, b []byte) {
	m.tag(n, pbwire.BytesType)
	m.uvarint(uint64(len(b)))
	m.raw(b)
}

func (m *msg) str(n num, s string) { m.bytes(n, []byte(s)) }

func (m *msg) strNonEmpty(n num, s string) {
	if s != "" {
		m.str(n, s)
	}
}

// message appends c as field n. c's small byte chunks and tail are copied
// into m's tail, so a model's many small messages end up in a few large
// buffers (a chunk list per message held ~200 bytes per node of a 100k-node
// model); large chunks and Sources stay references.
func (m *msg) message(n num, c *msg) {
	m.tag(n, pbwire.BytesType)
	m.uvarint(uint64(c.size))
	for _, ch := range c.chunks {
		if ch.src == nil && len(ch.b) < bigChunk {
			m.tail = append(m.tail, ch.b...)
			continue
		}
		m.flush()
		m.chunks = append(m.chunks, ch)
	}
	m.tail = append(m.tail, c.tail...)
	m.size += c.size
}

func (m *msg) packedInts(n num, vs []int64) {
	if len(vs) == 0 {
		return
	}
	size := 0
	for _, v := range vs {
		size += pbwire.SizeVarint(uint64(v))
	}
	b := make([]byte, 0, size) // one allocation, however long the list
	for _, v := range vs {
		b = pbwire.AppendVarint(b, uint64(v))
	}
	m.bytes(n, b)
}

func (m *msg) packedFloats(n num, vs []float32) {
	if len(vs) == 0 {
		return
	}
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		b = pbwire.AppendFixed32(b, math.Float32bits(v))
	}
	m.bytes(n, b)
}

func (m *msg) writeTo(w io.Writer) error {
	m.flush()
	for _, c := range m.chunks {
		if c.src != nil {
			if err := copySource(w, c.src); err != nil {
				return err
			}
			continue
		}
		if _, err := w.Write(c.b); err != nil {
			return err
		}
	}
	return nil
}

// Export writes m as an ONNX ModelProto. Value names that are empty or
// repeated (rewrites may create such) are made unique deterministically.
func Export(m *ir.Model, w io.Writer) error {
	e := &exporter{}
	mm, err := e.model(m)
	if err != nil {
		return err
	}
	if mm.size > maxProtoSize {
		return fmt.Errorf("export: model is %d bytes, over protobuf's 2 GiB limit (write it to a file, with its weights as external data)", mm.size)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := mm.writeTo(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteFile exports m to path atomically: it writes a temporary file in
// the same folder and renames it into place, so a failure leaves no
// partial file. It refuses to overwrite the file m was read from, the
// files its weights are in (or any file in the refuse list). A model over
// protobuf's 2 GiB limit is written with external data, as WriteFileWith
// does with the default options.
func WriteFile(m *ir.Model, path string, refuse ...string) error {
	_, err := WriteFileWith(m, path, WriteOptions{}, refuse...)
	return err
}

// AtomicWrite creates path atomically and refuses to write over any file
// in refuse; see package internal/safefile.
func AtomicWrite(path string, refuse []string, write func(io.Writer) error) error {
	return safefile.Write(path, refuse, write)
}

type exporter struct {
	names map[*ir.Value]string
	// taken holds the names defined in each enclosing scope, innermost
	// last: a name must be unique along the scope chain, while sibling
	// subgraphs (If branches) may reuse names.
	taken []map[string]bool
	next  int
	// captured holds the exported names of outer values that the subgraph
	// being reserved reads.
	captured map[string]bool
	// out steers where tensor data goes (export_data.go).
	out dataOut
}

func (e *exporter) isTaken(s string) bool {
	for _, m := range e.taken {
		if m[s] {
			return true
		}
	}
	return false
}

func (e *exporter) push() { e.taken = append(e.taken, map[string]bool{}) }
func (e *exporter) pop()  { e.taken = e.taken[:len(e.taken)-1] }

// name returns the unique exported name of v, claiming one in the
// innermost scope the first time v is seen.
func (e *exporter) name(v *ir.Value) string {
	if v == nil {
		return ""
	}
	if s, ok := e.names[v]; ok {
		return s
	}
	s := v.Name
	if s == "" || e.clash(s) {
		base := s
		if base == "" {
			base = "wl_value"
		}
		for {
			e.next++
			s = base + "_" + strconv.Itoa(e.next)
			if !e.isTaken(s) {
				break
			}
		}
	}
	e.taken[len(e.taken)-1][s] = true
	e.names[v] = s
	return s
}

// clash reports whether defining s in the innermost scope would be
// ambiguous: s is defined in that scope already, or in an enclosing scope
// by a value the current subgraph reads (shadowing an unread outer name is
// allowed, as ONNX files do with If-branch inputs).
func (e *exporter) clash(s string) bool {
	if e.taken[len(e.taken)-1][s] {
		return true
	}
	if !e.isTaken(s) {
		return false
	}
	return e.captured[s]
}

func (e *exporter) model(m *ir.Model) (*msg, error) {
	if m.Graph == nil {
		return nil, errors.New("export: model has no graph")
	}
	mm := &msg{}
	irv := m.IRVersion
	if irv == 0 {
		irv = 8
	}
	mm.int(modelIRVersion, irv)
	for _, o := range m.Opsets {
		om := &msg{}
		om.str(opsetDomain, o.Domain)
		om.int(opsetVersion, o.Version)
		mm.message(modelOpsetImport, om)
	}
	mm.strNonEmpty(modelProducerName, m.ProducerName)
	mm.strNonEmpty(modelProducerVersion, m.ProducerVersion)
	mm.strNonEmpty(modelDomain, m.Domain)
	mm.intNonZero(modelModelVersion, m.ModelVersion)
	mm.strNonEmpty(modelDocString, m.Doc)
	e.names, e.taken = map[*ir.Value]string{}, nil
	gm, err := e.graph(m.Graph)
	if err != nil {
		return nil, err
	}
	mm.message(modelGraph, gm)
	entries(mm, modelMetadataProps, m.Metadata)
	for _, f := range m.Functions {
		e.names, e.taken = map[*ir.Value]string{}, nil
		fm, err := e.function(f)
		if err != nil {
			return nil, err
		}
		mm.message(modelFunctions, fm)
	}
	return mm, nil
}

func entries(m *msg, n num, kvs []ir.StringPair) {
	for _, kv := range kvs {
		em := &msg{}
		em.str(entryKey, kv.Key)
		em.str(entryValue, kv.Value)
		m.message(n, em)
	}
}

// reserve claims the names a graph defines (not those of its subgraphs,
// which get scopes of their own), so generated names never collide.
func (e *exporter) reserve(g *ir.Graph) {
	for _, v := range g.Inputs {
		e.name(v)
	}
	for _, v := range g.Initializers {
		e.name(v)
	}
	for _, s := range g.Sparse() {
		e.name(s.Value)
	}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			e.name(o)
		}
	}
}

func (e *exporter) graph(g *ir.Graph) (*msg, error) {
	e.push()
	defer e.pop()
	e.captured = nil
	if g.ParentNode != nil {
		e.captured = map[string]bool{}
		for _, v := range g.ParentNode.CapturedValues() {
			e.captured[e.names[v]] = true
		}
	}
	e.reserve(g)
	gm := &msg{}
	order, err := ir.Topo(g)
	if err != nil {
		return nil, fmt.Errorf("export: %v", err)
	}
	for _, n := range order {
		nm, err := e.node(n)
		if err != nil {
			return nil, err
		}
		gm.message(graphNode, nm)
	}
	gm.strNonEmpty(graphName, g.Name)
	isInput := map[*ir.Value]bool{}
	for _, v := range g.Inputs {
		isInput[v] = true
	}
	for _, v := range g.Initializers {
		tm, err := e.initializer(v.Const, e.name(v))
		if err != nil {
			return nil, err
		}
		gm.message(graphInitializer, tm)
	}
	gm.strNonEmpty(graphDocString, g.Doc())
	for _, v := range g.Inputs {
		gm.message(graphInput, e.valueInfo(v, inputType(v)))
	}
	for _, v := range g.Outputs {
		gm.message(graphOutput, e.valueInfo(v, outputType(v)))
	}
	isOutput := map[*ir.Value]bool{}
	for _, v := range g.Outputs {
		isOutput[v] = true
	}
	for _, n := range order {
		for _, o := range n.Outputs {
			if o == nil || isOutput[o] {
				continue
			}
			if t := exportType(o); writableType(t) {
				gm.message(graphValueInfo, e.valueInfo(o, t))
			}
		}
	}
	for _, s := range g.Sparse() {
		sm, err := e.sparse(s.Sparse)
		if err != nil {
			return nil, err
		}
		gm.message(graphSparseInitializer, sm)
	}
	entries(gm, graphMetadataProps, g.Metadata())
	return gm, nil
}

// exportType is the type written for a graph output or value_info entry:
// the IR's, which is what the graph computes now (a pass may have retyped
// the value since the file declared it), with the file's declaration
// filling in only what inference left unknown where the two agree on kind
// and dtype. nil when neither says anything.
func exportType(v *ir.Value) *ir.Type {
	t, d := v.Type, v.Declared
	if t.Kind == ir.KindUnknown {
		return d
	}
	if d == nil || d.Kind != t.Kind {
		return &t
	}
	m := mergeDeclared(t, *d)
	return &m
}

// outputType is the type written for a graph output: its declaration
// where that agrees with the IR (dtype, rank, and every dim both give as a
// number), so the names a model gives its dims stay; the IR's
// (exportType) where it does not.
func outputType(v *ir.Value) *ir.Type {
	t, d := v.Type, v.Declared
	if d == nil || t.Kind == ir.KindUnknown {
		if d != nil {
			return d
		}
		return &v.Type
	}
	if d.Kind != t.Kind || !agrees(t, *d) {
		return exportType(v)
	}
	out := d.Clone()
	if out.DType == ir.Undefined {
		out.DType = t.DType
	}
	if !out.Shape.Known {
		out.Shape = t.Shape.Clone()
	}
	for i, x := range out.Shape.Dims {
		if !x.IsConcrete() && !x.IsSymbolic() && t.Shape.Known {
			out.Shape.Dims[i] = t.Shape.Dims[i]
		}
	}
	return &out
}

// agrees reports whether declaration d contradicts nothing the IR's type
// t says: dtypes, ranks, and dims both give as numbers are equal.
func agrees(t, d ir.Type) bool {
	if t.DType != ir.Undefined && d.DType != ir.Undefined && t.DType != d.DType {
		return false
	}
	if !t.Shape.Known || !d.Shape.Known {
		return true
	}
	if len(t.Shape.Dims) != len(d.Shape.Dims) {
		return false
	}
	for i, x := range t.Shape.Dims {
		if y := d.Shape.Dims[i]; x.IsConcrete() && y.IsConcrete() && x.Val != y.Val {
			return false
		}
	}
	return true
}

// mergeDeclared fills what t leaves unknown from d (same kind): the dtype,
// the shape when t's rank is unknown, single dims, a sequence's element.
func mergeDeclared(t, d ir.Type) ir.Type {
	out := t.Clone()
	if out.DType == ir.Undefined {
		out.DType = d.DType
	} else if d.DType != ir.Undefined && d.DType != out.DType {
		return out // a stale declaration: nothing of it holds
	}
	switch {
	case !out.Shape.Known && d.Shape.Known:
		out.Shape = d.Shape.Clone()
	case out.Shape.Known && d.Shape.Known && len(out.Shape.Dims) == len(d.Shape.Dims):
		for i, x := range out.Shape.Dims {
			if !x.IsConcrete() && !x.IsSymbolic() {
				out.Shape.Dims[i] = d.Shape.Dims[i]
			}
		}
	}
	if out.Elem == nil && d.Elem != nil {
		e := d.Elem.Clone()
		out.Elem = &e
	} else if out.Elem != nil && d.Elem != nil && out.Elem.Kind == d.Elem.Kind {
		e := mergeDeclared(*out.Elem, *d.Elem)
		out.Elem = &e
	}
	return out
}

func inputType(v *ir.Value) *ir.Type {
	if v.Type.Kind == ir.KindUnknown && v.Declared != nil {
		return v.Declared
	}
	return &v.Type
}

func (e *exporter) valueInfo(v *ir.Value, t *ir.Type) *msg {
	vm := &msg{}
	vm.str(viName, e.name(v))
	if writableType(t) {
		vm.message(viType, typeMsg(t))
	}
	vm.strNonEmpty(viDocString, v.Doc())
	entries(vm, viMetadataProps, v.Metadata())
	return vm
}

// writableType reports whether t says enough to be written as a
// TypeProto: a tensor type needs its element type (a runtime refuses
// elem_type 0), a sequence, optional or map its element's.
func writableType(t *ir.Type) bool {
	if t == nil {
		return false
	}
	switch t.Kind {
	case ir.KindTensor, ir.KindSparse:
		return t.DType != ir.Undefined
	case ir.KindSequence, ir.KindOptional:
		return t.Elem != nil && writableType(t.Elem)
	case ir.KindMap:
		return t.DType != ir.Undefined && t.Elem != nil && writableType(t.Elem)
	}
	return false
}

func typeMsg(t *ir.Type) *msg {
	tm := &msg{}
	switch t.Kind {
	case ir.KindTensor, ir.KindSparse:
		inner := &msg{}
		inner.intNonZero(tensorTypeElemType, int64(t.DType))
		if t.Shape.Known {
			sm := &msg{}
			for _, d := range t.Shape.Dims {
				dm := &msg{}
				switch {
				case d.IsConcrete():
					dm.int(dimValue, d.Val)
				case d.IsSymbolic():
					dm.str(dimParam, d.Sym)
				}
				sm.message(shapeDim, dm)
			}
			inner.message(tensorTypeShape, sm)
		}
		if t.Kind == ir.KindTensor {
			tm.message(typeTensor, inner)
		} else {
			tm.message(typeSparseTensor, inner)
		}
	case ir.KindSequence, ir.KindOptional:
		inner := &msg{}
		if t.Elem != nil {
			inner.message(seqElemType, typeMsg(t.Elem))
		}
		if t.Kind == ir.KindSequence {
			tm.message(typeSequence, inner)
		} else {
			tm.message(typeOptional, inner)
		}
	case ir.KindMap:
		inner := &msg{}
		inner.int(mapKeyType, int64(t.DType))
		if t.Elem != nil {
			inner.message(mapValueType, typeMsg(t.Elem))
		}
		tm.message(typeMap, inner)
	}
	tm.strNonEmpty(typeDenotation, t.Denotation())
	return tm
}

func (e *exporter) node(n *ir.Node) (*msg, error) {
	nm := &msg{}
	for _, in := range n.Inputs {
		nm.str(nodeInput, e.name(in))
	}
	for _, o := range n.Outputs {
		nm.str(nodeOutput, e.name(o))
	}
	nm.strNonEmpty(nodeName, n.Name)
	nm.str(nodeOpType, n.Op)
	for _, a := range n.Attrs {
		am, err := e.attr(a)
		if err != nil {
			return nil, fmt.Errorf("export: node %s: %v", ir.NodeLabel(n), err)
		}
		nm.message(nodeAttribute, am)
	}
	nm.strNonEmpty(nodeDocString, n.Doc())
	nm.strNonEmpty(nodeDomain, n.Domain)
	nm.strNonEmpty(nodeOverload, n.Overload())
	entries(nm, nodeMetadataProps, n.Metadata())
	return nm, nil
}

func (e *exporter) attr(a *ir.Attr) (*msg, error) {
	am := &msg{}
	am.str(attrName, a.Name)
	if a.RefAttrName != "" {
		am.str(attrRefAttrName, a.RefAttrName)
	}
	am.strNonEmpty(attrDocString, a.Doc)
	am.int(attrType, int64(a.Type))
	switch a.Type {
	case ir.AttrFloat:
		am.tag(attrF, pbwire.Fixed32Type)
		b := pbwire.AppendFixed32(nil, math.Float32bits(a.F))
		am.raw(b)
	case ir.AttrInt:
		am.int(attrI, a.I)
	case ir.AttrString:
		am.bytes(attrS, a.S)
	case ir.AttrTensor:
		if a.T != nil {
			tm, err := e.tensor(a.T, a.T.Name)
			if err != nil {
				return nil, err
			}
			am.message(attrT, tm)
		}
	case ir.AttrGraph:
		if a.G != nil {
			gm, err := e.graph(a.G)
			if err != nil {
				return nil, err
			}
			am.message(attrG, gm)
		}
	case ir.AttrSparseTensor:
		if a.ST != nil {
			sm, err := e.sparse(a.ST)
			if err != nil {
				return nil, err
			}
			am.message(attrSparseTensor, sm)
		}
	case ir.AttrTypeProto:
		if a.TP != nil {
			am.message(attrTP, typeMsg(a.TP))
		}
	case ir.AttrFloats:
		am.packedFloats(attrFloats, a.Floats)
	case ir.AttrInts:
		am.packedInts(attrInts, a.Ints)
	case ir.AttrStrings:
		for _, s := range a.Strings {
			am.bytes(attrStrings, s)
		}
	case ir.AttrTensors:
		for _, t := range a.Tensors {
			tm, err := e.tensor(t, t.Name)
			if err != nil {
				return nil, err
			}
			am.message(attrTensors, tm)
		}
	case ir.AttrGraphs:
		for _, g := range a.Graphs {
			gm, err := e.graph(g)
			if err != nil {
				return nil, err
			}
			am.message(attrGraphs, gm)
		}
	case ir.AttrSparseTensors:
		for _, st := range a.SparseTensors {
			sm, err := e.sparse(st)
			if err != nil {
				return nil, err
			}
			am.message(attrSparseTensors, sm)
		}
	case ir.AttrTypeProtos:
		for _, t := range a.TypeProtos {
			am.message(attrTypeProtos, typeMsg(t))
		}
	}
	return am, nil
}

// tensor encodes t. Packed data is written by e.data: inline (streamed
// from its Source, or Raw referenced without copying) or, for initializers
// when writing external data, as a reference into an external file.
func (e *exporter) tensor(t *ir.Tensor, name string) (*msg, error) {
	tm := &msg{}
	tm.packedInts(tensorDims, t.Dims)
	tm.int(tensorDataType, int64(t.DType))
	if seg := t.Segment(); seg != nil {
		sm := &msg{}
		sm.int(segmentBegin, seg[0])
		sm.int(segmentEnd, seg[1])
		tm.message(tensorSegment, sm)
	}
	tm.packedFloats(tensorFloatData, t.Floats())
	if len(t.Int32s()) > 0 {
		vs := make([]int64, len(t.Int32s()))
		for i, v := range t.Int32s() {
			vs[i] = int64(v)
		}
		tm.packedInts(tensorInt32Data, vs)
	}
	for _, s := range t.Strings() {
		tm.bytes(tensorStringData, s)
	}
	tm.packedInts(tensorInt64Data, t.Int64s())
	tm.strNonEmpty(tensorName, name)
	tm.strNonEmpty(tensorDocString, t.Doc())
	e.data(tm, t)
	if len(t.Float64s()) > 0 {
		b := make([]byte, 0, 8*len(t.Float64s()))
		for _, v := range t.Float64s() {
			b = pbwire.AppendFixed64(b, math.Float64bits(v))
		}
		tm.bytes(tensorDoubleData, b)
	}
	if len(t.Uint64s()) > 0 {
		var b []byte
		for _, v := range t.Uint64s() {
			b = pbwire.AppendVarint(b, v)
		}
		tm.bytes(tensorUint64Data, b)
	}
	entries(tm, tensorMetadataProps, t.Metadata())
	return tm, nil
}

func (e *exporter) sparse(st *ir.SparseTensor) (*msg, error) {
	sm := &msg{}
	vm, err := e.tensor(st.Values, st.Values.Name)
	if err != nil {
		return nil, err
	}
	sm.message(sparseValues, vm)
	im, err := e.tensor(st.Indices, st.Indices.Name)
	if err != nil {
		return nil, err
	}
	sm.message(sparseIndices, im)
	sm.packedInts(sparseDims, st.Dims)
	return sm, nil
}

func (e *exporter) function(f *ir.Function) (*msg, error) {
	fm := &msg{}
	fm.str(fnName, f.Name)
	e.push()
	defer e.pop()
	if f.Body != nil {
		e.reserve(f.Body)
		for _, v := range f.Body.Inputs {
			fm.str(fnInput, e.name(v))
		}
		for _, v := range f.Body.Outputs {
			fm.str(fnOutput, e.name(v))
		}
	}
	for _, a := range f.AttrNames {
		fm.str(fnAttribute, a)
	}
	if f.Body != nil {
		order, err := ir.Topo(f.Body)
		if err != nil {
			return nil, fmt.Errorf("export: function %s: %v", f.Name, err)
		}
		for _, n := range order {
			nm, err := e.node(n)
			if err != nil {
				return nil, err
			}
			fm.message(fnNode, nm)
		}
	}
	fm.strNonEmpty(fnDocString, f.Doc)
	for _, o := range f.Opsets {
		om := &msg{}
		om.str(opsetDomain, o.Domain)
		om.int(opsetVersion, o.Version)
		fm.message(fnOpsetImport, om)
	}
	fm.strNonEmpty(fnDomain, f.Domain)
	for _, a := range f.AttrDefs {
		am, err := e.attr(a)
		if err != nil {
			return nil, err
		}
		fm.message(fnAttributeProto, am)
	}
	fm.strNonEmpty(fnOverload, f.Overload)
	entries(fm, fnMetadataProps, f.Metadata)
	return fm, nil
}
