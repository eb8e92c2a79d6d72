package cost

// This file implements estimating with the notes each estimate rests on,
// for a caller that keeps estimates from one run to the next (simulate's
// estimate memo) and must make the notes of an estimate it reuses again.

import "github.com/wolong-dev/wolong/ir"

// NodesNoted is Nodes that also hands set the notes node i's estimate
// made, every one of them whether or not the model had it already, in
// the order made (empty when none): notes is valid only during the call.
func (m *Model) NodesNoted(nodes []*ir.Node, set func(i int, e Estimate, notes []string)) {
	m.split(len(nodes), func(f *Model, lo, hi int) {
		var rec []string
		f.rec = &rec
		defer func() { f.rec = nil }()
		for i := lo; i < hi; i++ {
			rec = rec[:0]
			e := f.Node(nodes[i])
			set(i, e, rec)
		}
	})
}

// AddNotes adds notes to m's notes (Notes) as if an estimate had made
// them: a caller reusing an estimate NodesNoted made adds its notes.
func (m *Model) AddNotes(notes ...string) {
	for _, s := range notes {
		m.note(s)
	}
}
