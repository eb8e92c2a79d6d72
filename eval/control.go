package eval

// This file implements control flow (If, Loop, Scan), sequences and
// optionals. Subgraphs see the values of enclosing scopes (outer-scope
// captures) through the scope chain.

import (
	"github.com/wolong-dev/wolong/ir"
)

// maxLoopIterations bounds a Loop without a trip count.
const maxLoopIterations = 1 << 24

func registerControl() {
	registerValue(kernelIf, "If")
	registerValue(kernelLoop, "Loop")
	registerValue(kernelScan, "Scan")
	registerValue(kernelSequenceEmpty, "SequenceEmpty")
	registerValue(kernelSequenceConstruct, "SequenceConstruct")
	registerValue(kernelSequenceAt, "SequenceAt")
	registerValue(kernelSequenceInsert, "SequenceInsert")
	registerValue(kernelSequenceErase, "SequenceErase")
	registerValue(kernelSequenceLength, "SequenceLength")
	registerValue(kernelConcatFromSequence, "ConcatFromSequence")
	registerValue(kernelSplitToSequence, "SplitToSequence")
	registerValue(kernelSequenceMap, "SequenceMap")
	registerValue(kernelOptional, "Optional")
	registerValue(kernelOptionalHasElement, "OptionalHasElement")
	registerValue(kernelOptionalGetElement, "OptionalGetElement")
}

func tensorArg(in []Value, i int, what string) (*Tensor, error) {
	if i >= len(in) || in[i] == nil {
		return nil, errf("missing input %d (%s)", i, what)
	}
	t, ok := in[i].(*Tensor)
	if !ok {
		return nil, errf("input %d (%s): expected a tensor, got %s", i, what, valueKind(in[i]))
	}
	return t, nil
}

func seqArg(in []Value, i int) (*Sequence, error) {
	if i >= len(in) || in[i] == nil {
		return nil, errf("missing input %d (sequence)", i)
	}
	s, ok := in[i].(*Sequence)
	if !ok {
		return nil, errf("input %d: expected a sequence, got %s", i, valueKind(in[i]))
	}
	return s, nil
}

func boolScalar(t *Tensor, what string) (bool, error) {
	if t.Len() != 1 {
		return false, errf("%s must have one element, got %s", what, t)
	}
	return isNonZero(t, 0), nil
}

func kernelIf(c *Ctx, in []Value) ([]Value, error) {
	cond, err := tensorArg(in, 0, "cond")
	if err != nil {
		return nil, err
	}
	b, err := boolScalar(cond, "cond")
	if err != nil {
		return nil, err
	}
	name := "else_branch"
	if b {
		name = "then_branch"
	}
	g := c.Graph(name)
	if g == nil {
		return nil, c.Errorf("missing %s", name)
	}
	outs, err := c.RunSubgraph(g, nil)
	if err != nil {
		return nil, err
	}
	return outs, nil
}

// stack joins equally shaped tensors along a new axis.
func (c *Ctx) stack(items []*Tensor, axis int, dt ir.DType, elemShape []int) (*Tensor, error) {
	if len(items) == 0 {
		shape := append([]int{}, elemShape...)
		shape = append(shape[:axis], append([]int{0}, shape[axis:]...)...)
		return c.alloc(dt, shape)
	}
	parts := make([]*Tensor, len(items))
	for i, t := range items {
		if !equalInts(t.Shape, items[0].Shape) || t.DType != items[0].DType {
			return nil, c.Errorf("cannot stack %s and %s", items[0], t)
		}
		shape := append([]int{}, t.Shape...)
		shape = append(shape[:axis], append([]int{1}, shape[axis:]...)...)
		parts[i] = t.reshaped(shape)
	}
	return c.concat(parts, axis)
}

