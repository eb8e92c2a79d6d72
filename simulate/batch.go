package simulate

// This file finds the batch a simulation ran at when the caller set none
// (Options.Batch 0): dim 0 of the batch inputs (BatchInputs) as inferred,
// so that every prediction states its batch (given by --dim, --input or
// a default, or fixed by the model).

import "github.com/wolong-dev/wolong/ir"

// UsedBatch returns dim 0 of g's batch inputs as inferred when they all
// agree, else 0 (no batch input, or dims unknown or different).
func UsedBatch(g *ir.Graph) int64 {
	pick := BatchInputs(g, 1, nil)
	var b int64
	for _, v := range g.Inputs {
		if _, ok := pick[v.Name]; !ok {
			continue
		}
		if v.Type.Shape.Rank() < 1 || !v.Type.Shape.Dims[0].IsConcrete() {
			return 0
		}
		d := v.Type.Shape.Dims[0].Val
		if b != 0 && d != b {
			return 0
		}
		b = d
	}
	return b
}
