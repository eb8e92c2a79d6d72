// Package optimize is wolong's pass manager and its passes: clean-up
// (dead-code and common-subexpression elimination, no-op removal, constant
// and shape folding), kernel fusion (TVM-style pattern lattice with
// post-dominator grouping, Conv/MatMul epilogues, BatchNorm folding and the
// pattern fusions real exporters need: LayerNorm, GELU, SiLU, RMSNorm,
// scaled-dot-product attention) and operator batching (horizontal fusion of
// sibling GEMMs/Convs, and DyNet-style batching of independent same-signature
// ops such as the input projections of an unrolled RNN), and the
// persistent-RNN rewrite that runs an unrolled recurrence's fused cells as
// one kernel when the recurrent weight fits on chip.
//
// The rdma pass (rdma.go) applies a cluster placement: it runs only when
// the caller injects a Placer (optimize --cluster), tags every node with its
// device and, for pipeline placements, inserts wolong:RdmaWrite / RdmaRead /
// Copy transfer nodes on cut edges (each an Identity body, so evaluation and
// costing see the identity it is). Like the predictor, the placer is an
// interface, so optimize does not import the simulator.
//
// The pipeline is data: the passes table in pass.go lists every pass in
// order with its name, function, the lowest -O level that runs it and
// whether it is required; passOrder records the "a before b, because"
// constraints and a test checks them. Run (manager.go) is the only
// cross-cutting code: it runs each pass, collects the rewrites it reports
// (the nodes before, the nodes after and a one-line remark), optionally
// verifies the IR after every pass, and asks a Predictor (the simulator,
// injected by the caller so that optimize does not import simulate) for the
// predicted time before and after each pass.
//
// A fused group becomes one node of domain "wolong" whose GRAPH attribute
// "body" holds the member nodes as a subgraph; the body's inputs bind
// positionally to the node's inputs. The cost model costs such a node as a
// single kernel and the evaluator runs it as its body, so every fusion is
// checkable by construction. ToONNX turns these nodes into model-local ONNX
// functions for --emit-onnx.
//
// Every pass iterates in node order (never map order), so results are
// deterministic.
package optimize