// declaredShape returns the concrete dims of a value's type (unknown as 0).
func declaredShape(v *ir.Value) (ir.DType, []int) {
	t := v.Type
	if t.Kind == ir.KindUnknown && v.Declared != nil {
		t = *v.Declared
	}
	var shape []int
	for _, d := range t.Shape.Dims {
		if d.IsConcrete() {
			shape = append(shape, int(d.Val))
		} else {
			shape = append(shape, 0)
		}
	}
	dt := t.DType
	if dt == ir.Undefined {
		dt = ir.Float32
	}
	return dt, shape
}

func kernelLoop(c *Ctx, in []Value) ([]Value, error) {
	body := c.Graph("body")
	if body == nil {
		return nil, c.Errorf("missing body")
	}
	maxTrip := int64(-1)
	if len(in) > 0 && in[0] != nil {
		t, err := tensorArg(in, 0, "M")
		if err != nil {
			return nil, err
		}
		v, err := ints(t, "M")
		if err != nil || len(v) != 1 {
			return nil, c.Errorf("M must be an integer scalar")
		}
		maxTrip = v[0]
	}
	cond := true
	if len(in) > 1 && in[1] != nil {
		t, err := tensorArg(in, 1, "cond")
		if err != nil {
			return nil, err
		}
		if cond, err = boolScalar(t, "cond"); err != nil {
			return nil, err
		}
	}
	nCarried := len(in) - 2
	if nCarried < 0 {
		nCarried = 0
	}
	if len(body.Inputs) != nCarried+2 {
		return nil, c.Errorf("body has %d inputs, want %d", len(body.Inputs), nCarried+2)
	}
	nScan := len(body.Outputs) - 1 - nCarried
	if nScan < 0 {
		return nil, c.Errorf("body has %d outputs for %d loop-carried values", len(body.Outputs), nCarried)
	}
	carried := append([]Value{}, in[2:]...)
	scans := make([][]*Tensor, nScan)
	acc := &scanAccumulator{e: c.e}
	defer acc.release()
	for i := int64(0); (maxTrip < 0 || i < maxTrip) && cond; i++ {
		if i >= maxLoopIterations {
			return nil, c.Errorf("more than %d iterations", maxLoopIterations)
		}
		args := append([]Value{scalarI(i), &Tensor{DType: ir.Bool, Shape: []int{}, B: []bool{cond}}}, carried...)
		outs, err := c.RunSubgraph(body, args)
		if err != nil {
			return nil, err
		}
		ct, ok := outs[0].(*Tensor)
		if !ok {
			return nil, c.Errorf("body condition is not a tensor")
		}
		if cond, err = boolScalar(ct, "body condition"); err != nil {
			return nil, err
		}
		copy(carried, outs[1:1+nCarried])
		for j := 0; j < nScan; j++ {
			t, ok := outs[1+nCarried+j].(*Tensor)
			if !ok {
				return nil, c.Errorf("scan output %d is not a tensor", j)
			}
			if err := acc.add(t, i); err != nil {
				return nil, err
			}
			scans[j] = append(scans[j], t)
		}
	}
	res := append([]Value{}, carried...)
	for j := 0; j < nScan; j++ {
		dt, shape := declaredShape(body.Outputs[1+nCarried+j])
		st, err := c.stack(scans[j], 0, dt, shape)
		if err != nil {
			return nil, err
		}
		res = append(res, st)
	}
	return res, nil
}

