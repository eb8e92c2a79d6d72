package report

// This file keeps the node list of the graph after each pass for the HTML
// report (explain --html): an adapter on optimize.Options.OnPass, so the
// pass driver needs no change. Nodes are interned: a node that a pass did
// not touch is one table entry shared by every column it appears in.

import (
	"strconv"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
)

// HTMLNode is one interned node: [label, op, inputs, outputs, members]
// (members: "label:op" of a fused group's body nodes, empty otherwise).
type HTMLNode [5]any

// PassRecorder records the main graph's node list after each pass. Its
// Record method fits optimize.Options.OnPass (chain it with other hooks).
// It does not copy tensors or attributes: a node is its label, op, value
// names and fused members.
type PassRecorder struct {
	nodes []HTMLNode
	index map[string]int
	snaps []passSnap
	key   []byte // reused by Record
}

type passSnap struct {
	name string
	ids  []int
}

// NewPassRecorder returns an empty recorder.
func NewPassRecorder() *PassRecorder { return &PassRecorder{index: map[string]int{}} }

// Record keeps the node list of m after pass ("input": before the first).
// A node seen before (same label, op, value names and members) costs a
// key built in a reused buffer and one map lookup, no allocation.
// Dump is Record as the pass driver's dumper (optimize.Dumper): give it
// with KeepUnchanged, so every pass gets its column.
func (r *PassRecorder) Dump(s optimize.Stage, m *ir.Model) error { return r.Record(s.Pass, m) }

func (r *PassRecorder) Record(pass string, m *ir.Model) error {
	ids := make([]int, 0, len(m.Graph.Nodes))
	for _, n := range m.Graph.Nodes {
		body := ir.FusedBody(n)
		r.key = appendNodeKey(r.key[:0], n, body)
		id, ok := r.index[string(r.key)]
		if !ok {
			id = len(r.nodes)
			r.index[string(r.key)] = id
			members := []string{}
			if body != nil {
				for _, bn := range body.Nodes {
					members = append(members, ir.NodeLabel(bn)+":"+bn.QualifiedOp())
				}
			}
			r.nodes = append(r.nodes, HTMLNode{ir.NodeLabel(n), n.QualifiedOp(), valueNames(n.Inputs), valueNames(n.Outputs), members})
		}
		ids = append(ids, id)
	}
	r.snaps = append(r.snaps, passSnap{name: pass, ids: ids})
	return nil
}

// appendNodeKey appends what identifies n in the table: label, domain,
// op, input and output names, and the fused members' labels and ops.
func appendNodeKey(k []byte, n *ir.Node, body *ir.Graph) []byte {
	if n.Name == "" {
		k = append(k, '#')
		k = strconv.AppendInt(k, int64(n.ID), 10)
	} else {
		k = append(k, n.Name...)
	}
	k = append(append(append(append(k, 0), n.Domain...), 0), n.Op...)
	for _, vs := range [][]*ir.Value{n.Inputs, n.Outputs} {
		k = append(k, 1)
		for _, v := range vs {
			if v != nil {
				k = append(k, v.Name...)
			}
			k = append(k, 0)
		}
	}
	if body != nil {
		k = append(k, 2)
		for _, bn := range body.Nodes {
			k = appendNodeKey(append(k, 3), bn, nil)
		}
	}
	return k
}

// valueNames are the names of vs, "" for an omitted optional slot.
func valueNames(vs []*ir.Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		if v != nil {
			out[i] = v.Name
		}
	}
	return out
}

// snap returns the node list recorded as the i-th call, if it was for
// pass (nil otherwise: the recorder missed a pass).
func (r *PassRecorder) snap(i int, pass string) []int {
	if r == nil || i >= len(r.snaps) || r.snaps[i].name != pass {
		return nil
	}
	return r.snaps[i].ids
}

// listDelta counts the ids of cur not in prev (added) and of prev not in
// cur (removed).
func listDelta(prev, cur []int) (added, removed int) {
	in := make(map[int]bool, len(prev))
	for _, id := range prev {
		in[id] = true
	}
	now := make(map[int]bool, len(cur))
	for _, id := range cur {
		now[id] = true
		if !in[id] {
			added++
		}
	}
	for id := range in {
		if !now[id] {
			removed++
		}
	}
	return added, removed
}
