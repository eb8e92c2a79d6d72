package pipeline

import (
	"errors"
	"strings"
	"testing"
)

// TestImpossibleSizes: a dim that empties every input, or one that makes
// a tensor over MaxTensorBytes, is a *ShapeError (a usage error); a dim
// of 0 that empties only some inputs (an empty KV cache) is not, and
// neither is an ordinary batch.
func TestImpossibleSizes(t *testing.T) {
	path := model(t, "transformer", "tiny-random-gpt2-fp32_past.onnx")
	for _, tc := range []struct {
		dim  string
		val  int64
		want string // "" no error
	}{
		{"batch_size", 0, "every input of the model is empty"},
		{"batch_size", 99999999999, "over 128 TiB"},
		{"batch_size", 8, ""},
		{"past_seq_len", 0, ""},
	} {
		l, err := Load(path, LoadOptions{Dims: []GivenDim{{Name: tc.dim, Value: tc.val}}})
		if err != nil {
			t.Fatal(err)
		}
		f, err := Infer(l, InferOptions{DefaultDims: true})
		var se *ShapeError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s=%d: %v", tc.dim, tc.val, err)
		case tc.want != "" && (!errors.As(err, &se) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s=%d: got %v, want a ShapeError saying %q", tc.dim, tc.val, err, tc.want)
		case tc.want == "" && f == nil:
			t.Errorf("%s=%d: no result", tc.dim, tc.val)
		}
		l.Close()
	}
}
