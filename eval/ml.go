package eval

// This file implements ai.onnx.ml ops: OneHotEncoder, FeatureVectorizer,
// TreeEnsembleClassifier, TreeEnsembleRegressor and LabelEncoder.

import (
	"math"
	"strconv"

	"github.com/wolong-dev/wolong/ir"
)

const mlDomain = "ai.onnx.ml"

func registerMl() {
	registerDomain(mlDomain, "OneHotEncoder", kernelOneHotEncoder)
	registerDomain(mlDomain, "FeatureVectorizer", kernelFeatureVectorizer)
	registerDomain(mlDomain, "TreeEnsembleClassifier", treeEnsemble(true))
	registerDomain(mlDomain, "TreeEnsembleRegressor", treeEnsemble(false))
	registerDomain(mlDomain, "LabelEncoder", kernelLabelEncoder)
}

func kernelOneHotEncoder(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	zeros := c.Int("zeros", 1) != 0
	var key func(i int) string
	var cats []string
	if ci, ok := c.Ints("cats_int64s"); ok && x.cls() != clsS {
		for _, v := range ci {
			cats = append(cats, strconv.FormatInt(v, 10))
		}
		f := x.f64()
		key = func(i int) string { return strconv.FormatInt(int64(f[i]), 10) }
	} else if cs, ok := c.Strs("cats_strings"); ok && x.cls() == clsS {
		cats = cs
		key = func(i int) string { return x.S[i] }
	} else {
		return nil, c.Errorf("categories do not match the input type %s", x.DType)
	}
	pos := map[string]int{}
	for i, s := range cats {
		if _, dup := pos[s]; !dup {
			pos[s] = i
		}
	}
	shape := append(append([]int{}, x.Shape...), len(cats))
	out, err := c.alloc(ir.Float32, shape)
	if err != nil {
		return nil, err
	}
	for i := 0; i < x.Len(); i++ {
		p, ok := pos[key(i)]
		if !ok {
			if !zeros {
				return nil, c.Errorf("value %q is not a category", key(i))
			}
			continue
		}
		out.F[i*len(cats)+p] = 1
	}
	return []*Tensor{out}, nil
}

func kernelFeatureVectorizer(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	dims, _ := c.Ints("inputdimensions")
	var ts []*Tensor
	for _, t := range in {
		if t != nil {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 || len(dims) != len(ts) {
		return nil, c.Errorf("inputdimensions %v do not match %d inputs", dims, len(ts))
	}
	n := 1
	if ts[0].Rank() > 1 {
		n = ts[0].Shape[0]
	}
	total := 0
	for _, d := range dims {
		total += int(d)
	}
	out, err := c.alloc(ir.Float32, []int{n, total})
	if err != nil {
		return nil, err
	}
	off := 0
	for k, t := range ts {
		f := t.f64()
		if f == nil {
			return nil, c.Errorf("input %d must be numeric", k)
		}
		per := len(f) / max(n, 1)
		for b := 0; b < n; b++ {
			for j := 0; j < int(dims[k]) && j < per; j++ {
				out.F[b*total+off+j] = float32(f[b*per+j])
			}
		}
		off += int(dims[k])
	}
	return []*Tensor{out}, nil
}

func postTransform(c *Ctx, s []float64) error {
	switch c.Str("post_transform", "NONE") {
	case "NONE":
	case "LOGISTIC":
		for i, v := range s {
			s[i] = sigmoid(v)
		}
	case "SOFTMAX", "SOFTMAX_ZERO":
		zero := c.Str("post_transform", "") == "SOFTMAX_ZERO"
		m := math.Inf(-1)
		for _, v := range s {
			m = math.Max(m, v)
		}
		sum := 0.0
		for i, v := range s {
			if zero && v == 0 {
				s[i] = 0
				continue
			}
			s[i] = math.Exp(v - m)
			sum += s[i]
		}
		for i := range s {
			if sum != 0 {
				s[i] /= sum
			}
		}
	case "PROBIT":
		for i, v := range s {
			s[i] = math.Sqrt2 * math.Erfinv(2*v-1)
		}
	default:
		return c.Errorf("unknown post_transform %q", c.Str("post_transform", ""))
	}
	return nil
}

// treeEnsemble evaluates TreeEnsembleClassifier (summed leaf weights per
// class, then the label of the best score) or TreeEnsembleRegressor.
func treeEnsemble(classifier bool) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		f := x.f64()
		if f == nil || x.Rank() > 2 {
			return nil, c.Errorf("X must be a numeric [N, F] tensor")
		}
		n, nf := 1, x.Len()
		if x.Rank() == 2 {
			n, nf = x.Shape[0], x.Shape[1]
		}
		t, err := readTreeNodes(c)
		if err != nil {
			return nil, err
		}
		prefix := "target_"
		if classifier {
			prefix = "class_"
		}
		w, err := readTreeWeights(c, t, prefix)
		if err != nil {
			return nil, err
		}
		var ncls int
		var labelsI []int64
		var labelsS []string
		if classifier {
			labelsI, _ = c.Ints("classlabels_int64s")
			labelsS, _ = c.Strs("classlabels_strings")
			ncls = max(len(labelsI), len(labelsS))
		} else {
			ncls = int(c.Int("n_targets", 1))
		}
		if ncls <= 0 {
			return nil, c.Errorf("no classes or targets")
		}
		for _, id := range w.ids {
			if id < 0 || int(id) >= ncls {
				return nil, c.Errorf("class id %d out of range", id)
			}
		}
		if classifier && ncls == 2 {
			allZero := true
			for _, id := range w.ids {
				allZero = allZero && id == 0
			}
			if allZero {
				return nil, c.unsupported("binary classifier with one score column")
			}
		}
		if agg := c.Str("aggregate_function", "SUM"); agg != "SUM" && agg != "AVERAGE" {
			return nil, c.unsupported("aggregate_function %s", agg)
		}
		scores, err := t.scores(c, w, f, n, nf, ncls)
		if err != nil {
			return nil, err
		}
		if !classifier {
			return []*Tensor{fromFloat64s(ir.Float32, []int{n, ncls}, scores)}, nil
		}
		var label *Tensor
		if labelsS != nil {
			label = &Tensor{DType: ir.String, Shape: []int{n}, S: make([]string, n)}
		} else {
			label = NewInt64([]int{n}, make([]int64, n))
		}
		for b := 0; b < n; b++ {
			best := 0
			for k := 1; k < ncls; k++ {
				if scores[b*ncls+k] > scores[b*ncls+best] {
					best = k
				}
			}
			if labelsS != nil {
				label.S[b] = labelsS[best]
			} else {
				label.I[b] = labelsI[best]
			}
		}
		return []*Tensor{label, fromFloat64s(ir.Float32, []int{n, ncls}, scores)}, nil
	}
}

