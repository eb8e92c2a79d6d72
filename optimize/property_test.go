package optimize

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// randomDAG builds a random small DAG of elementwise, broadcast, MatMul,
// reduction and softmax ops over [4, 8] activations, with a few shared
// weights so that batching and CSE find work.
func randomDAG(seed uint64) *ir.Model {
	r := rand.New(rand.NewPCG(seed, 99))
	b := modelgen.New(fmt.Sprintf("dag_%d", seed), 17)
	b.Seed = seed
	pool := []*ir.Value{b.Input("x", ir.Float32, 4, 8)}
	if r.IntN(2) == 0 {
		pool = append(pool, b.Input("y", ir.Float32, 4, 8))
	}
	weights := []*ir.Value{b.Weight("w0", 8, 8), b.Weight("w1", 8, 8)}
	bias := b.Weight("bias", 8)
	pick := func() *ir.Value { return pool[r.IntN(len(pool))] }
	n := 4 + r.IntN(14)
	for i := 0; i < n; i++ {
		var v *ir.Value
		switch r.IntN(9) {
		case 0:
			v = b.Op([]string{"Relu", "Sigmoid", "Tanh", "Neg", "Abs"}[r.IntN(5)], in(pick()))
		case 1, 2:
			v = b.Op([]string{"Add", "Sub", "Mul"}[r.IntN(3)], in(pick(), pick()))
		case 3:
			v = b.Op("Add", in(pick(), bias))
		case 4, 5:
			v = b.Op("MatMul", in(pick(), weights[r.IntN(len(weights))]))
		case 6:
			red := b.Op([]string{"ReduceSum", "ReduceMean", "ReduceMax"}[r.IntN(3)], in(pick()), modelgen.Ints("axes", 1))
			v = b.Op("Sub", in(pick(), red))
		case 7:
			v = b.Op("Softmax", in(pick()), modelgen.Int("axis", 1))
		case 8:
			v = b.Op("Tanh", in(b.Op("Mul", in(pick(), b.Op("Sigmoid", in(pick()))))))
		}
		pool = append(pool, v)
	}
	// Every sink is an output, so nothing is dead; sometimes an inner
	// value too.
	var outs []*ir.Value
	for _, v := range pool {
		if v.Producer != nil && len(v.Uses) == 0 {
			outs = append(outs, v)
		}
	}
	if k := r.IntN(len(pool)); pool[k].Producer != nil && len(pool[k].Uses) > 0 {
		outs = append(outs, pool[k])
	}
	for i, o := range outs {
		o.Name = fmt.Sprintf("out%d", i)
	}
	b.Output(outs...)
	return b.Model()
}

// TestPropertyRandomDAGs optimizes random DAGs at every level, with the
// verifier after every pass, and checks with the evaluator that the
// outputs do not change.
func TestPropertyRandomDAGs(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		for level := 0; level <= MaxLevel; level++ {
			t.Run(fmt.Sprintf("seed%d/O%d", seed, level), func(t *testing.T) {
				orig, m := randomDAG(seed), randomDAG(seed)
				ir.InferModel(orig, ir.InferOptions{})
				ir.InferModel(m, ir.InferOptions{})
				if _, err := Run(m, Options{Level: level, VerifyEach: true}); err != nil {
					t.Fatal(err)
				}
				if why := compareRuns(t, orig, m, seed, 1e-4, 1e-5); why != "" {
					t.Fatal(why)
				}
			})
		}
	}
}

// TestPropertyExercisesPasses makes sure the random DAGs are not trivial:
// across the seeds, fusion and batching must both fire.
func TestPropertyExercisesPasses(t *testing.T) {
	fired := map[string]int{}
	for seed := uint64(1); seed <= 60; seed++ {
		m := randomDAG(seed)
		ir.InferModel(m, ir.InferOptions{})
		res, err := Run(m, Options{Level: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Passes {
			fired[p.Name] += len(p.Rewrites)
		}
	}
	for _, p := range []string{"cse", "hbatch", "tbatch", "fuse", "silu"} {
		if fired[p] == 0 {
			t.Errorf("pass %s never fired on the random DAGs (%v)", p, fired)
		}
	}
}