func kernelScan(c *Ctx, in []Value) ([]Value, error) {
	if c.Opset < 9 {
		return scan8(c, in)
	}
	body := c.Graph("body")
	if body == nil {
		return nil, c.Errorf("missing body")
	}
	nIn := int(c.Int("num_scan_inputs", 0))
	nState := len(in) - nIn
	if nIn <= 0 || nState < 0 {
		return nil, c.Errorf("num_scan_inputs %d does not fit %d inputs", nIn, len(in))
	}
	nOut := len(body.Outputs) - nState
	if nOut < 0 || len(body.Inputs) != len(in) {
		return nil, c.Errorf("body signature does not fit the node")
	}
	inAxes, _ := c.Ints("scan_input_axes")
	inDirs, _ := c.Ints("scan_input_directions")
	outAxes, _ := c.Ints("scan_output_axes")
	outDirs, _ := c.Ints("scan_output_directions")
	scanIn := make([]*Tensor, nIn)
	axes := make([]int, nIn)
	steps := -1
	for i := 0; i < nIn; i++ {
		t, err := tensorArg(in, nState+i, "scan input")
		if err != nil {
			return nil, err
		}
		a := int64(0)
		if i < len(inAxes) {
			a = inAxes[i]
		}
		if axes[i], err = normAxis(a, t.Rank()); err != nil {
			return nil, err
		}
		if steps >= 0 && t.Shape[axes[i]] != steps {
			return nil, c.Errorf("scan inputs differ in length")
		}
		steps = t.Shape[axes[i]]
		scanIn[i] = t
	}
	state := append([]Value{}, in[:nState]...)
	outs := make([][]*Tensor, nOut)
	acc := &scanAccumulator{e: c.e}
	defer acc.release()
	for s := 0; s < steps; s++ {
		args := append([]Value{}, state...)
		for i, t := range scanIn {
			pos := s
			if i < len(inDirs) && inDirs[i] != 0 {
				pos = steps - 1 - s
			}
			sl, err := c.sliceAxis(t, axes[i], pos, 1)
			if err != nil {
				return nil, err
			}
			shape := append(append([]int{}, t.Shape[:axes[i]]...), t.Shape[axes[i]+1:]...)
			args = append(args, sl.reshaped(shape))
		}
		if err := c.scanStep(body, args, state, acc, outs, s); err != nil {
			return nil, err
		}
	}
	result := append([]Value{}, state...)
	for j := 0; j < nOut; j++ {
		items := outs[j]
		if j < len(outDirs) && outDirs[j] != 0 {
			rev := make([]*Tensor, len(items))
			for i := range items {
				rev[i] = items[len(items)-1-i]
			}
			items = rev
		}
		dt, shape := declaredShape(body.Outputs[nState+j])
		r := len(shape) + 1
		if len(items) > 0 {
			r = items[0].Rank() + 1
		}
		a := int64(0)
		if j < len(outAxes) {
			a = outAxes[j]
		}
		ax, err := normAxis(a, r)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 && ax > len(shape) {
			ax = 0
		}
		st, err := c.stack(items, ax, dt, shape)
		if err != nil {
			return nil, err
		}
		result = append(result, st)
	}
	return result, nil
}

func kernelSequenceEmpty(c *Ctx, in []Value) ([]Value, error) {
	dt := ir.Float32
	if a := c.Attr("dtype"); a != nil {
		dt = ir.DType(a.I)
	}
	return []Value{&Sequence{Elem: dt}}, nil
}

func kernelSequenceConstruct(c *Ctx, in []Value) ([]Value, error) {
	s := &Sequence{}
	for i := range in {
		t, err := tensorArg(in, i, "input")
		if err != nil {
			return nil, err
		}
		if len(s.Items) > 0 && t.DType != s.Elem {
			return nil, c.Errorf("mixed element types %s and %s", s.Elem, t.DType)
		}
		s.Elem = t.DType
		s.Items = append(s.Items, t)
	}
	return []Value{s}, nil
}

// seqPos reads an optional position input and normalizes it for a
// sequence of length n (insert allows n).
func seqPos(in []Value, i int, n int, insert bool) (int, error) {
	if i >= len(in) || in[i] == nil {
		if insert {
			return n, nil
		}
		return n - 1, nil
	}
	t, err := tensorArg(in, i, "position")
	if err != nil {
		return 0, err
	}
	v, err := ints(t, "position")
	if err != nil || len(v) != 1 {
		return 0, errf("position must be an integer scalar")
	}
	p := v[0]
	if p < 0 {
		p += int64(n)
	}
	limit := int64(n)
	if insert {
		limit++
	}
	if p < 0 || p >= limit {
		return 0, errf("position %d out of range for a sequence of %d", v[0], n)
	}
	return int(p), nil
}

