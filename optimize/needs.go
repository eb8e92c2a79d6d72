package optimize

// This file lets the driver skip a pass on a model that holds none of the
// ops the pass's matches start from.
//
// A pattern pass walks every graph it runs on (a claim map, a match
// attempt per node) and on most models finds nothing, on a model of many
// If/Loop bodies once per body (runPassAll); docs/speed.md (sixth round)
// has what skipping saves.
//
// Pass.Needs names the ops no match can do without; the driver keeps a
// census of the ops in the graphs it runs passes on (the main graph and
// the If/Loop/Scan bodies at any depth, not fused kernels' bodies), counts
// it again after a pass that rewrote, and skips a pass whose needs the
// census does not meet. A skipped pass reports what running it would
// have: no rewrite. TestPassNeeds holds each pass's needs to its rewrites.

import (
	"slices"

	"github.com/wolong-dev/wolong/ir"
)

// opNeeds is what a pass needs of the model's ops: every entry met, an
// entry met when the model holds one of its ops.
type opNeeds [][]ir.OpKey

// needAll is the needs of a pass whose matches use each of ops.
func needAll(ops ...ir.OpKey) opNeeds {
	n := make(opNeeds, len(ops))
	for i, op := range ops {
		n[i] = []ir.OpKey{op}
	}
	return n
}

// needAny is the needs of a pass whose matches start from one of ops.
func needAny(ops ...ir.OpKey) opNeeds { return opNeeds{ops} }

// opCensus is the set of ops a model holds.
type opCensus map[ir.OpKey]bool

// countOps returns the ops of the graphs the driver runs passes on: m's
// main graph and its If/Loop/Scan bodies at every depth (runPassAll's
// controlBodies), not the bodies of fused kernels, which no pass
// rewrites.
func countOps(m *ir.Model) opCensus {
	return censusOf(m.Graph, controlBodies(m.Graph, nil))
}

// censusOf returns the ops of g and of bodies (g's controlBodies).
func censusOf(g *ir.Graph, bodies []body) opCensus {
	c := opCensus{}
	var last ir.OpKey
	visit := func(g *ir.Graph) {
		for _, n := range g.Nodes {
			if k := n.Key(); k != last {
				c[k], last = true, k
			}
		}
	}
	visit(g)
	for _, b := range bodies {
		visit(b.g)
	}
	return c
}

// meets reports whether the census holds what needs asks for.
func (c opCensus) meets(needs opNeeds) bool {
	for _, alts := range needs {
		if !slices.ContainsFunc(alts, func(op ir.OpKey) bool { return c[op] }) {
			return false
		}
	}
	return true
}

// mayMatch reports whether p can find anything in c's model: true when p
// states no needs or the census meets them. The census is counted on
// first use and again after c.staleCensus.
func (c *Context) mayMatch(p Pass) bool {
	if len(p.Needs) == 0 {
		return true
	}
	c.survey()
	return c.census.meets(p.Needs)
}

// survey lists the model's control-flow bodies (c.bodies) and its ops
// (c.census) unless they were listed since the last rewrite: the driver
// asks before every pass, and a pass that reports no rewrite changed
// nothing (the pass contract), so both stand until one does. Telling
// whether a node holds a body reads its attribute list, a cache miss a
// node on a large model: one walk per state of the model, not one per
// pass.
func (c *Context) survey() {
	if c.census != nil {
		return
	}
	c.bodies = controlBodies(c.Model.Graph, c.bodies)
	c.census = censusOf(c.Model.Graph, c.bodies)
}

// staleCensus drops the census and the bodies' list: a pass rewrote the
// model.
func (c *Context) staleCensus() { c.census = nil }
