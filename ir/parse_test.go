package ir

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// parseSample exercises every piece of the text form: odd names (quoted),
// an unnamed value, a qualified op, omitted inputs and outputs, every kind
// of attribute, small constants with values, a large one without, nested
// subgraphs capturing outer values, a function.
const parseSample = `model ir_version=8 opsets={ai.onnx:17, com.example:1}
graph "my graph"(%x: float32[N,3], %"a b": int64[2], %#7: float32[*], %onnx::in: seq(float32[?])) {
  %shape = const int64[2] [1,-1]
  %scale = const float32[1] [0.5]
  %flag = const bool[] [1]
  %big = const float32[32,32]
  %y = Reshape(%x, %shape)  # reshape : float32[1,(N*3)/1]
  %z, _ = com.example:Thing(%y, _, %"a b") {alpha=1.0, n=-3, s="hi: there", fs=[1.5,2.0], is=[1,2,3], ss=["a","b"], t=tensor int64[2] [4,5], e=[], r=@ref, tp=type float32[2], ts=tensors(2)}  # "odd : name" : float32[1,?]
  %w = If(%flag)  # if : float32[1,?]
    then_branch: then(%#3: bool[]) {
      %t = Mul(%z, %scale) : float32[1,?]
      return %t
    }
    else_branch: else() {
      return %z
    }
  %v = Loop(_, %flag, %w) : float32[1,?]
    body: body(%i: int64[], %c: bool[], %s: float32[1,?]) {
      %s2 = Add(%s, %big) : float32[1,?]
      return %c, %s2
    }
  return %v, %#7
}
function com.example:Thing thing(%a: float32[*]) {
  %b = Neg(%a) : float32[*]
  return %b
}
`

// TestParseSample: the sample reads back to the same text, and the model
// it gives holds what the text says.
func TestParseSample(t *testing.T) {
	m, err := Parse(parseSample)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Fprint(&b, m); err != nil {
		t.Fatal(err)
	}
	if b.String() != parseSample {
		t.Fatalf("reprinted:\n%s\nwant:\n%s", b.String(), parseSample)
	}
	g := m.Graph
	if g.Name != "my graph" || len(g.Inputs) != 4 || g.Inputs[1].Name != "a b" || g.Inputs[2].Name != "" || g.Inputs[2].ID != 7 || g.Inputs[3].Name != "onnx::in" {
		t.Fatalf("graph inputs: %q %v", g.Name, g.Inputs)
	}
	if got := g.Initializers[0].Const.Int64s(); len(got) != 2 || got[0] != 1 || got[1] != -1 {
		t.Errorf("shape constant %v, want [1 -1]", got)
	}
	if c := g.Initializers[1].Const; c.DType != Float32 || len(c.Floats()) != 1 || c.Floats()[0] != 0.5 {
		t.Errorf("scale constant %+v, want float32 [0.5]", c)
	}
	if c := g.Initializers[3].Const; c.HasPacked() || len(c.Floats()) != 0 {
		t.Errorf("a large constant has no data in the text, have %+v", c)
	}
	thing := g.Nodes[1]
	if thing.Domain != "com.example" || thing.Op != "Thing" || thing.Name != "odd : name" || thing.Inputs[1] != nil || thing.Outputs[1] != nil {
		t.Fatalf("node %s:%s %q inputs %v outputs %v", thing.Domain, thing.Op, thing.Name, thing.Inputs, thing.Outputs)
	}
	for _, tc := range []struct {
		name string
		typ  AttrType
	}{{"alpha", AttrFloat}, {"n", AttrInt}, {"s", AttrString}, {"fs", AttrFloats}, {"is", AttrInts}, {"ss", AttrStrings}, {"t", AttrTensor}, {"tp", AttrTypeProto}, {"ts", AttrTensors}} {
		if a := thing.Attr(tc.name); a == nil || a.Type != tc.typ {
			t.Errorf("attribute %s: %+v, want type %v", tc.name, a, tc.typ)
		}
	}
	if a := thing.Attr("t"); a.T == nil || len(a.T.Int64s()) != 2 || a.T.Int64s()[1] != 5 {
		t.Errorf("tensor attribute %+v, want int64 [4 5]", a.T)
	}
	iff := g.Nodes[2]
	th := iff.AttrGraph("then_branch")
	if th == nil || th.Parent != g || th.ParentNode != iff || th.Nodes[0].Inputs[0] != thing.Outputs[0] {
		t.Fatalf("then branch does not capture %%z of the outer graph")
	}
	if f := m.Function("com.example", "Thing"); f == nil || f.Body.Name != "thing" {
		t.Fatalf("function com.example:Thing missing")
	}
	if err := Verify(m); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}

