package cmd

// This file parses --dim and --input and checks them against the model
// every command loads: the one place that refuses shapes a model cannot
// take (loadModel calls it for every command that reads a model).

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// dimFlag is one --dim name=value.
type dimFlag struct {
	text string // as given, for messages
	name string
	val  int64
}

// inputFlag is one --input name=1x3x224x224, or an input shape a
// measurement file recorded.
type inputFlag struct {
	text  string // "name=1x3x224x224"
	name  string
	shape ir.Shape
	from  string // the measurement file that recorded it ("": --input)
}

// errf returns the error for a shape the model cannot take: a usage error
// naming --input, or, for a recorded shape, a failure naming the file.
func (f inputFlag) errf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if f.from != "" {
		return fmt.Errorf("%s records input %s: %s", f.from, f.text, msg)
	}
	return Usagef("--input %s: %s", f.text, msg)
}

// shapeFlags are the --dim and --input flags of a command, parsed.
type shapeFlags struct {
	dims   []dimFlag
	inputs []inputFlag
}

// symbolName is what a symbolic dim may be called (ONNX dim_param names
// as exporters write them: "batch_size", "N", "unk__12", "seq.len").
var symbolName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// parseShapeFlags parses --dim and --input values (syntax only; the model
// checks come from check).
func parseShapeFlags(dims, inputs []string) (shapeFlags, error) {
	var sf shapeFlags
	seen := map[string]string{}
	for _, d := range dims {
		name, val, ok := strings.Cut(d, "=")
		name = strings.TrimSpace(name)
		v, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if !ok || name == "" || err != nil || v < 0 {
			return sf, Usagef("--dim %s: want name=value with a whole number >= 0, e.g. --dim N=1", d)
		}
		if prev, dup := seen["dim "+name]; dup {
			return sf, Usagef("--dim %s: %s is already given (--dim %s)", d, name, prev)
		}
		seen["dim "+name] = d
		sf.dims = append(sf.dims, dimFlag{text: d, name: name, val: v})
	}
	for _, in := range inputs {
		name, spec, ok := strings.Cut(in, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return sf, Usagef("--input %s: want name=1x3x224x224 (or name=scalar)", in)
		}
		s, err := parseShape(spec)
		if err != nil {
			return sf, Usagef("--input %s: %v", in, err)
		}
		if prev, dup := seen["input "+name]; dup {
			return sf, Usagef("--input %s: %s is already given (--input %s)", in, name, prev)
		}
		seen["input "+name] = in
		sf.inputs = append(sf.inputs, inputFlag{text: in, name: name, shape: s})
	}
	return sf, nil
}

// parseShape reads "1x3x224x224": dims are whole numbers >= 0 or names
// ("Nx3x224x224"); "scalar" is a rank-0 shape.
func parseShape(spec string) (ir.Shape, error) {
	spec = strings.TrimSpace(spec)
	switch spec {
	case "":
		return ir.Shape{}, fmt.Errorf("no shape after '=' (give dims such as 1x3x224x224, or scalar for a rank-0 input)")
	case "scalar":
		return ir.Shape{Known: true}, nil
	}
	var dims []ir.Dim
	for i, p := range strings.Split(spec, "x") {
		p = strings.TrimSpace(p)
		if v, err := strconv.ParseInt(p, 10, 64); err == nil {
			if v < 0 {
				return ir.Shape{}, fmt.Errorf("dim %d is negative (%d)", i, v)
			}
			dims = append(dims, ir.D(v))
			continue
		}
		if !symbolName.MatchString(p) {
			return ir.Shape{}, fmt.Errorf("dim %d is %q: want a whole number >= 0 or a name such as N", i, p)
		}
		dims = append(dims, ir.S(p))
	}
	return ir.DimsShape(dims...), nil
}

// options returns the inference options the flags give, for g's inputs
// (recorded shapes of inputs g lacks are left out).
func (sf shapeFlags) options(g *ir.Graph) ir.InferOptions {
	opt := ir.InferOptions{Dims: map[string]int64{}, Inputs: map[string]ir.Shape{}}
	for _, d := range sf.dims {
		opt.Dims[d.name] = d.val
	}
	have := map[string]bool{}
	for _, in := range g.Inputs {
		have[in.Name] = true
	}
	for _, in := range sf.inputs {
		if have[in.name] || in.from == "" {
			opt.Inputs[in.name] = in.shape
		}
	}
	return opt
}

// declaredType is the type the model gives a graph input: the file's
// declaration, else what import set.
func declaredType(v *ir.Value) ir.Type {
	if v.Declared != nil {
		return *v.Declared
	}
	return v.Type
}

