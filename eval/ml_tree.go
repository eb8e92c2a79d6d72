package eval

// This file holds the tree walking of the ai.onnx.ml tree-ensemble
// kernels (TreeEnsembleClassifier/Regressor and TreeEnsemble): node
// attributes, the branch test, and per-class leaf weights.

import "math"

// branchModes numbers the comparison modes of TreeEnsembleClassifier and
// TreeEnsembleRegressor as TreeEnsemble (opset 5) numbers them.
var branchModes = map[string]int64{
	"BRANCH_LEQ": 0, "BRANCH_LT": 1, "BRANCH_GTE": 2,
	"BRANCH_GT": 3, "BRANCH_EQ": 4, "BRANCH_NEQ": 5,
}

// branchTaken reports whether a node of comparison mode (0 LEQ, 1 LT,
// 2 GTE, 3 GT, 4 EQ, 5 NEQ) with threshold th sends v to its true child;
// ok is false for any other mode.
func branchTaken(mode int64, v, th float64) (taken, ok bool) {
	switch mode {
	case 0:
		return v <= th, true
	case 1:
		return v < th, true
	case 2:
		return v >= th, true
	case 3:
		return v > th, true
	case 4:
		return v == th, true
	case 5:
		return v != th, true
	}
	return false, false
}

// treeKey names a node by its tree and node id.
type treeKey struct{ t, n int64 }

// treeNodes are the nodes_* attributes of TreeEnsembleClassifier and
// TreeEnsembleRegressor, checked for equal lengths, with each node's
// position by (tree, node id) and the first node of each tree (its root).
type treeNodes struct {
	treeIDs, feat, tIDs, fIDs, miss []int64
	vals                            []float32
	modes                           []string
	index                           map[treeKey]int
	roots                           []int
}

func readTreeNodes(c *Ctx) (*treeNodes, error) {
	t := &treeNodes{index: map[treeKey]int{}}
	t.treeIDs, _ = c.Ints("nodes_treeids")
	nodeIDs, _ := c.Ints("nodes_nodeids")
	t.feat, _ = c.Ints("nodes_featureids")
	t.vals, _ = c.Floats("nodes_values")
	t.modes, _ = c.Strs("nodes_modes")
	t.tIDs, _ = c.Ints("nodes_truenodeids")
	t.fIDs, _ = c.Ints("nodes_falsenodeids")
	t.miss, _ = c.Ints("nodes_missing_value_tracks_true")
	nn := len(nodeIDs)
	if len(t.treeIDs) != nn || len(t.feat) != nn || len(t.vals) != nn || len(t.modes) != nn || len(t.tIDs) != nn || len(t.fIDs) != nn {
		if c.Attr("nodes_values_as_tensor") != nil {
			return nil, c.unsupported("tensor-valued node attributes")
		}
		return nil, c.Errorf("node attribute lists differ in length")
	}
	seenTree := map[int64]bool{}
	for i := 0; i < nn; i++ {
		t.index[treeKey{t.treeIDs[i], nodeIDs[i]}] = i
		if !seenTree[t.treeIDs[i]] {
			seenTree[t.treeIDs[i]] = true
			t.roots = append(t.roots, i)
		}
	}
	return t, nil
}

// leaf walks the tree rooted at node r for the feature row x and returns
// the leaf it reaches.
func (t *treeNodes) leaf(c *Ctx, r int, x []float64) (int, error) {
	i := r
	for steps := 0; t.modes[i] != "LEAF"; steps++ {
		if steps > len(t.modes) {
			return 0, c.Errorf("tree %d has a cycle", t.treeIDs[r])
		}
		fi := int(t.feat[i])
		if fi < 0 || fi >= len(x) {
			return 0, c.Errorf("feature %d out of range", fi)
		}
		v, th := x[fi], float64(t.vals[i])
		goTrue := math.IsNaN(v) && i < len(t.miss) && t.miss[i] != 0
		if !goTrue {
			mode, known := branchModes[t.modes[i]]
			if known {
				goTrue, known = branchTaken(mode, v, th)
			}
			if !known {
				return 0, c.Errorf("unknown node mode %q", t.modes[i])
			}
		}
		next := t.fIDs[i]
		if goTrue {
			next = t.tIDs[i]
		}
		j, ok := t.index[treeKey{t.treeIDs[i], next}]
		if !ok {
			return 0, c.Errorf("tree %d: no node %d", t.treeIDs[i], next)
		}
		i = j
	}
	return i, nil
}

// treeWeights are the class_* (classifier) or target_* (regressor)
// weights: for each node, the entries whose class id (ids) and weight
// (weights) it adds when it is the leaf reached.
type treeWeights struct {
	ids     []int64
	weights []float32
	leaf    map[int][]int
}

func readTreeWeights(c *Ctx, t *treeNodes, prefix string) (*treeWeights, error) {
	wt, _ := c.Ints(prefix + "treeids")
	wn, _ := c.Ints(prefix + "nodeids")
	w := &treeWeights{leaf: map[int][]int{}}
	w.ids, _ = c.Ints(prefix + "ids")
	w.weights, _ = c.Floats(prefix + "weights")
	if len(wn) != len(wt) || len(w.ids) != len(wt) || len(w.weights) != len(wt) {
		return nil, c.Errorf("%s* lists differ in length", prefix)
	}
	for k := range wt {
		i, ok := t.index[treeKey{wt[k], wn[k]}]
		if !ok {
			return nil, c.Errorf("weight for unknown node (%d, %d)", wt[k], wn[k])
		}
		w.leaf[i] = append(w.leaf[i], k)
	}
	return w, nil
}

// scores sums, for each of the n rows of f (nf features each), the leaf
// weights of every tree into ncls columns, averages them for AVERAGE,
// adds base_values and applies post_transform.
func (t *treeNodes) scores(c *Ctx, w *treeWeights, f []float64, n, nf, ncls int) ([]float64, error) {
	base, _ := c.Floats("base_values")
	average := c.Str("aggregate_function", "SUM") == "AVERAGE"
	scores := make([]float64, n*ncls)
	for b := 0; b < n; b++ {
		s := scores[b*ncls : (b+1)*ncls]
		for _, r := range t.roots {
			i, err := t.leaf(c, r, f[b*nf:(b+1)*nf])
			if err != nil {
				return nil, err
			}
			for _, k := range w.leaf[i] {
				s[w.ids[k]] += float64(w.weights[k])
			}
		}
		if average {
			for k := range s {
				s[k] /= float64(len(t.roots))
			}
		}
		for k := range s {
			if k < len(base) {
				s[k] += float64(base[k])
			}
		}
		if err := postTransform(c, s); err != nil {
			return nil, err
		}
	}
	return scores, nil
}
