package cmd

// This file parses --dim and --input into the shapes given to a model
// (syntax only: pipeline.Load checks them against the model, and
// shapeUsage adds the flags' hints to what it refuses).

import (
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/pipeline"
)

// parseShapeFlags parses --dim and --input values, each labelled with
// its flag for messages.
func parseShapeFlags(dims, inputs []string) ([]pipeline.GivenDim, []pipeline.GivenInput, error) {
	var gd []pipeline.GivenDim
	var gi []pipeline.GivenInput
	seen := map[string]string{}
	for _, d := range dims {
		name, val, ok := strings.Cut(d, "=")
		name = strings.TrimSpace(name)
		v, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if !ok || name == "" || err != nil || v < 0 {
			return nil, nil, Usagef("--dim %s: want name=value with a whole number >= 0, e.g. --dim N=1", d)
		}
		if prev, dup := seen["dim "+name]; dup {
			return nil, nil, Usagef("--dim %s: %s is already given (--dim %s)", d, name, prev)
		}
		seen["dim "+name] = d
		gd = append(gd, pipeline.GivenDim{Name: name, Value: v, Source: "--dim " + d})
	}
	for _, in := range inputs {
		name, spec, ok := strings.Cut(in, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, nil, Usagef("--input %s: want name=1x3x224x224 (or name=scalar)", in)
		}
		s, err := pipeline.ParseShape(spec)
		if err != nil {
			return nil, nil, Usagef("--input %s: %v", in, err)
		}
		if prev, dup := seen["input "+name]; dup {
			return nil, nil, Usagef("--input %s: %s is already given (--input %s)", in, name, prev)
		}
		seen["input "+name] = in
		gi = append(gi, pipeline.GivenInput{Name: name, Shape: s, Text: in, Source: "--input " + in})
	}
	return gd, gi, nil
}