// binding is the value a symbolic dim takes and the flag that gave it.
type binding struct {
	val  int64
	from string
}

// check refuses, as a usage error naming the flag and what the model
// declares, an --input for an input the main graph does not have (or for
// an initializer), of another rank than declared, or with a dim that
// contradicts a concrete declared dim; a symbolic dim given two different
// values (by --dim and --input, or by two --input); and a --dim for a name
// no input dim has. It returns the values --input gives to declared
// symbolic dims that --dim does not set, so that other inputs sharing the
// name get the same value. With force, --input may change concrete dims
// (the rank must still match).
func (sf shapeFlags) check(g *ir.Graph, force bool) (map[string]int64, error) {
	byName := map[string]*ir.Value{}
	var names []string
	symbols := map[string]bool{}
	for _, in := range g.Inputs {
		byName[in.Name] = in
		if in.Const != nil {
			continue
		}
		names = append(names, in.Name)
		for _, d := range declaredType(in).Shape.Dims {
			if d.IsSymbolic() {
				symbols[d.Sym] = true
			}
		}
	}
	bound := map[string]binding{}
	for _, d := range sf.dims {
		bound[d.name] = binding{d.val, "--dim " + d.text}
	}
	derived := map[string]int64{}
	for _, f := range sf.inputs {
		in := byName[f.name]
		switch {
		case in == nil && f.from != "":
			continue // the profile's matching says whether it fits
		case in == nil:
			return nil, f.errf("the model has no input %s (its inputs: %s)", f.name, listOrNone(names))
		case in.Const != nil:
			return nil, f.errf("%s is a weight (an initializer), not an input the model is fed (its inputs: %s)", f.name, listOrNone(names))
		}
		decl := declaredType(in)
		for _, d := range f.shape.Dims {
			if d.IsSymbolic() {
				symbols[d.Sym] = true
			}
		}
		if decl.Kind != ir.KindTensor && decl.Kind != ir.KindUnknown {
			return nil, f.errf("the model declares %s as %s; --input gives tensor shapes", f.name, decl)
		}
		if !decl.Shape.Known {
			continue
		}
		if len(decl.Shape.Dims) != len(f.shape.Dims) {
			return nil, f.errf("the model declares %s as %s (rank %d)", f.name, decl, len(decl.Shape.Dims))
		}
		for i, dd := range decl.Shape.Dims {
			gd := f.shape.Dims[i]
			if gd.IsSymbolic() {
				if b, ok := bound[gd.Sym]; ok {
					gd = ir.D(b.val)
				}
			}
			switch {
			case force && dd.IsConcrete():
			case dd.IsConcrete() && gd.IsConcrete() && gd.Val != dd.Val:
				return nil, f.errf("the model declares %s as %s: dim %d is %d, not %d%s", f.name, decl, i, dd.Val, gd.Val, forceHint(i))
			case dd.IsConcrete() && gd.IsSymbolic():
				return nil, f.errf("the model declares %s as %s: dim %d is %d, not %s%s", f.name, decl, i, dd.Val, gd.Sym, forceHint(i))
			case dd.IsSymbolic() && gd.IsConcrete():
				if b, ok := bound[dd.Sym]; ok && b.val != gd.Val {
					return nil, f.errf("the model declares %s as %s, and %s is %d (%s)", f.name, decl, dd.Sym, b.val, b.from)
				}
				if _, ok := bound[dd.Sym]; !ok {
					bound[dd.Sym] = binding{gd.Val, f.source()}
					derived[dd.Sym] = gd.Val
				}
			}
		}
	}
	for _, d := range sf.dims {
		if !symbols[d.name] {
			var have []string
			for s := range symbols {
				have = append(have, s)
			}
			sort.Strings(have)
			what := "its inputs have no symbolic dims"
			if len(have) > 0 {
				what = "its inputs' symbolic dims: " + strings.Join(have, ", ")
			}
			return nil, Usagef("--dim %s: the model has no symbolic dim %s (%s)", d.text, d.name, what)
		}
	}
	return derived, nil
}

// source names where the shape came from, for messages about another.
func (f inputFlag) source() string {
	if f.from != "" {
		return f.from + " records " + f.text
	}
	return "--input " + f.text
}

// forceHint says how to analyze the model at a shape it does not
// declare anyway (and, for dim 0, that --batch changes the batch).
func forceHint(i int) string {
	if i == 0 {
		return " (--batch N sets the batch where the command has it; --force-input analyzes the model at this shape anyway)"
	}
	return " (--force-input analyzes the model at this shape anyway)"
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
