package optimize

import (
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestCSETwins covers both ways twins finds a duplicate: among the
// readers of its least-read input, and by key in a map when every input
// has more than maxScan readers or there is none.
func TestCSETwins(t *testing.T) {
	wide := func(b *modelgen.Builder, x *ir.Value) []*ir.Value {
		// more than maxScan readers of x, each different (alpha differs)
		var outs []*ir.Value
		for i := 0; i <= maxScan; i++ {
			outs = append(outs, b.Op("LeakyRelu", in(x), modelgen.Float("alpha", float32(i+1)/100)))
		}
		return outs
	}
	runPassCases(t, []passCase{
		{name: "scan: twins by a narrow input", passes: []string{"cse"},
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 8)
				y := b.Op("Relu", in(x))
				b.Output(b.Op("Add", in(b.Op("Exp", in(y)), b.Op("Exp", in(y)))))
			},
			want: []string{`^cse: Exp_\d+ -> Exp_\d+`},
			ops:  "Relu Exp Add"},
		{name: "scan: same input, other attributes stay", passes: []string{"cse"},
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 8)
				b.Output(b.Op("Add", in(b.Op("LeakyRelu", in(x), modelgen.Float("alpha", 0.1)), b.Op("LeakyRelu", in(x), modelgen.Float("alpha", 0.2)))))
			},
			ops: "LeakyRelu LeakyRelu Add"},
		{name: "scan: inputs in another order stay", passes: []string{"cse"},
			build: func(b *modelgen.Builder) {
				x, y := b.Input("x", ir.Float32, 2, 8), b.Input("y", ir.Float32, 2, 8)
				b.Output(b.Op("Mul", in(b.Op("Sub", in(x, y)), b.Op("Sub", in(y, x)))))
			},
			ops: "Sub Sub Mul"},
		{name: "map: every input read widely", passes: []string{"cse"},
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 8)
				outs := wide(b, x)
				outs = append(outs, b.Op("Sigmoid", in(x)), b.Op("Sigmoid", in(x)))
				b.Output(b.Op("Sum", outs))
			},
			want: []string{`^cse: Sigmoid_\d+ -> Sigmoid_\d+`}},
		{name: "use list grown past maxList by merges", passes: []string{"cse"},
			build: func(b *modelgen.Builder) {
				// Relu_i(y) merge into Relu_0 one by one, moving each Exp
				// onto Relu_0's output: its readers outgrow the scan and
				// are keyed, and every Exp still meets Exp_0.
				y := b.Op("Neg", in(b.Input("x", ir.Float32, 2, 8)))
				var outs []*ir.Value
				for range maxList + 20 {
					outs = append(outs, b.Op("Exp", in(b.Op("Relu", in(y)))))
				}
				b.Output(b.Op("Sum", outs))
			},
			ops: "Neg Relu Exp Sum"},
		{name: "map: no inputs", passes: []string{"cse"},
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 8)
				one := func() *ir.Value {
					return b.Op("Constant", nil, &ir.Attr{Name: "value_float", Type: ir.AttrFloat, F: 1})
				}
				b.Output(b.Op("Add", in(b.Op("Add", in(x, one())), one())))
			},
			want: []string{`^cse: Constant_\d+ -> Constant_\d+`}},
	})
}
