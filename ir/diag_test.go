package ir

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// UncodedDiagnostics returns the diagnostics whose code is not one of Codes(), as
// strings (the conformance and model tests reject them; exported for the
// ir_test package).
func UncodedDiagnostics(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		if !slices.Contains(Codes(), d.Code) {
			out = append(out, string(d.Code)+" "+d.String())
		}
	}
	return out
}

// TestDiagnosticCodes rejects, in the source of inference (infer*.go and
// broadcast.go), an error made without a code (fmt.Errorf, errors.New:
// inference makes errors with errorf, wrapf or InferContext.Errorf), a
// code that is not one of the Code constants, and a Diagnostic literal
// without one (go/types' habit: every error has a code).
func TestDiagnosticCodes(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		inference := strings.HasPrefix(f, "infer") || f == "broadcast.go"
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncDecl:
				// The methods that pass their code parameter on.
				if x.Recv != nil && (x.Name.Name == "Errorf" || x.Name.Name == "Warnf") {
					return false
				}
			case *ast.CallExpr:
				name := callName(x.Fun)
				switch {
				case inference && (name == "fmt.Errorf" || name == "errors.New"):
					t.Errorf("%s: %s makes an error without a code (use errorf, wrapf or c.Errorf)", fset.Position(x.Pos()), name)
				case name == "errorf" || name == "c.Errorf" || name == "c.Warnf":
					checked++
					if len(x.Args) == 0 || !isCode(x.Args[0]) {
						t.Errorf("%s: %s without a Code constant as its first argument", fset.Position(x.Pos()), name)
					}
				}
			case *ast.CompositeLit:
				if id, ok := x.Type.(*ast.Ident); ok && id.Name == "Diagnostic" {
					checked++
					if !hasCodeField(x) {
						t.Errorf("%s: a Diagnostic without a Code constant or CodeOf(err)", fset.Position(x.Pos()))
					}
				}
			}
			return true
		})
	}
	if checked < 100 {
		t.Fatalf("checked %d error sites: the test no longer finds them", checked)
	}
}

// callName is "pkg.Func" or "recv.Method" or "func" for a call's function.
func callName(e ast.Expr) string {
	switch f := e.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			return x.Name + "." + f.Sel.Name
		}
	}
	return ""
}

// isCode reports whether e is one of the Code constants or CodeOf(err).
func isCode(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return strings.HasPrefix(x.Name, "Code") && x.Name != "Code"
	case *ast.CallExpr:
		return callName(x.Fun) == "CodeOf"
	}
	return false
}

func hasCodeField(lit *ast.CompositeLit) bool {
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Code" {
				return isCode(kv.Value)
			}
		}
	}
	return false
}

