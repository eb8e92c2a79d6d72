package ir

// This file names the refusals of the optimizer's fusion and batching
// passes: a candidate a pass looked at and left alone, and the guard that
// refused it. They share the Code type with inference diagnostics so that
// every message wolong explains itself with has one stable name.

// Refusal codes (optimize.Context.Refuse).
const (
	// RefuseOutsideReader: an intermediate value of the candidate group
	// is also read outside it (or is a graph output), so it must be
	// written to memory anyway.
	RefuseOutsideReader Code = "refuse-outside-reader"
	// RefuseNoPostDominator: the node's readers do not meet again in one
	// node (its output feeds several outputs or a subgraph), so the
	// post-dominator fuser has no group to put it in.
	RefuseNoPostDominator Code = "refuse-no-post-dominator"
	// RefusePathKind: a node between the candidate and its
	// post-dominator is of a kind the phase does not fuse.
	RefusePathKind Code = "refuse-path-kind"
	// RefuseTwoAnchors: the group would hold two anchors (GEMM, Conv or
	// reduction); one kernel has one.
	RefuseTwoAnchors Code = "refuse-two-anchors"
	// RefusePrologue: the fusion would put work before a GEMM/Conv
	// (a prologue) or after a reduction (an epilogue), which the fused
	// kernels do not do.
	RefusePrologue Code = "refuse-prologue"
	// RefuseGroupCap: the group would pass the cap on fused nodes.
	RefuseGroupCap Code = "refuse-group-cap"
	// RefuseNonConvex: a path leaves the group and comes back: fused, the
	// kernel would depend on itself.
	RefuseNonConvex Code = "refuse-non-convex"
	// RefuseClaimed: a member already belongs to another group.
	RefuseClaimed Code = "refuse-claimed"
	// RefusePinned: a value of the group is referenced by name from a
	// subgraph, so it must keep its producer.
	RefusePinned Code = "refuse-pinned"
	// RefuseShapes: batching candidates differ in shape, dtype or
	// attributes.
	RefuseShapes Code = "refuse-shapes"
	// RefuseNoWin: the rewrite would not pay off at this size.
	RefuseNoWin Code = "refuse-no-win"
)

// RefusalCodes lists every refusal code.
func RefusalCodes() []Code {
	return []Code{RefuseOutsideReader, RefuseNoPostDominator, RefusePathKind, RefuseTwoAnchors, RefusePrologue,
		RefuseGroupCap, RefuseNonConvex, RefuseClaimed, RefusePinned, RefuseShapes, RefuseNoWin}
}
