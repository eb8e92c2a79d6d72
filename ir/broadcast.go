package ir

// This file implements multidirectional (numpy-style) broadcasting of
// shapes, as ONNX defines it for Add, Where, Expand and friends.

// BroadcastShapes returns the numpy-broadcast shape of its arguments. Any
// unknown rank gives an unknown result. For one dim position, a concrete 1
// yields to the other operand; equal dims stay; a concrete dim > 1 wins over
// a symbolic or unknown one (the only legal value the other can take is 1
// or the same); two different symbolic dims give an unknown dim. Two
// different concrete dims > 1 are an error.
func BroadcastShapes(shapes ...Shape) (Shape, error) {
	rank := 0
	for _, s := range shapes {
		if !s.Known {
			return UnknownShape(), nil
		}
		if len(s.Dims) > rank {
			rank = len(s.Dims)
		}
	}
	out := make([]Dim, rank)
	for i := range out {
		out[i] = D(1)
	}
	for _, s := range shapes {
		off := rank - len(s.Dims)
		for i, d := range s.Dims {
			r, err := broadcastDim(out[off+i], d)
			if err != nil {
				return UnknownShape(), errorf(CodeBroadcast, "cannot broadcast %s: dim %d: %v", shapesString(shapes), off+i, err)
			}
			out[off+i] = r
		}
	}
	return Shape{Known: true, Dims: out}, nil
}

func broadcastDim(a, b Dim) (Dim, error) {
	switch {
	case a.IsConcrete() && a.Val == 1:
		return b, nil
	case b.IsConcrete() && b.Val == 1:
		return a, nil
	case a.IsConcrete() && b.IsConcrete():
		if a.Val != b.Val {
			return Dim{}, errorf(CodeBroadcast, "%d vs %d", a.Val, b.Val)
		}
		return a, nil
	case a.IsConcrete():
		return a, nil
	case b.IsConcrete():
		return b, nil
	case a.Equal(b):
		return a, nil
	}
	return Unknown(), nil
}

func shapesString(ss []Shape) string {
	s := ""
	for i, x := range ss {
		if i > 0 {
			s += " and "
		}
		s += x.String()
	}
	return s
}