// labelKey prints element i of t as a map key.
func labelKey(t *Tensor, i int) string {
	switch t.cls() {
	case clsS:
		return t.S[i]
	case clsI:
		return strconv.FormatInt(t.I[i], 10)
	}
	return strconv.FormatFloat(t.Float64s1(i), 'g', -1, 32)
}

// attrTensor reads a tensor attribute.
func (c *Ctx) attrTensor(name string) (*Tensor, error) {
	a := c.Attr(name)
	if a == nil || a.Type != ir.AttrTensor || a.T == nil {
		return nil, nil
	}
	return FromIR(a.T, c.e.opt.MaxMemory)
}

// labelList returns the keys or values of a LabelEncoder as a tensor.
func labelList(c *Ctx, kind string) (*Tensor, error) {
	if t, err := c.attrTensor(kind + "_tensor"); t != nil || err != nil {
		return t, err
	}
	if v, ok := c.Strs(kind + "_strings"); ok {
		return &Tensor{DType: ir.String, Shape: []int{len(v)}, S: v}, nil
	}
	if v, ok := c.Ints(kind + "_int64s"); ok {
		return NewInt64([]int{len(v)}, v), nil
	}
	if v, ok := c.Floats(kind + "_floats"); ok {
		return NewFloat32([]int{len(v)}, v), nil
	}
	return nil, c.Errorf("no %s", kind)
}

