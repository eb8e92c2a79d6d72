package modelgen

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestMoreGenerators builds the LSTM, transformer and Inception
// generators' models, verifies them and checks that inference gives every
// output the shape the architecture implies.
func TestMoreGenerators(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *ir.Model
		want []string // output shapes
		minN int      // at least this many nodes
	}{
		{"lstm", LSTM(5, 2, 8, 16), []string{"[2,16]", "[2,16]"}, 5 * 20},
		{"transformer", Transformer(2, 2, 8, 32, 4, 64), []string{"[2,8,32]"}, 2 * 40},
		{"inception", Inception(2, 16), []string{"[3,10]"}, 2 * 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := ir.Verify(tc.m); err != nil {
				t.Fatal(err)
			}
			res := ir.InferModel(tc.m, ir.InferOptions{Dims: map[string]int64{"N": 3}})
			for _, d := range res.Diagnostics {
				t.Errorf("inference: %s", d)
			}
			if len(tc.m.Graph.Outputs) != len(tc.want) {
				t.Fatalf("have %d outputs, want %d", len(tc.m.Graph.Outputs), len(tc.want))
			}
			for i, o := range tc.m.Graph.Outputs {
				if have := o.Type.Shape.String(); have != tc.want[i] {
					t.Errorf("output %s: shape %s, want %s", o.Name, have, tc.want[i])
				}
			}
			if n := len(tc.m.Graph.Nodes); n < tc.minN {
				t.Errorf("only %d nodes", n)
			}
		})
	}
}

// TestDeepSpeechLSTMSize checks the Deep Speech case's size: 50 steps of
// 8 GEMMs, weights 8 x 1024 x 1024 float32.
func TestDeepSpeechLSTMSize(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 32 MiB of weights")
	}
	m := LSTM(50, 4, 1024, 1024)
	mm := 0
	for _, n := range m.Graph.Nodes {
		if n.Op == "MatMul" {
			mm++
		}
	}
	if mm != 50*8 {
		t.Errorf("have %d MatMuls, want %d", mm, 50*8)
	}
	var bytes int64
	for _, v := range m.Graph.Initializers {
		bytes += v.Const.ByteSize()
	}
	if want := int64(8*1024*1024*4 + 4*1024*4); bytes < want {
		t.Errorf("weights %d bytes, want at least %d", bytes, want)
	}
}

// TestResNet50Size checks the ResNet-50 v1.5 generator against
// torchvision's resnet50 (a v1.5 model): 25,557,032 parameters and 4.09 G
// multiply-adds per 224x224 image (torchvision's model table lists them
// as "GFLOPS 4.09"), with a [N, 1000] output.
func TestResNet50Size(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 100 MB of weights")
	}
	m := ResNet50()
	if err := ir.Verify(m); err != nil {
		t.Fatal(err)
	}
	ir.InferModel(m, ir.InferOptions{Dims: map[string]int64{"N": 2}})
	if s := m.Graph.Outputs[0].Type.Shape.String(); s != "[2,1000]" {
		t.Errorf("output shape %s, want [2,1000]", s)
	}
	var params, macs int64
	for _, v := range m.Graph.Initializers {
		if n, ok := v.Type.Shape.NumElements(); ok {
			params += n
		}
	}
	for _, n := range m.Graph.Nodes {
		r := ir.NodeMACs(n)
		if r.Counted && !r.Known {
			t.Fatalf("%s: MACs unknown", ir.NodeLabel(n))
		}
		macs += r.MACs
	}
	// the 53 BatchNorms' running mean and variance (2 x 26,560 channels)
	// are initializers too, beside the trainable parameters
	if want := int64(25557032 + 2*26560); params != want {
		t.Errorf("%d parameters, want %d", params, want)
	}
	t.Logf("%d parameters, %.4g MACs per image", params, float64(macs)/2)
	if perImage := float64(macs) / 2; perImage < 4.08e9 || perImage > 4.12e9 {
		t.Errorf("%.3g MACs per image, want about 4.09 G", perImage)
	}
}