// TestEachCode: every code is made by the kind of problem it names, so
// that each is reachable and the codes tell the kinds apart.
func TestEachCode(t *testing.T) {
	f := Float32
	seen := map[Code]bool{}
	for _, tc := range []cxCase{
		{name: "subgraph", op: "If", in: []Type{cxT(Bool)}, err: CodeSubgraph},
		{name: "arity", op: "Einsum", in: []Type{cxT(f, 2, 3)}, attrs: []*Attr{{Name: "equation", Type: AttrString, S: []byte("ij,jk->ik")}}, err: CodeArity},
		{name: "attr", op: "Transpose", in: []Type{cxT(f, 2, 3)}, attrs: []*Attr{cxAttrIs("perm", 0, 1, 2)}, err: CodeAttr},
		{name: "dtype", op: "Cast", in: []Type{cxT(f, 2)}, attrs: []*Attr{cxAttrI("to", 999)}, err: CodeDType},
		{name: "rank", op: "Gemm", in: []Type{cxT(f, 2, 3, 4), cxT(f, 4, 5)}, err: CodeRank},
		{name: "axis", op: "Concat", in: []Type{cxT(f, 2), cxT(f, 2)}, attrs: []*Attr{cxAttrI("axis", 3)}, err: CodeAxis},
		{name: "broadcast", op: "Mul", in: []Type{cxT(f, 3), cxT(f, 4)}, err: CodeBroadcast},
		{name: "dims", op: "MatMul", in: []Type{cxT(f, 2, 3), cxT(f, 4, 5)}, err: CodeDims},
		{name: "value", op: "Reshape", in: []Type{cxT(f, 2, 3)}, consts: []*Tensor{(&Tensor{DType: Int64, Dims: []int64{2}}).SetInt64s([]int64{-1, -1})}, err: CodeValue},
		{name: "limit", op: "Range", consts: []*Tensor{(&Tensor{DType: Float32}).SetFloats([]float32{0}), (&Tensor{DType: Float32}).SetFloats([]float32{1e30}), (&Tensor{DType: Float32}).SetFloats([]float32{1})}, err: CodeLimit},
		{name: "opaque", op: "NoSuchOp", domain: "com.example", in: []Type{cxT(f, 2)}, err: CodeOpaque},
	} {
		t.Run(tc.name, func(t *testing.T) { cxRun(t, tc) })
		seen[tc.err] = true
	}
	// The codes no single node makes.
	t.Run("panic", func(t *testing.T) {
		c := &InferContext{Node: &Node{Op: "X"}, st: &inferState{res: &InferResult{}}}
		err := c.safeInfer(func(*InferContext) error { panic("boom") })
		if CodeOf(err) != CodePanic || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("%v (code %q), want a %q error", err, CodeOf(err), CodePanic)
		}
	})
	seen[CodePanic] = true
	for _, tc := range []struct {
		code  Code
		model func() (*Model, InferOptions)
	}{
		{CodeInput, func() (*Model, InferOptions) {
			m, _, _ := twoNodeChain()
			return m, InferOptions{Inputs: map[string]Shape{"nosuch": ShapeOf(1)}}
		}},
		{CodeCycle, func() (*Model, InferOptions) {
			m, a, b := twoNodeChain()
			a.SetInput(0, b.Outputs[0])
			return m, InferOptions{}
		}},
		{CodeConflict, func() (*Model, InferOptions) {
			m, _, b := twoNodeChain()
			d := TensorType(Float32, ShapeOf(3))
			b.Outputs[0].Declared = &d
			return m, InferOptions{}
		}},
		{CodeFunction, func() (*Model, InferOptions) {
			m, a, _ := twoNodeChain()
			a.Op, a.Domain = "Self", "com.example"
			body := NewGraph("self")
			x := body.AddInput("x", Type{})
			body.Outputs = []*Value{body.AddNode("Self", "com.example", "again", []*Value{x}, []string{"y"}).Outputs[0]}
			m.Functions = []*Function{{Name: "Self", Domain: "com.example", Body: body}}
			m.Opsets = append(m.Opsets, OpsetID{Domain: "com.example", Version: 1})
			return m, InferOptions{}
		}},
		{CodeDepth, func() (*Model, InferOptions) {
			m, a, _ := twoNodeChain()
			// A chain of Ifs nested through then_branch; every else_branch
			// is a leaf of its own (sharing one graph in both branches
			// would make the walks exponential in the depth).
			leaf := func() *Graph {
				g := NewGraph("leaf")
				g.Outputs = []*Value{g.AddInput("c", TensorType(Bool, ShapeOf()))}
				return g
			}
			g := leaf()
			for i := 0; i <= maxSubgraphDepth; i++ {
				outer := NewGraph("level")
				c := outer.AddInput("c", TensorType(Bool, ShapeOf()))
				n := outer.AddNode("If", "", "if", []*Value{c}, []string{"y"}, &Attr{Name: "then_branch", Type: AttrGraph, G: g}, &Attr{Name: "else_branch", Type: AttrGraph, G: leaf()})
				outer.Outputs = []*Value{n.Outputs[0]}
				g = outer
			}
			a.Op = "If"
			a.Attrs = []*Attr{{Name: "then_branch", Type: AttrGraph, G: g}, {Name: "else_branch", Type: AttrGraph, G: leaf()}}
			return m, InferOptions{}
		}},
	} {
		t.Run(string(tc.code), func(t *testing.T) {
			m, opt := tc.model()
			res := InferModel(m, opt)
			var codes []Code
			for _, d := range res.Diagnostics {
				codes = append(codes, d.Code)
			}
			if !slices.Contains(codes, tc.code) {
				t.Fatalf("diagnostics %q (codes %q), want one coded %q", res.Warnings(), codes, tc.code)
			}
			if u := UncodedDiagnostics(res.Diagnostics); len(u) > 0 {
				t.Fatalf("diagnostics without a code: %q", u)
			}
		})
		seen[tc.code] = true
	}
	for _, c := range Codes() {
		if !seen[c] {
			t.Errorf("code %q is made by no case", c)
		}
	}
}