// kernelLabelEncoder maps each input element through keys -> values
// (compared by their printed value), else the default.
func kernelLabelEncoder(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	keys, err := labelList(c, "keys")
	if err != nil {
		return nil, err
	}
	vals, err := labelList(c, "values")
	if err != nil {
		return nil, err
	}
	if keys.Len() != vals.Len() {
		return nil, c.Errorf("%d keys for %d values", keys.Len(), vals.Len())
	}
	pos := map[string]int{}
	for i := 0; i < keys.Len(); i++ {
		pos[labelKey(keys, i)] = i
	}
	def, err := c.attrTensor("default_tensor")
	if err != nil {
		return nil, err
	}
	if def == nil {
		def = newTensor(vals.DType, []int{1})
		switch vals.DType {
		case ir.String:
			def.S[0] = c.Str("default_string", "_Unused")
		case ir.Int64:
			def.I[0] = c.Int("default_int64", -1)
		default:
			def.setF(0, float64(c.Float("default_float", -0)))
		}
	}
	if def.DType != vals.DType || def.Len() < 1 {
		return nil, c.Errorf("default %s does not match values %s", def, vals)
	}
	out, err := c.alloc(vals.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	for i := 0; i < x.Len(); i++ {
		if p, ok := pos[labelKey(x, i)]; ok {
			copyElem(out, i, vals, p)
		} else {
			copyElem(out, i, def, 0)
		}
	}
	return []*Tensor{out}, nil
}

func registerMl2() {
	registerDomain(mlDomain, "TreeEnsemble", kernelTreeEnsemble5)
}

// kernelTreeEnsemble5 is ai.onnx.ml TreeEnsemble (opset 5): trees given by
// root indices, children that are nodes or leaves, tensor-valued splits
// and modes (0 LEQ, 1 LT, 2 GTE, 3 GT, 4 EQ, 5 NEQ, 6 MEMBER with sets in
// membership_values separated by NaN).
func kernelTreeEnsemble5(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if err := requireFloat(x, "X"); err != nil {
		return nil, err
	}
	if x.Rank() != 2 {
		return nil, c.Errorf("X must be [N, F], got %s", x)
	}
	splitsT, err := c.attrTensor("nodes_splits")
	if err != nil || splitsT == nil {
		return nil, c.Errorf("missing nodes_splits")
	}
	modesT, err := c.attrTensor("nodes_modes")
	if err != nil || modesT == nil {
		return nil, c.Errorf("missing nodes_modes")
	}
	weightsT, err := c.attrTensor("leaf_weights")
	if err != nil || weightsT == nil {
		return nil, c.Errorf("missing leaf_weights")
	}
	memT, err := c.attrTensor("membership_values")
	if err != nil {
		return nil, err
	}
	splits, modes, weights := splitsT.f64(), modesT.Int64s(), weightsT.f64()
	feat, _ := c.Ints("nodes_featureids")
	tIDs, _ := c.Ints("nodes_truenodeids")
	fIDs, _ := c.Ints("nodes_falsenodeids")
	tLeaf, _ := c.Ints("nodes_trueleafs")
	fLeaf, _ := c.Ints("nodes_falseleafs")
	miss, _ := c.Ints("nodes_missing_value_tracks_true")
	roots, _ := c.Ints("tree_roots")
	targets, _ := c.Ints("leaf_targetids")
	nn := len(splits)
	if len(modes) != nn || len(feat) != nn || len(tIDs) != nn || len(fIDs) != nn || len(tLeaf) != nn || len(fLeaf) != nn || len(targets) != len(weights) {
		return nil, c.Errorf("node or leaf attribute lists differ in length")
	}
	nt := int(c.Int("n_targets", 1))
	if nt <= 0 {
		return nil, c.Errorf("n_targets must be positive")
	}
	// Membership sets, in node order for MEMBER nodes.
	sets := map[int][]float64{}
	if memT != nil {
		mv := memT.f64()
		k := 0
		for i, m := range modes {
			if m != 6 {
				continue
			}
			var set []float64
			for ; k < len(mv) && !math.IsNaN(mv[k]); k++ {
				set = append(set, mv[k])
			}
			k++
			sets[i] = set
		}
	}
	agg := c.Int("aggregate_function", 1)
	pt := c.Int("post_transform", 0)
	if pt != 0 {
		return nil, c.unsupported("post_transform %d", pt)
	}
	N, F := x.Shape[0], x.Shape[1]
	xf := x.f64()
	out := make([]float64, N*nt)
	for b := 0; b < N; b++ {
		acc := out[b*nt : (b+1)*nt]
		seen := make([]bool, nt)
		for _, r := range roots {
			i, leaf := int(r), false
			for steps := 0; !leaf; steps++ {
				if i < 0 || i >= nn || steps > nn {
					return nil, c.Errorf("tree walk left the node list")
				}
				fi := int(feat[i])
				if fi < 0 || fi >= F {
					return nil, c.Errorf("feature %d out of range", fi)
				}
				v, th := xf[b*F+fi], splits[i]
				t, known := math.IsNaN(v) && i < len(miss) && miss[i] != 0, true
				switch {
				case t:
				case modes[i] == 6:
					for _, s := range sets[i] {
						t = t || v == s
					}
				default:
					t, known = branchTaken(modes[i], v, th)
				}
				if !known {
					return nil, c.Errorf("unknown node mode %d", modes[i])
				}
				if t {
					i, leaf = int(tIDs[i]), tLeaf[i] != 0
				} else {
					i, leaf = int(fIDs[i]), fLeaf[i] != 0
				}
			}
			if i < 0 || i >= len(weights) {
				return nil, c.Errorf("leaf %d out of range", i)
			}
			tg := int(targets[i])
			if tg < 0 || tg >= nt {
				return nil, c.Errorf("target %d out of range", tg)
			}
			w := weights[i]
			switch agg {
			case 0, 1:
				acc[tg] += w
			case 2:
				if !seen[tg] || w < acc[tg] {
					acc[tg] = w
				}
			case 3:
				if !seen[tg] || w > acc[tg] {
					acc[tg] = w
				}
			default:
				return nil, c.Errorf("unknown aggregate_function %d", agg)
			}
			seen[tg] = true
		}
		if agg == 0 && len(roots) > 0 {
			for k := range acc {
				acc[k] /= float64(len(roots))
			}
		}
	}
	return []*Tensor{fromFloat64s(x.DType, []int{N, nt}, out)}, nil
}