func kernelSequenceAt(c *Ctx, in []Value) ([]Value, error) {
	s, err := seqArg(in, 0)
	if err != nil {
		return nil, err
	}
	if len(in) < 2 || in[1] == nil {
		return nil, c.Errorf("missing position")
	}
	p, err := seqPos(in, 1, len(s.Items), false)
	if err != nil {
		return nil, err
	}
	return []Value{s.Items[p]}, nil
}

func kernelSequenceInsert(c *Ctx, in []Value) ([]Value, error) {
	s, err := seqArg(in, 0)
	if err != nil {
		return nil, err
	}
	t, err := tensorArg(in, 1, "tensor")
	if err != nil {
		return nil, err
	}
	p, err := seqPos(in, 2, len(s.Items), true)
	if err != nil {
		return nil, err
	}
	items := append(append(append([]*Tensor{}, s.Items[:p]...), t), s.Items[p:]...)
	return []Value{&Sequence{Elem: t.DType, Items: items}}, nil
}

func kernelSequenceErase(c *Ctx, in []Value) ([]Value, error) {
	s, err := seqArg(in, 0)
	if err != nil {
		return nil, err
	}
	p, err := seqPos(in, 1, len(s.Items), false)
	if err != nil {
		return nil, err
	}
	items := append(append([]*Tensor{}, s.Items[:p]...), s.Items[p+1:]...)
	return []Value{&Sequence{Elem: s.Elem, Items: items}}, nil
}

func kernelSequenceLength(c *Ctx, in []Value) ([]Value, error) {
	s, err := seqArg(in, 0)
	if err != nil {
		return nil, err
	}
	return []Value{scalarI(int64(len(s.Items)))}, nil
}

func kernelConcatFromSequence(c *Ctx, in []Value) ([]Value, error) {
	s, err := seqArg(in, 0)
	if err != nil {
		return nil, err
	}
	if len(s.Items) == 0 {
		return nil, c.Errorf("empty sequence")
	}
	newAxis := c.Int("new_axis", 0) != 0
	r := s.Items[0].Rank()
	if newAxis {
		r++
	}
	axis, err := normAxis(c.Int("axis", 0), r)
	if err != nil {
		return nil, err
	}
	if newAxis {
		out, err := c.stack(s.Items, axis, s.Items[0].DType, s.Items[0].Shape)
		if err != nil {
			return nil, err
		}
		return []Value{out}, nil
	}
	out, err := c.concat(s.Items, axis)
	if err != nil {
		return nil, err
	}
	return []Value{out}, nil
}

func kernelSplitToSequence(c *Ctx, in []Value) ([]Value, error) {
	x, err := tensorArg(in, 0, "input")
	if err != nil {
		return nil, err
	}
	axis, err := normAxis(c.Int("axis", 0), x.Rank())
	if err != nil {
		return nil, err
	}
	dim := x.Shape[axis]
	var sizes []int64
	scalarSplit := false
	if len(in) > 1 && in[1] != nil {
		st, err := tensorArg(in, 1, "split")
		if err != nil {
			return nil, err
		}
		v, err := ints(st, "split")
		if err != nil {
			return nil, err
		}
		if st.Rank() == 0 {
			if v[0] <= 0 {
				return nil, c.Errorf("split must be positive")
			}
			for left := int64(dim); left > 0; left -= v[0] {
				sizes = append(sizes, min(v[0], left))
			}
		} else {
			sizes = v
		}
	} else {
		scalarSplit = true
		for i := 0; i < dim; i++ {
			sizes = append(sizes, 1)
		}
	}
	keep := c.Int("keepdims", 1) != 0
	seq := &Sequence{Elem: x.DType}
	start := 0
	for _, s := range sizes {
		if s < 0 || start+int(s) > dim {
			return nil, c.Errorf("split %v does not fit %d", sizes, dim)
		}
		part, err := c.sliceAxis(x, axis, start, int(s))
		if err != nil {
			return nil, err
		}
		if scalarSplit && !keep {
			shape := append(append([]int{}, x.Shape[:axis]...), x.Shape[axis+1:]...)
			part = part.reshaped(shape)
		}
		seq.Items = append(seq.Items, part)
		start += int(s)
	}
	if start != dim {
		return nil, c.Errorf("split %v does not sum to %d", sizes, dim)
	}
	return []Value{seq}, nil
}

