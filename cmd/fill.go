package cmd

// This file implements --fill name=value of run and verify: an input set
// to one value instead of random numbers.

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/pipeline"
)

// Fill is one --fill name=value.
type Fill = pipeline.Fill

// addFillFlag registers --fill on c.
func addFillFlag(c *cobra.Command, fills *[]string) {
	stringArrayVar(c.Flags(), fills, "fill", "set every element of an input to one value instead of random ones: `name=value` (repeatable; e.g. --fill sr=16000 for a sample-rate scalar, --fill mask=1)")
}

// parseFills reads --fill values (syntax only: pipeline.ApplyFills checks them
// against the model).
func parseFills(fills []string) ([]Fill, error) {
	var out []Fill
	seen := map[string]bool{}
	for _, f := range fills {
		name, val, ok := strings.Cut(f, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.TrimSpace(val) == "" {
			return nil, Usagef("--fill %s: want name=value, e.g. --fill sr=16000", f)
		}
		if seen[name] {
			return nil, Usagef("--fill %s: %s is filled twice", f, name)
		}
		seen[name] = true
		out = append(out, Fill{Name: name, Value: val, Text: f})
	}
	return out, nil
}

// fillValues are the values --fill gives inference (pipeline.InferOptions
// Values): a whole-number or bool fill is a known value, so inference
// follows the If branch the runtime takes (--fill sr=16000), types only
// that branch's warnings and costs that branch. A fill of a
// multi-element input stays unknown to inference (its element count is
// not the one value's).
func fillValues(fills []Fill) map[string][]int64 {
	var out map[string][]int64
	for _, f := range fills {
		v := strings.TrimSpace(f.Value)
		var n int64
		switch v {
		case "true":
			n = 1
		case "false":
			n = 0
		default:
			var err error
			if n, err = strconv.ParseInt(v, 10, 64); err != nil {
				continue
			}
		}
		if out == nil {
			out = map[string][]int64{}
		}
		out[f.Name] = []int64{n}
	}
	return out
}

// checkFillNames refuses a --fill of an input g does not have (usage).
func checkFillNames(g *ir.Graph, fills []Fill) error {
	have := map[string]bool{}
	var names []string
	for _, in := range g.Inputs {
		if in.Const == nil {
			have[in.Name] = true
			names = append(names, in.Name)
		}
	}
	for _, f := range fills {
		if !have[f.Name] {
			list := "none"
			if len(names) > 0 {
				list = strings.Join(names, ", ")
			}
			return Usagef("--fill %s: the model has no input %s (its inputs: %s)", f.Text, f.Name, list)
		}
	}
	return nil
}
