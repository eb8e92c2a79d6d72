package optimize

import (
	"math"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// gainPredictor prices a saving at 1 ms per kernel and 1 ms per MB.
type gainPredictor struct{}

func (gainPredictor) Predict(m *ir.Model) (Prediction, error) {
	return Prediction{TotalMs: float64(len(m.Graph.Nodes))}, nil
}
func (gainPredictor) GainMs(s Saving) float64 { return float64(s.Kernels) + s.Bytes/1e6 }

// plantedSecondReader is Conv -> Add(bias) -> Relu -> y, with the Add's
// output also read by a Concat outside the group (a second output).
func plantedSecondReader() *ir.Model {
	b := modelgen.New("planted", 17)
	x := b.Input("x", ir.Float32, 1, 64, 32, 32)
	y := b.Op("Conv", in(x, b.Weight("w", 64, 64, 1, 1)))
	y = b.Op("Add", in(y, b.Weight("bias", 64, 1, 1)))
	b.Output(b.Op("Relu", in(y)))
	b.Output(b.Op("Concat", in(y, x), modelgen.Int("axis", 1)))
	m := b.Model()
	ir.InferModel(m, ir.InferOptions{})
	return m
}

// A planted unfusable pattern (a second reader outside the group) is
// listed with that reason, its code and its gain; without
// Options.Refusals nothing is recorded.
func TestRefuseSecondReader(t *testing.T) {
	res, err := Run(plantedSecondReader(), Options{Level: MaxLevel, VerifyEach: true, Refusals: true, Predictor: gainPredictor{}})
	if err != nil {
		t.Fatal(err)
	}
	var found *Refusal
	for i, r := range res.Refusals {
		if r.Code == ir.RefuseOutsideReader && strings.Contains(r.Reason, "Add_0 (Add)'s output is also read by Concat_0 (Concat) outside the group") {
			found = &res.Refusals[i]
		}
		if i > 0 && r.GainMs > res.Refusals[i-1].GainMs {
			t.Errorf("refusals not ranked by gain: %v", res.Refusals)
		}
	}
	if found == nil {
		t.Fatalf("the second reader is not listed; refusals: %+v", res.Refusals)
	}
	// Add_0's output: 64x32x32 float32 written and read back, one launch
	if want := 1 + 2*64*32*32*4/1e6; found.Pass != "fuse" || found.SavedKernels != 1 || math.Abs(found.GainMs-want) > 1e-9 {
		t.Errorf("refusal %+v, want pass fuse, 1 kernel, gain %g ms", *found, want)
	}
	res, err = Run(plantedSecondReader(), Options{Level: MaxLevel, Predictor: gainPredictor{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refusals) != 0 {
		t.Errorf("refusals recorded without Options.Refusals: %v", res.Refusals)
	}
}

// Sibling convolutions reading one input with kernels of different
// sizes cannot be batched: "shapes differ", with both weights named.
func TestRefuseShapesDiffer(t *testing.T) {
	b := modelgen.New("siblings", 17)
	x := b.Input("x", ir.Float32, 1, 8, 16, 16)
	y1 := b.Op("Conv", in(x, b.Weight("w1", 8, 8, 1, 1)))
	y2 := b.Op("Conv", in(x, b.Weight("w3", 8, 8, 3, 3)), modelgen.Ints("pads", 1, 1, 1, 1))
	b.Output(b.Op("Add", in(y1, y2)))
	m := b.Model()
	ir.InferModel(m, ir.InferOptions{})
	res, err := Run(m, Options{Level: MaxLevel, VerifyEach: true, Refusals: true, Predictor: gainPredictor{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Refusals {
		if r.Code == ir.RefuseShapes && r.Pass == "hbatch" && strings.Contains(r.Reason, "shapes differ: weights [8 8 1 1] float32 vs [8 8 3 3] float32") && r.GainMs > 0 {
			return
		}
	}
	t.Errorf("no shapes-differ refusal: %+v", res.Refusals)
}

// Every refusal code is distinct and not an inference code.
func TestRefusalCodes(t *testing.T) {
	seen := map[ir.Code]bool{}
	for _, c := range ir.Codes() {
		seen[c] = true
	}
	for _, c := range ir.RefusalCodes() {
		if seen[c] || !strings.HasPrefix(string(c), "refuse-") {
			t.Errorf("refusal code %q repeats a code or lacks the refuse- prefix", c)
		}
		seen[c] = true
	}
}
