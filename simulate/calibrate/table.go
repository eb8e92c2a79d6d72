package calibrate

// This file implements wolong's CSV table format (see the package doc).

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// TableHeader is the header row WriteTable writes.
var TableHeader = []string{"op", "dtype", "input_shapes", "attributes", "measured_us", "domain", "name"}

// ParseTable reads a table file (see the package doc for the format).
func ParseTable(src string, data []byte) (*Profile, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	head, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty table (want a header row: op,dtype,input_shapes,attributes,measured_us)", src)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", src, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, need := range []string{"op", "dtype", "input_shapes", "attributes", "measured_us"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: header has no %q column (want op,dtype,input_shapes,attributes,measured_us)", src, need)
		}
	}
	p := &Profile{Source: src, Format: Table}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", src, err)
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		s, err := parseRow(get)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %v", src, line, err)
		}
		if len(p.Samples) >= maxSamples {
			return nil, fmt.Errorf("%s: more than %d rows", src, maxSamples)
		}
		p.Samples = append(p.Samples, s)
	}
	if len(p.Samples) == 0 {
		return nil, fmt.Errorf("%s: no rows", src)
	}
	return p, nil
}

func parseRow(get func(string) string) (Sample, error) {
	s := Sample{Op: get("op"), Domain: get("domain"), Name: get("name"), Runs: 1}
	if d, op, ok := strings.Cut(s.Op, ":"); ok && s.Domain == "" {
		s.Domain, s.Op = d, op
	}
	s.Domain = ir.CanonicalDomain(s.Domain)
	if s.Op == "" {
		return s, errors.New("empty op")
	}
	dt, ok := ir.ParseDType(get("dtype"))
	if !ok {
		return s, fmt.Errorf("%s: unknown dtype %q", s.Op, get("dtype"))
	}
	s.DType = dt
	ins, err := ParseInputs(get("input_shapes"), dt)
	if err != nil {
		return s, fmt.Errorf("%s: input_shapes: %v", s.Op, err)
	}
	s.Inputs = ins
	if s.Attrs, err = ParseAttrs(get("attributes")); err != nil {
		return s, fmt.Errorf("%s: attributes: %v", s.Op, err)
	}
	us, err := strconv.ParseFloat(get("measured_us"), 64)
	if err != nil || !(us >= 0) || math.IsInf(us, 0) {
		return s, fmt.Errorf("%s: measured_us %q: want a number >= 0", s.Op, get("measured_us"))
	}
	s.Us = us
	return s, nil
}

