package pipeline

import (
	"testing"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestInPlaceSameResult: Infer and Optimize in place give the model, the
// pass results and the simulation the copies give, and work on the
// loaded model itself.
func TestInPlaceSameResult(t *testing.T) {
	h, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mnist_cntk_opset7.onnx", "pytorch_super_resolution.onnx"} {
		t.Run(name, func(t *testing.T) {
			run := func(inPlace bool) (*Loaded, *Optimized, string) {
				l, err := Load(model(t, "cnn", name), LoadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(l.Close)
				f, err := Infer(l, InferOptions{DefaultDims: true, Batch: 2, InPlace: inPlace})
				if err != nil {
					t.Fatal(err)
				}
				o, err := Optimize(f, OptimizeOptions{Level: 3, HW: h, Predict: true, InPlace: inPlace})
				if err != nil {
					t.Fatal(err)
				}
				return l, o, text(t, o.Model)
			}
			lc, oc, copied := run(false)
			li, oi, inPlace := run(true)
			if copied != inPlace {
				t.Error("the model optimized in place differs from the optimized copy")
			}
			if oc.Result.Final != oi.Result.Final || len(oc.Result.Passes) != len(oi.Result.Passes) {
				t.Errorf("predictions differ: %+v in place, %+v copied", oi.Result.Final, oc.Result.Final)
			}
			if lc.Model == oc.Model || li.Model != oi.Model {
				t.Error("InPlace did not decide whether the loaded model is rewritten")
			}
		})
	}
}
