package calibrate

import (
	"math/rand"
	"testing"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestParsersNeverPanic feeds truncated and byte-flipped versions of valid
// inputs to every parser and costs whatever table rows parse.
func TestParsersNeverPanic(t *testing.T) {
	base, _ := hw.Preset("cpu")
	table := "op,dtype,input_shapes,attributes,measured_us\n" +
		"Conv,float32,1x3x8x8;4x3x3x3,\"kernel_shape=3,3;pads=1,1,1,1\",10\n" +
		"Reshape,float32,\"2x3x4;3:int64=2,-1,4\",,1\n" +
		"NoSuchOp,float32,4,,1\nSoftmax,float16,2x3,axis=9,1\nMatMul,float32,2x3;4x5,,1\n"
	inputs := []struct {
		name  string
		data  string
		parse func(string, []byte) (*Profile, error)
	}{
		{"ort", ortSample, ParseORT},
		{"torch", torchSampleTrace, ParseTorch},
		{"table", table, ParseTable},
	}
	rng := rand.New(rand.NewSource(7))
	for _, in := range inputs {
		for i := 0; i < 400; i++ {
			b := []byte(in.data)
			switch i % 3 {
			case 0:
				b = b[:rng.Intn(len(b)+1)]
			case 1:
				for k := 0; k < 1+rng.Intn(4); k++ {
					b[rng.Intn(len(b))] = "0123456789-.,;x[]{}\":=e"[rng.Intn(23)]
				}
			case 2:
				b[rng.Intn(len(b))] ^= byte(1 << rng.Intn(8))
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s parser panicked on %q: %v", in.name, b, r)
					}
				}()
				p, err := in.parse(in.name, b)
				if err == nil {
					SampleObs(base, p.Samples)
				}
			}()
		}
	}
	// the unmutated table costs its valid rows and skips the others
	p, err := ParseTable("t", []byte(table))
	if err != nil {
		t.Fatal(err)
	}
	obs, skipped := SampleObs(base, p.Samples)
	if len(obs) != 2 || len(skipped) != 3 {
		t.Errorf("obs %d, skipped %v; want Conv and Softmax costed, NoSuchOp, Reshape (a view) and mismatched MatMul skipped", len(obs), skipped)
	}
}
