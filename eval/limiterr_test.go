package eval

import (
	"errors"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestLimitErrors: refusals over the memory limit wrap ErrMemoryLimit
// (through RandomInputs and a node error too), an input dim with no value
// is an *UnsetDimError, and no message names a command-line flag.
func TestLimitErrors(t *testing.T) {
	input := func(dims ...ir.Dim) *ir.Graph {
		g := ir.NewGraph("g")
		g.AddInput("x", ir.TensorType(ir.Float32, ir.DimsShape(dims...)))
		return g
	}
	_, runErr := Run(addGraph(), map[string]Value{"x": f32([]int{2, 2}, 1, 2, 3, 4)}, Options{MaxMemory: 8})
	_, tensorErr := RandomTensor(NewRand(1), ir.Float32, []int{16, 32}, 1024)
	_, inputsErr := RandomInputs(input(ir.D(16), ir.D(32)), 1, 1024)
	_, filledErr := FilledTensor(ir.Float32, []int{16, 32}, "1", 1024)
	for _, err := range []error{runErr, tensorErr, inputsErr, filledErr} {
		if !errors.Is(err, ErrMemoryLimit) || strings.Contains(err.Error(), "--") {
			t.Errorf("%v: want an error wrapping ErrMemoryLimit that names no flag", err)
		}
	}
	for _, tc := range []struct {
		g    *ir.Graph
		want string
	}{
		{input(ir.D(1), ir.S("N")), `input "x" has dim N, which has no value`},
		{input(ir.D(1), ir.Unknown()), `input "x" has an unnamed dim [1,?]`},
	} {
		_, err := RandomInputs(tc.g, 1, 1<<20)
		var ue *UnsetDimError
		if !errors.As(err, &ue) || ue.Input != "x" || err.Error() != tc.want {
			t.Errorf("%v: want an *UnsetDimError %q", err, tc.want)
		} else if ue.ShapeHint() != "1x1" {
			t.Errorf("shape hint %q, want 1x1", ue.ShapeHint())
		}
	}
}
