package report

// This file finds the original nodes a plan's kernel runs. A fused
// kernel's body keeps its member nodes, but the body numbers them anew
// (an unnamed member reads "#0" there); the passes' rewrites record what
// each new node replaced, by the labels the nodes had in the model
// (names, or "#ID" for unnamed nodes). Following the rewrites back from
// a kernel's name gives its members as the model names them.

import "github.com/wolong-dev/wolong/optimize"

// origins maps a node label a rewrite produced to the labels it replaced.
type origins map[string][]string

// newOrigins indexes res's rewrites: the latest rewrite producing a label
// wins (a name a pass reuses names the latest node).
func newOrigins(res *optimize.Result) origins {
	o := origins{}
	if res == nil {
		return o
	}
	for i := range res.Passes {
		for _, rw := range res.Passes[i].Rewrites {
			for _, a := range rw.After {
				if len(rw.Before) == 1 && rw.Before[0] == a {
					continue // rewritten in place
				}
				o[a] = rw.Before
			}
		}
	}
	return o
}

// members returns the model's labels of the nodes that label stands
// for, in rewrite order without repeats, or nil when no rewrite made it.
func (o origins) members(label string) []string {
	if _, ok := o[label]; !ok {
		return nil
	}
	var out []string
	emitted := map[string]bool{}
	emit := func(l string) {
		if !emitted[l] {
			emitted[l] = true
			out = append(out, l)
		}
	}
	var walk func(l string, depth int)
	walk = func(l string, depth int) {
		before, ok := o[l]
		if !ok || depth > 64 {
			emit(l)
			return
		}
		for _, b := range before {
			if b == l {
				emit(b) // the node kept its label (a Conv that took in a BatchNormalization)
				continue
			}
			walk(b, depth+1)
		}
	}
	walk(label, 0)
	return out
}
