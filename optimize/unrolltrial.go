package optimize

// This file implements loopunroll's cost check. Unrolling itself saves
// little (the runtime's per-iteration set-up of the body); what pays is
// what the copies allow afterwards: tbatch batching the per-step input
// projections into one GEMM, fusion across iterations, a persistent
// kernel over the cells. And it costs: the stacking of scan outputs (one
// Concat per output) and, for a Scan, a Gather per step and scan input.
// A prediction made right after unrolling sees the costs and none of the
// gains, so the check is a trial of the whole remaining pipeline: two
// copies of the loop alone (trial.go) run the passes selected after
// loopunroll, one with the loop unrolled, and the loop is unrolled when
// the Predictor says the unrolled copy ends faster. The rolled copy runs the same passes,
// persistent_loop included, so the comparison is with the best the
// rolled loop gets. The unrolled copy must be faster by minUnrollGain of
// the rolled loop's time:
// unrolling multiplies the loop's nodes, and a difference of a fraction
// of a percent is below what the cost model resolves.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// minUnrollGain is the fraction of the rolled loop's predicted time
// unrolling must save.
const minUnrollGain = 0.01

// unrollTrial reports whether unrolling loop n (unroll does it, on the
// context and graph it is given) pays, with a remark giving the two
// predictions. Without a Predictor it pays (the pass's limits decide);
// *trials counts the trials made. Every loop the limits admit gets its
// trial: a trial costs the loop's size (trial.go), so a graph's trials
// together cost what its loops unrolled would.
func unrollTrial(c *Context, n *ir.Node, trials *int, unroll func(tc *Context, g *ir.Graph, n *ir.Node)) (bool, string) {
	if c.Opt.Predictor == nil {
		return true, ""
	}
	*trials++
	// The key is computed on n in place: n's copy (trialLocal) is made
	// only when the memo misses. Loops of one key copy alike (the key
	// holds all of n's structure), so a hit skips no copy that would fail.
	key, keyed := "", false
	if memoTrials {
		key, keyed = nodeTrialKey(n, c.probes)
		if verifyNodeKeys {
			verifyNodeKey(c, n, key, keyed)
		}
	}
	var m *ir.Model
	var cn *ir.Node
	if !keyed || !c.trialSeen(key) {
		if m, cn = trialLocal(c, n); m == nil {
			return false, ""
		}
	}
	out := c.trialMemoKey(key, keyed, func() trialOutcome {
		um, ucn := trialLocal(c, n)
		if um == nil {
			return trialOutcome{}
		}
		rolled, unrolled := trialPipeline(m, cn, c.Opt, nil), trialPipeline(um, ucn, c.Opt, unroll)
		if rolled == nil || unrolled == nil {
			return trialOutcome{}
		}
		r, ok1 := predictOn(c, rolled)
		u, ok2 := predictOn(c, unrolled)
		return trialOutcome{before: r, after: u, ok: ok1 && ok2}
	})
	if !out.ok {
		return false, ""
	}
	r, u := out.before, out.after
	why := fmt.Sprintf("trial of the passes after it on the loop alone: %.4g ms unrolled, %.4g ms rolled", u.TotalMs, r.TotalMs)
	if u.TotalMs < r.TotalMs*(1-minUnrollGain) && u.Unknown <= r.Unknown {
		return true, "; " + why
	}
	c.Refuse(ir.RefuseNoWin, []*ir.Node{n}, fmt.Sprintf("%s left rolled: %s (unrolling must save %g%%)", ir.NodeLabel(n), why, minUnrollGain*100), Saving{})
	return false, ""
}

// trialPipeline unrolls loop cn in m, a copy of the loop alone
// (trialLocal), unless unroll is nil, runs on m the passes opt selects
// after loopunroll, and returns m (nil when a step fails).
func trialPipeline(m *ir.Model, cn *ir.Node, opt Options, unroll func(tc *Context, g *ir.Graph, n *ir.Node)) *ir.Model {
	opt.Predictor, opt.Dumps, opt.OnPassStart, opt.Placer, opt.Refusals, opt.Hash = nil, nil, nil, nil, false, false
	if unroll != nil {
		tc := newContext(m, opt)
		g := cn.Graph
		if g != m.Graph {
			tc.graph = g
		}
		unroll(tc, g, cn)
		sweepNodes(g) // the unrolled loop is detached (remove.go), not yet gone
		if ir.SortNodes(g) != nil {
			return nil
		}
	}
	if runAfterUnroll(m, opt) != nil {
		return nil
	}
	return m
}

// runAfterUnroll is runAfterLoopUnroll, set by init: the pass table holds
// loopunroll, whose trial runs the pipeline (a direct reference would be
// an initialization cycle).
var runAfterUnroll func(m *ir.Model, opt Options) error

func init() { runAfterUnroll = runAfterLoopUnroll }

// runAfterLoopUnroll runs on m the passes opt selects after loopunroll.
func runAfterLoopUnroll(m *ir.Model, opt Options) error {
	sel, err := Select(opt.Level, opt.Only, opt.Disable)
	if err != nil {
		return err
	}
	after := []string{}
	seen := false
	for _, p := range forTarget(sel, opt.Target) {
		if seen && !p.Required {
			after = append(after, p.Name)
		}
		seen = seen || p.Name == "loopunroll"
	}
	if len(after) == 0 {
		return nil
	}
	opt.Only, opt.Disable = after, nil
	_, err = Run(m, opt)
	return err
}