// ParseInputs reads an input_shapes field; dt is the default element type.
func ParseInputs(field string, dt ir.DType) ([]Input, error) {
	if field == "" {
		return nil, nil
	}
	parts := strings.Split(field, ";")
	if len(parts) > 64 {
		return nil, fmt.Errorf("%d inputs, more than 64", len(parts))
	}
	var ins []Input
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "-" {
			ins = append(ins, Input{Absent: true})
			continue
		}
		in := Input{DType: dt}
		spec, vals, hasVals := strings.Cut(p, "=")
		spec, dts, hasDT := strings.Cut(spec, ":")
		if hasDT {
			d, ok := ir.ParseDType(strings.TrimSpace(dts))
			if !ok {
				return nil, fmt.Errorf("input %d: unknown dtype %q", i, dts)
			}
			in.DType = d
		}
		spec = strings.TrimSpace(spec)
		if spec != "scalar" && spec != "" {
			for _, d := range strings.Split(spec, "x") {
				v, err := strconv.ParseInt(strings.TrimSpace(d), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("input %d: bad dim %q in %q", i, d, spec)
				}
				in.Dims = append(in.Dims, v)
			}
		}
		if err := checkDims(in.Dims); err != nil {
			return nil, fmt.Errorf("input %d: %v", i, err)
		}
		if hasVals {
			in.HasValues = true
			if strings.TrimSpace(vals) != "" {
				vs := strings.Split(vals, ",")
				if len(vs) > maxValues {
					return nil, fmt.Errorf("input %d: more than %d values", i, maxValues)
				}
				for _, v := range vs {
					f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
					if err != nil {
						return nil, fmt.Errorf("input %d: bad value %q", i, v)
					}
					in.Values = append(in.Values, f)
				}
			}
			n := int64(1)
			for _, d := range in.Dims {
				if d > 0 && n > maxValues/d {
					return nil, fmt.Errorf("input %d: constant of shape %s has more than %d values", i, dimsText(in.Dims), maxValues)
				}
				n *= d
			}
			if n != int64(len(in.Values)) {
				return nil, fmt.Errorf("input %d: %d values for shape %s", i, len(in.Values), dimsText(in.Dims))
			}
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// ParseAttrs reads an attributes field: name=value pairs separated by ';'.
func ParseAttrs(field string) ([]*ir.Attr, error) {
	if strings.TrimSpace(field) == "" {
		return nil, nil
	}
	var attrs []*ir.Attr
	seen := map[string]bool{}
	for _, kv := range splitAttrs(field) {
		name, val, ok := strings.Cut(kv, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want name=value", kv)
		}
		if seen[name] {
			return nil, fmt.Errorf("attribute %s given twice", name)
		}
		seen[name] = true
		a := &ir.Attr{Name: name}
		switch {
		case len(val) >= 2 && val[0] == '\'' && val[len(val)-1] == '\'':
			a.Type, a.S = ir.AttrString, []byte(val[1:len(val)-1])
		case val == "":
			a.Type = ir.AttrInts
		default:
			parts := strings.Split(val, ",")
			if len(parts) > maxValues {
				return nil, fmt.Errorf("attribute %s: more than %d values", name, maxValues)
			}
			isFloat := strings.ContainsAny(val, ".eEnN") // 1.0, 1e-05, inf, nan
			list := len(parts) > 1
			for _, p := range parts {
				p = strings.TrimSpace(p)
				if isFloat {
					f, err := strconv.ParseFloat(p, 32)
					if err != nil {
						return nil, fmt.Errorf("attribute %s: bad float %q", name, p)
					}
					a.Floats = append(a.Floats, float32(f))
				} else {
					v, err := strconv.ParseInt(p, 10, 64)
					if err != nil {
						return nil, fmt.Errorf("attribute %s: bad int %q", name, p)
					}
					a.Ints = append(a.Ints, v)
				}
			}
			switch {
			case isFloat && list:
				a.Type = ir.AttrFloats
			case isFloat:
				a.Type, a.F, a.Floats = ir.AttrFloat, a.Floats[0], nil
			case list:
				a.Type = ir.AttrInts
			default:
				a.Type, a.I, a.Ints = ir.AttrInt, a.Ints[0], nil
			}
		}
		attrs = append(attrs, a)
	}
	return attrs, nil
}

// splitAttrs splits on ';' outside single quotes.
func splitAttrs(s string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			quoted = !quoted
		case ';':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// FormatAttrs writes attrs in the table's attribute syntax, sorted by name.
// Attributes of kinds the table cannot express (graphs, tensors) are left
// out; ok is false then.
func FormatAttrs(attrs []*ir.Attr) (text string, ok bool) {
	ok = true
	var parts []string
	for _, a := range attrs {
		var v string
		switch a.Type {
		case ir.AttrInt:
			v = strconv.FormatInt(a.I, 10)
		case ir.AttrInts:
			v = joinInts(a.Ints, ",")
		case ir.AttrFloat:
			v = formatFloat(float64(a.F))
		case ir.AttrFloats:
			fs := make([]string, len(a.Floats))
			for i, f := range a.Floats {
				fs[i] = formatFloat(float64(f))
			}
			v = strings.Join(fs, ",")
			if len(a.Floats) == 1 { // a one-element list would read back as a float
				ok = false
				continue
			}
		case ir.AttrString:
			if bytes.ContainsAny(a.S, "';\n") {
				ok = false
				continue
			}
			v = "'" + string(a.S) + "'"
		default:
			ok = false
			continue
		}
		parts = append(parts, a.Name+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ";"), ok
}

// FormatInputs writes inputs in the table's input_shapes syntax; dt is the
// row's dtype (inputs of another type carry :DTYPE).
func FormatInputs(ins []Input, dt ir.DType) string {
	parts := make([]string, len(ins))
	for i, in := range ins {
		if in.Absent {
			parts[i] = "-"
			continue
		}
		s := dimsText(in.Dims)
		if in.DType != dt {
			s += ":" + in.DType.String()
		}
		if in.HasValues {
			vs := make([]string, len(in.Values))
			for j, v := range in.Values {
				vs[j] = strconv.FormatFloat(v, 'g', -1, 64)
			}
			s += "=" + strings.Join(vs, ",")
		}
		parts[i] = s
	}
	return strings.Join(parts, ";")
}

func dimsText(d []int64) string {
	if len(d) == 0 {
		return "scalar"
	}
	return joinInts(d, "x")
}

func joinInts(v []int64, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, sep)
}

func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 32)
	if !strings.ContainsAny(s, ".eEnN") {
		s += ".0"
	}
	return s
}

// WriteTable writes samples in the table format.
func WriteTable(w io.Writer, samples []Sample) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(TableHeader); err != nil {
		return err
	}
	for _, s := range samples {
		attrs, _ := FormatAttrs(s.Attrs)
		if err := cw.Write([]string{s.Op, s.DType.String(), FormatInputs(s.Inputs, s.DType), attrs,
			strconv.FormatFloat(s.Us, 'g', 6, 64), s.Domain, s.Name}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
