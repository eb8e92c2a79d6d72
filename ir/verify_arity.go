package ir

// This file implements the verifier's arity check: every node of an op
// the op table declares has as many inputs and outputs as the op takes at
// the opset in force for its domain (the model's; in a function body, the
// function's own and the model's for the domains it does not list).

import "fmt"

// opset returns the version in force for domain, 0 when unknown.
func (v *verifier) opset(domain string) int64 {
	if v.opsets == nil {
		return 0
	}
	for _, o := range v.opsets {
		if o.Domain == domain {
			return o.Version
		}
	}
	if domain == "" {
		return 1
	}
	return 0
}

// arity checks n's input and output counts against the op table.
func (v *verifier) arity(g *Graph, n *Node) {
	info := InfoOf(n)
	if info == nil {
		return
	}
	ver := v.opset(n.Domain)
	in, out := info.Arity(ver)
	at := ""
	if ver > 0 && len(info.Older) > 0 {
		at = fmt.Sprintf(" at opset %d", ver)
	}
	if !in.Allows(len(n.Inputs)) {
		v.errorf(g, n, "have %d inputs, want %s%s", len(n.Inputs), in, at)
	}
	if !out.Allows(len(n.Outputs)) {
		v.errorf(g, n, "have %d outputs, want %s%s", len(n.Outputs), out, at)
	}
}
