package ir

import (
	"strings"
	"testing"
)

// TestReshapeBatch: under a batch (InferOptions.Batch), a Reshape to a
// fixed target whose leading 1 is the exporter's batch takes the batch,
// noted; any other fixed target the batch contradicts is listed as
// refused; without a batch nothing changes.
func TestReshapeBatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		batch   int64
		in      []Dim
		target  []int64
		want    string
		noted   bool
		refused bool
	}{
		{"batch read into the leading 1", 64, []Dim{D(64), D(512), D(7), D(7)}, []int64{1, 25088}, "float32[64,25088]", true, false},
		{"flattened whole: refused", 64, []Dim{D(64), D(512), D(7), D(7)}, []int64{25088}, "float32[25088]", false, true},
		{"leading dim not 1: refused", 4, []Dim{D(4), D(6)}, []int64{2, 3}, "float32[2,3]", false, true},
		{"no batch: a plain mismatch", 0, []Dim{D(64), D(512), D(7), D(7)}, []int64{1, 25088}, "float32[1,25088]", false, false},
		{"batch that fits: untouched", 64, []Dim{D(64), D(6)}, []int64{64, 2, 3}, "float32[64,2,3]", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph("g")
			v := smOne(g, "Reshape", []*Value{smIn(g, "x", Float32, tc.in...), g.AddInitializer(smI64("s", tc.target...))})
			g.Outputs = append(g.Outputs, v)
			m := &Model{Opsets: []OpsetID{{"", 17}}, Graph: g}
			res := InferModel(m, InferOptions{Batch: tc.batch})
			if got := v.Type.String(); got != tc.want {
				t.Errorf("type %s, want %s", got, tc.want)
			}
			if (len(res.BatchReshapes) > 0) != tc.noted || (len(res.BatchRefused) > 0) != tc.refused {
				t.Errorf("noted %q, refused %q", res.BatchReshapes, res.BatchRefused)
			}
			if tc.noted && !strings.Contains(res.BatchReshapes[0], "read as [64,25088]") {
				t.Errorf("note %q", res.BatchReshapes[0])
			}
		})
	}
}