// TestParseErrors: bad text gives a *ParseError naming the line, never a
// panic.
func TestParseErrors(t *testing.T) {
	const head = "model ir_version=8 opsets={ai.onnx:17}\n"
	for _, tc := range []struct {
		name, text, want string
		line             int
	}{
		{"empty", "", "empty text", 0},
		{"no model line", "graph g() {\n", "want \"model", 1},
		{"bad version", "model ir_version=x opsets={}\n", "not an integer", 1},
		{"no graph", head, "want the main graph", 2},
		{"no return", head + "graph g() {\n}\n", "no return line", 3},
		{"unclosed", head + "graph g() {\n  return\n", "want \"}\"", 4},
		{"undefined", head + "graph g() {\n  %y = Relu(%x) : float32[]\n  return %y\n}\n", `value "x" is not defined`, 3},
		{"twice", head + "graph g(%x: float32[]) {\n  %x = Relu(%x) : float32[]\n  return %x\n}\n", "defined twice", 3},
		{"bad type", head + "graph g(%x: float99[]) {\n  return %x\n}\n", "unknown element type", 2},
		{"bad shape", head + "graph g(%x: float32[1,2) {\n  return %x\n}\n", "unterminated shape", 2},
		{"bad values", head + "graph g() {\n  %c = const int64[2] [1]\n  return %c\n}\n", "1 values", 3},
		{"symbolic const", head + "graph g() {\n  %c = const int64[N]\n  return %c\n}\n", "concrete dims", 3},
		{"bad attr", head + "graph g(%x: float32[]) {\n  %y = Relu(%x) {alpha=} : float32[]\n  return %y\n}\n", "bad value of alpha", 3},
		{"types", head + "graph g(%x: float32[]) {\n  %y = Relu(%x) : float32[], float32[]\n  return %y\n}\n", "2 types for 1 outputs", 3},
		{"orphan subgraph", head + "graph g() {\n  body: b() {\n", "no node before it", 3},
		{"trailing", head + "graph g() {\n  return\n}\nstuff\n", "want a function", 5},
		{"deep type", head + "graph g(%x: " + strings.Repeat("seq(", 100) + "float32[]" + strings.Repeat(")", 100) + ") {\n  return %x\n}\n", "nested deeper", 2},
		{"huge elision", head + "graph g(%x: float32[]) {\n  %y = Relu(%x) {a=[1,...(99999999)]} : float32[]\n  return %y\n}\n", "bad elision", 3},
		{"deep", head + "graph g(%c: bool[]) {\n" + strings.Repeat("  %y = If(%c)\n    then_branch: t() {\n", 70), "nested deeper", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.text)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse: %v, want a *ParseError", err)
			}
			if !strings.Contains(err.Error(), tc.want) || (tc.line > 0 && pe.Line != tc.line) {
				t.Fatalf("Parse: %v, want line %d and %q", err, tc.line, tc.want)
			}
		})
	}
}

// FuzzParse: Parse never panics, and what it accepts prints and reads back
// to the same text.
func FuzzParse(f *testing.F) {
	f.Add(parseSample)
	f.Add("model ir_version=8 opsets={}\ngraph g(%x: float32[N]) {\n  return %x\n}\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := Parse(text)
		if err != nil {
			return
		}
		var a, b bytes.Buffer
		Fprint(&a, m)
		m2, err := Parse(a.String())
		if err != nil {
			t.Fatalf("the printed text does not parse: %v\n%s", err, a.String())
		}
		Fprint(&b, m2)
		if a.String() != b.String() {
			t.Fatalf("print -> parse -> print differs:\n%s\n%s", a.String(), b.String())
		}
	})
}