func kernelSequenceMap(c *Ctx, in []Value) ([]Value, error) {
	body := c.Graph("body")
	if body == nil {
		return nil, c.Errorf("missing body")
	}
	s, err := seqArg(in, 0)
	if err != nil {
		return nil, err
	}
	n := len(s.Items)
	outs := make([]*Sequence, len(body.Outputs))
	for j := range outs {
		dt, _ := declaredShape(body.Outputs[j])
		outs[j] = &Sequence{Elem: dt}
	}
	acc := &scanAccumulator{e: c.e}
	defer acc.release()
	for i := 0; i < n; i++ {
		args := make([]Value, len(in))
		for k, v := range in {
			if sq, ok := v.(*Sequence); ok {
				if len(sq.Items) != n {
					return nil, c.Errorf("sequences differ in length")
				}
				args[k] = sq.Items[i]
			} else {
				args[k] = v
			}
		}
		res, err := c.RunSubgraph(body, args)
		if err != nil {
			return nil, err
		}
		for j, r := range res {
			t, ok := r.(*Tensor)
			if !ok {
				return nil, c.Errorf("body output %d is not a tensor", j)
			}
			if err := acc.add(t, int64(i)); err != nil {
				return nil, err
			}
			outs[j].Items = append(outs[j].Items, t)
			outs[j].Elem = t.DType
		}
	}
	res := make([]Value, len(outs))
	for j, o := range outs {
		res[j] = o
	}
	return res, nil
}

func kernelOptional(c *Ctx, in []Value) ([]Value, error) {
	if len(in) > 0 && in[0] != nil {
		return []Value{&Optional{Value: in[0]}}, nil
	}
	return []Value{&Optional{}}, nil
}

func kernelOptionalHasElement(c *Ctx, in []Value) ([]Value, error) {
	has := false
	if len(in) > 0 && in[0] != nil {
		if o, ok := in[0].(*Optional); ok {
			has = o.Value != nil
		} else {
			has = true
		}
	}
	return []Value{&Tensor{DType: ir.Bool, Shape: []int{}, B: []bool{has}}}, nil
}

func kernelOptionalGetElement(c *Ctx, in []Value) ([]Value, error) {
	if len(in) == 0 || in[0] == nil {
		return nil, c.Errorf("missing input")
	}
	if o, ok := in[0].(*Optional); ok {
		if o.Value == nil {
			return nil, c.Errorf("optional is empty")
		}
		return []Value{o.Value}, nil
	}
	return []Value{in[0]}, nil
}

