package cmd

// This file implements --fill name=value of run and verify: an input set
// to one value instead of random numbers.

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/ir"
)

// addFillFlag registers --fill on c.
func addFillFlag(c *cobra.Command, fills *[]string) {
	c.Flags().StringArrayVar(fills, "fill", nil, "set every element of an input to one value instead of random ones: `name=value` (repeatable; e.g. --fill sr=16000 for a sample-rate scalar, --fill mask=1)")
}

// applyFills replaces the inputs --fill names in inputs with tensors of
// the input's type and (inferred, concrete) shape holding the value. A
// name that is not an input, or a value the input's type cannot hold, is
// a usage error.
func applyFills(l *Loaded, inputs map[string]eval.Value, fills []string) error {
	var names []string
	byName := map[string]*ir.Value{}
	for _, in := range l.Model.Graph.Inputs {
		if in.Const == nil {
			names = append(names, in.Name)
			byName[in.Name] = in
		}
	}
	seen := map[string]bool{}
	for _, f := range fills {
		name, val, ok := strings.Cut(f, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.TrimSpace(val) == "" {
			return Usagef("--fill %s: want name=value, e.g. --fill sr=16000", f)
		}
		if seen[name] {
			return Usagef("--fill %s: %s is filled twice", f, name)
		}
		seen[name] = true
		in := byName[name]
		if in == nil {
			return Usagef("--fill %s: the model has no input %s (its inputs: %s)", f, name, listOrNone(names))
		}
		t := in.Type
		if !t.Shape.Known {
			return Usagef("--fill %s: the shape of %s is unknown: give it with --input %s=...", f, name, name)
		}
		shape := make([]int, len(t.Shape.Dims))
		for i, d := range t.Shape.Dims {
			if !d.IsConcrete() {
				return Usagef("--fill %s: %s is %s: give dim %s a value with --dim or --input", f, name, t, d)
			}
			shape[i] = int(d.Val)
		}
		v, err := eval.FilledTensor(t.DType, shape, val, l.MaxMemory)
		if err != nil {
			return Usagef("--fill %s: %v", f, strings.TrimPrefix(err.Error(), "eval: "))
		}
		inputs[name] = v
	}
	return nil
}
