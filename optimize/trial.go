package optimize

// This file implements the trials the control-flow passes make before a
// rewrite whose gain depends on what follows it: the pass copies the node
// alone into a model of its own (ir.ExtractModel: its inputs and the
// values its bodies capture become the model's inputs, or initializers
// when constant), rewrites the copy (and, for unrolling, runs the rest of
// the pipeline on it), asks the Predictor for both versions' times and
// rewrites the model itself only when the rewritten copy is predicted
// faster.
//
// A trial costs the size of the node and its bodies, never of the model
// around it: a model with k loops costs k small trials, where copying and
// predicting the whole model per loop grew with k times the model. What
// the trial does not see is how the node's neighbours would fuse or
// overlap with the rewrite; the rewrites tried (unrolling a loop,
// wrapping it in one kernel) change the loop's own kernels, and its
// neighbours read and write the same values either way.
//
// The Predictor keeps its last prediction for the final report (the
// simulator's predictor does), so the model as it is must be the last
// thing a pass predicts: a pass whose trials end without a rewrite
// predicts it once more (the driver predicts again after a pass that
// reports one).

import (
	"github.com/wolong-dev/wolong/ir"
)

// trialLocal returns a model holding a copy of n alone (ir.ExtractModel)
// and n's copy in it (nil, nil when extraction fails).
func trialLocal(c *Context, n *ir.Node) (*ir.Model, *ir.Node) {
	m, cn, err := ir.ExtractModel(c.Model, n)
	if err != nil {
		return nil, nil
	}
	return m, cn
}

// predictOn predicts m with c's Predictor (ok false without one or when
// it fails).
func predictOn(c *Context, m *ir.Model) (Prediction, bool) {
	if c.Opt.Predictor == nil {
		return Prediction{}, false
	}
	p, err := c.Opt.Predictor.Predict(m)
	return p, err == nil
}
