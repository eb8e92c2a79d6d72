package optimize

// This file implements the persistent-RNN rewrite of an unrolled
// recurrence.
//
//	x-proj ─┬──────────┬──────────┬───── …
//	        ▼          ▼          ▼
//	h0 ─► cell_1 ──► cell_2 ──► cell_3 ─► … ─► h_T      (each cell: h·U + gates,
//	        ▲U         ▲U         ▲U                      one fused kernel)
//
// becomes one wolong:PersistentRNN kernel whose body holds the cells:
// the recurrent weight U is loaded on chip once and stays there across
// the steps, h and c never leave the chip, and the T launches become
// one (Diamos et al., "Persistent RNNs", ICML 2016). It applies only when
// U fits the device's on-chip memory (Options.OnChipBytes, from the
// hardware: the caller passes it; 0 disables the pass), when every cell
// is a fused kernel reading U as a GEMM weight, and when nothing outside
// the cells runs between two steps (the group must be convex).

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// minPersistentSteps is the shortest recurrence worth a persistent kernel.
const minPersistentSteps = 4

func persistentRNN(c *Context) ([]Rewrite, error) {
	if c.Opt.OnChipBytes <= 0 {
		return nil, nil
	}
	g := c.Graph()
	order := nodesInOrder(g)
	pos := positions(order)
	claimed := map[*ir.Node]bool{}
	var groups []*group
	for _, w := range g.Initializers {
		if w.Const == nil || w.Const.ByteSize() > c.Opt.OnChipBytes || len(w.Uses) < minPersistentSteps {
			continue
		}
		var cells []*ir.Node
		ok := true
		for _, u := range w.Uses {
			n := u.Node
			if n.Graph != g || n.Domain != ir.FusedDomain || !readsAsGEMMWeight(n, u.Index) || claimed[n] {
				ok = false
				break
			}
			cells = append(cells, n)
		}
		if !ok || len(cells) < minPersistentSteps || len(cells) > c.Opt.GroupCap {
			continue
		}
		sortByPos(cells, pos)
		// A chain: each cell reads an output of the one before.
		for i := 1; i < len(cells) && ok; i++ {
			ok = readsFrom(cells[i], cells[i-1])
		}
		if !ok || !convex(g, cells, pos) {
			continue
		}
		for _, n := range cells {
			claimed[n] = true
		}
		gr := &group{members: cells, op: "PersistentRNN", name: c.newName("persistent_rnn"),
			remark: fmt.Sprintf("; %d steps, recurrent weight %s (%d bytes) kept on chip", len(cells), w.Name, w.Const.ByteSize())}
		groups = append(groups, gr)
	}
	return materialize(g, groups), nil
}

// readsAsGEMMWeight reports whether fused node n passes its input idx to
// a MatMul/Gemm of its body as the right operand.
func readsAsGEMMWeight(n *ir.Node, idx int) bool {
	body := n.AttrGraph("body")
	if body == nil || idx >= len(body.Inputs) {
		return false
	}
	for _, u := range body.Inputs[idx].Uses {
		if u.Node.IsAny(ir.OpMatMul, ir.OpGemm) && u.Index == 1 {
			return true
		}
	}
	return false
}

// readsFrom reports whether n reads an output of p.
func readsFrom(n, p *ir.Node) bool {
	for _, in := range n.Inputs {
		if in != nil && in.Producer == p {
			return true
		}
	}
	return false
}