// scan8 is opset-8 Scan: every input has a leading batch dim, scan inputs
// are scanned along axis 1 (optionally reversed per "directions"), and an
// optional first input gives per-batch sequence lengths.
func scan8(c *Ctx, in []Value) ([]Value, error) {
	body := c.Graph("body")
	if body == nil {
		return nil, c.Errorf("missing body")
	}
	if len(in) == 0 {
		return nil, c.Errorf("no inputs")
	}
	nIn := int(c.Int("num_scan_inputs", 0))
	rest := in[1:]
	nState := len(rest) - nIn
	if nIn <= 0 || nState < 0 || len(body.Inputs) != len(rest) {
		return nil, c.Errorf("num_scan_inputs %d does not fit %d inputs", nIn, len(rest))
	}
	nOut := len(body.Outputs) - nState
	if nOut < 0 {
		return nil, c.Errorf("body has too few outputs")
	}
	ts := make([]*Tensor, len(rest))
	for i := range rest {
		t, err := tensorArg(rest, i, "Scan input")
		if err != nil {
			return nil, err
		}
		if t.Rank() < 1 || (i >= nState && t.Rank() < 2) {
			return nil, c.Errorf("input %d must have batch (and sequence) dims", i)
		}
		ts[i] = t
	}
	batch := ts[0].Shape[0]
	steps := ts[nState].Shape[1]
	var lens []int64
	if in[0] != nil {
		lt, err := tensorArg(in, 0, "sequence_lens")
		if err != nil {
			return nil, err
		}
		if lens, err = ints(lt, "sequence_lens"); err != nil || len(lens) != batch {
			return nil, c.Errorf("sequence_lens must list %d lengths", batch)
		}
	}
	dirs, _ := c.Ints("directions")
	finals := make([][]*Tensor, nState)
	scans := make([][]*Tensor, nOut)
	acc := &scanAccumulator{e: c.e}
	defer acc.release()
	for b := 0; b < batch; b++ {
		row := func(t *Tensor) (*Tensor, error) {
			sl, err := c.sliceAxis(t, 0, b, 1)
			if err != nil {
				return nil, err
			}
			return sl.reshaped(t.Shape[1:]), nil
		}
		state := make([]Value, nState)
		for i := 0; i < nState; i++ {
			r, err := row(ts[i])
			if err != nil {
				return nil, err
			}
			state[i] = r
		}
		n := steps
		if lens != nil {
			n = int(lens[b])
			if n < 0 || n > steps {
				return nil, c.Errorf("sequence length %d out of range", n)
			}
		}
		outs := make([][]*Tensor, nOut)
		for s := 0; s < n; s++ {
			args := append([]Value{}, state...)
			for i := 0; i < nIn; i++ {
				r, err := row(ts[nState+i])
				if err != nil {
					return nil, err
				}
				pos := s
				if i < len(dirs) && dirs[i] != 0 {
					pos = n - 1 - s
				}
				sl, err := c.sliceAxis(r, 0, pos, 1)
				if err != nil {
					return nil, err
				}
				args = append(args, sl.reshaped(r.Shape[1:]))
			}
			if err := c.scanStep(body, args, state, acc, outs, s); err != nil {
				return nil, err
			}
		}
		for i := range state {
			t, ok := state[i].(*Tensor)
			if !ok {
				return nil, c.Errorf("state %d is not a tensor", i)
			}
			finals[i] = append(finals[i], t)
		}
		for j := 0; j < nOut; j++ {
			dt, shape := declaredShape(body.Outputs[nState+j])
			st, err := c.stack(outs[j], 0, dt, shape)
			if err != nil {
				return nil, err
			}
			acc.drop(outs[j]) // stacked: the pieces are garbage, the row is held
			if err := acc.add(st, int64(b)); err != nil {
				return nil, err
			}
			scans[j] = append(scans[j], st)
		}
	}
	var res []Value
	for i := range finals {
		st, err := c.stack(finals[i], 0, ts[i].DType, ts[i].Shape[1:])
		if err != nil {
			return nil, err
		}
		res = append(res, st)
	}
	for j := range scans {
		dt, shape := declaredShape(body.Outputs[nState+j])
		st, err := c.stack(scans[j], 0, dt, append([]int{0}, shape...))
		if err != nil {
			return nil, err
		}
		res = append(res, st)
	}
	return res, nil
}

// scanStep runs one iteration s of a Scan body on args: the first
// len(state) results become the new state, and each further result, a
// tensor, is counted by acc and appended to its output's items in outs.
func (c *Ctx) scanStep(body *ir.Graph, args, state []Value, acc *scanAccumulator, outs [][]*Tensor, s int) error {
	res, err := c.RunSubgraph(body, args)
	if err != nil {
		return err
	}
	nState := len(state)
	copy(state, res[:nState])
	for j := range outs {
		t, ok := res[nState+j].(*Tensor)
		if !ok {
			return c.Errorf("scan output %d is not a tensor", j)
		}
		if err := acc.add(t, int64(s)); err != nil {
			return err
		}
		outs[j] = append(outs[j], t)
	}
	return nil
}
