package ir

// This file implements the pieces of one line of the IR text form the
// parser reads: names, value references, types, attributes and constants.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cursor reads one line from pos on.
type cursor struct {
	s   string
	pos int
	// anon: the last ref was %#N, an unnamed value (its name is "#N").
	anon bool
	// depth of the type being read (sequences of sequences ...).
	depth int
}

func (c *cursor) end() bool { return c.pos >= len(c.s) }

func (c *cursor) peek(b byte) bool { return c.pos < len(c.s) && c.s[c.pos] == b }

// eat consumes lit if the text continues with it.
func (c *cursor) eat(lit string) bool {
	if strings.HasPrefix(c.s[c.pos:], lit) {
		c.pos += len(lit)
		return true
	}
	return false
}

// until returns the text up to b (not consumed), or "" when b does not follow.
func (c *cursor) until(b byte) string {
	i := strings.IndexByte(c.s[c.pos:], b)
	if i < 0 {
		return ""
	}
	s := c.s[c.pos : c.pos+i]
	c.pos += i
	return s
}

// quoted reads a Go-quoted string.
func (c *cursor) quoted() (string, bool) {
	q, err := strconv.QuotedPrefix(c.s[c.pos:])
	if err != nil {
		return "", false
	}
	s, err := strconv.Unquote(q)
	if err != nil {
		return "", false
	}
	c.pos += len(q)
	return s, true
}

// isNameRune reports whether r may appear in a plain name (print.go).
func isNameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		strings.ContainsRune("_.:/-+@$[]'!?~#", r) || r > 0x7f && unicode.IsLetter(r)
}

// word reads a run of name runes.
func (c *cursor) word() string {
	start := c.pos
	for c.pos < len(c.s) {
		r, n := utf8.DecodeRuneInString(c.s[c.pos:])
		if !isNameRune(r) {
			break
		}
		c.pos += n
	}
	return c.s[start:c.pos]
}

// name reads a plain or quoted name.
func (c *cursor) name() string {
	if c.peek('"') {
		s, _ := c.quoted()
		return s
	}
	return c.word()
}

// ref reads a value reference: %NAME, %"NAME", %#ID (unnamed; sets anon)
// or _ (an omitted value, read as the name "").
func (c *cursor) ref() (string, bool) {
	c.anon = false
	if c.eat("_") {
		return "", true
	}
	if !c.eat("%") {
		return "", false
	}
	if c.peek('"') {
		return c.quoted()
	}
	if c.peek('#') {
		c.pos++
		start := c.pos
		for c.pos < len(c.s) && c.s[c.pos] >= '0' && c.s[c.pos] <= '9' {
			c.pos++
		}
		c.anon = c.pos > start
		return "#" + c.s[start:c.pos], c.anon
	}
	w := c.word()
	if strings.HasSuffix(w, ":") && c.peek(' ') {
		w = strings.TrimRight(w, ":")
		c.pos -= 1
	}
	return w, w != ""
}

// typ reads a type as Type.String writes it.
func (c *cursor) typ() (Type, error) {
	if c.depth++; c.depth > maxParseDepth {
		return Type{}, fmt.Errorf("types nested deeper than %d", maxParseDepth)
	}
	defer func() { c.depth-- }()
	switch {
	case c.eat("?"):
		return Type{}, nil
	case c.eat("seq("), c.eat("opt("):
		kind := KindSequence
		if c.s[c.pos-4:c.pos] == "opt(" {
			kind = KindOptional
		}
		t := Type{Kind: kind}
		return t, c.elem(&t)
	case c.eat("map("):
		dt, err := c.dtype()
		if err != nil {
			return Type{}, err
		}
		t := Type{Kind: KindMap, DType: dt}
		if !c.eat(",") {
			return Type{}, fmt.Errorf("want \",\" at column %d", c.pos+1)
		}
		return t, c.elem(&t)
	case c.eat("sparse("):
		t, err := c.tensorType()
		if err != nil {
			return Type{}, err
		}
		if !c.eat(")") {
			return Type{}, fmt.Errorf("want \")\" at column %d", c.pos+1)
		}
		t.Kind = KindSparse
		return t, nil
	}
	return c.tensorType()
}

// elem reads the element type of a sequence, optional or map ("?" for
// none) and the closing parenthesis.
func (c *cursor) elem(t *Type) error {
	if !c.eat("?") {
		e, err := c.typ()
		if err != nil {
			return err
		}
		t.Elem = &e
	}
	if !c.eat(")") {
		return fmt.Errorf("want \")\" at column %d", c.pos+1)
	}
	return nil
}

// dtype reads an element type name (or dtype(N)).
func (c *cursor) dtype() (DType, error) {
	if c.eat("dtype(") {
		n := c.until(')')
		v, err := strconv.ParseInt(n, 10, 32)
		if err != nil || !c.eat(")") {
			return 0, fmt.Errorf("bad dtype(%s) at column %d", n, c.pos+1)
		}
		return DType(v), nil
	}
	start := c.pos
	for c.pos < len(c.s) && (c.s[c.pos] >= 'a' && c.s[c.pos] <= 'z' || c.s[c.pos] >= '0' && c.s[c.pos] <= '9' || c.s[c.pos] == '_') {
		c.pos++
	}
	dt, ok := ParseDType(c.s[start:c.pos])
	if !ok && c.s[start:c.pos] != "undefined" {
		return 0, fmt.Errorf("unknown element type %q at column %d", c.s[start:c.pos], start+1)
	}
	return dt, nil
}

// tensorType reads DTYPE[dims] or DTYPE[*].
func (c *cursor) tensorType() (Type, error) {
	dt, err := c.dtype()
	if err != nil {
		return Type{}, err
	}
	if c.eat("[*]") {
		return TensorType(dt, UnknownShape()), nil
	}
	if !c.eat("[") {
		return Type{}, fmt.Errorf("want \"[\" after %s at column %d", dt, c.pos+1)
	}
	dims := []Dim{}
	if c.eat("]") {
		return TensorType(dt, DimsShape(dims...)), nil
	}
	for {
		// A dim runs to the next "," or "]" outside parentheses.
		start, depth := c.pos, 0
		for ; c.pos < len(c.s); c.pos++ {
			b := c.s[c.pos]
			if depth == 0 && (b == ',' || b == ']') {
				break
			}
			switch b {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		if c.end() {
			return Type{}, fmt.Errorf("unterminated shape")
		}
		d := c.s[start:c.pos]
		switch v, err := strconv.ParseInt(d, 10, 64); {
		case d == "?":
			dims = append(dims, Unknown())
		case err == nil && v >= 0:
			dims = append(dims, D(v))
		case d == "":
			return Type{}, fmt.Errorf("empty dim at column %d", start+1)
		default:
			dims = append(dims, S(d))
		}
		if c.eat("]") {
			return TensorType(dt, DimsShape(dims...)), nil
		}
		c.pos++ // the comma
	}
}

// tensor reads a constant: a tensor type and, optionally, " [values]".
func (c *cursor) tensor() (*Tensor, error) {
	t, err := c.tensorType()
	if err != nil {
		return nil, err
	}
	if !t.Shape.Known {
		return nil, fmt.Errorf("a constant has a known shape")
	}
	dims := make([]int64, len(t.Shape.Dims))
	for i, d := range t.Shape.Dims {
		if !d.IsConcrete() {
			return nil, fmt.Errorf("a constant has concrete dims")
		}
		dims[i] = d.Val
	}
	ts := &Tensor{DType: t.DType, Dims: dims}
	if !c.eat(" [") {
		return ts, nil
	}
	body := c.until(']')
	if !c.eat("]") {
		return nil, fmt.Errorf("unterminated values")
	}
	var vals []string
	if body != "" {
		vals = strings.Split(body, ",")
	}
	if n, _ := ts.NumElements(); int64(len(vals)) != n {
		return nil, fmt.Errorf("%d values for %s", len(vals), t)
	}
	for _, v := range vals {
		switch ts.DType {
		case Float32, Float64:
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("value %q: not a number", v)
			}
			if ts.DType == Float32 {
				ts.SetFloats(append(ts.Floats(), float32(f)))
			} else {
				ts.SetFloat64s(append(ts.Float64s(), f))
			}
		case Int32, Int64, Bool:
			i, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("value %q: not an integer", v)
			}
			if ts.DType == Int64 {
				ts.SetInt64s(append(ts.Int64s(), i))
			} else {
				ts.SetInt32s(append(ts.Int32s(), int32(i)))
			}
		default:
			return nil, fmt.Errorf("values of a %s constant", ts.DType)
		}
	}
	return ts, nil
}

// attr reads NAME=VALUE as attrText writes it.
func (c *cursor) attr() (*Attr, error) {
	name := c.word()
	if name == "" || !c.eat("=") {
		return nil, fmt.Errorf("want NAME=VALUE at column %d", c.pos+1)
	}
	a := &Attr{Name: name}
	switch {
	case c.eat("@"):
		a.RefAttrName = c.word()
	case c.peek('"'):
		s, ok := c.quoted()
		if !ok {
			return nil, fmt.Errorf("bad string at column %d", c.pos+1)
		}
		a.Type, a.S = AttrString, []byte(s)
	case c.eat("tensor(?)"):
		a.Type = AttrTensor
	case c.eat("tensor "):
		t, err := c.tensor()
		if err != nil {
			return nil, err
		}
		a.Type, a.T = AttrTensor, t
	case c.eat("sparse tensor"):
		a.Type = AttrSparseTensor
	case c.eat("type "):
		t, err := c.typ()
		if err != nil {
			return nil, err
		}
		a.Type, a.TP = AttrTypeProto, &t
	case c.eat("tensors("):
		n, err := c.count()
		a.Type, a.Tensors = AttrTensors, make([]*Tensor, n)
		return a, err
	case c.eat("sparse_tensors("):
		n, err := c.count()
		a.Type, a.SparseTensors = AttrSparseTensors, make([]*SparseTensor, n)
		return a, err
	case c.eat("types("):
		n, err := c.count()
		a.Type, a.TypeProtos = AttrTypeProtos, make([]*Type, n)
		return a, err
	case c.eat("["):
		return a, c.list(a)
	case c.eat("?"):
	default:
		v := c.number()
		if v == "" {
			return nil, fmt.Errorf("bad value of %s at column %d", name, c.pos+1)
		}
		if isFloatText(v) {
			f, err := strconv.ParseFloat(v, 32)
			if err != nil {
				return nil, fmt.Errorf("bad float %q", v)
			}
			a.Type, a.F = AttrFloat, float32(f)
		} else {
			i, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("bad integer %q", v)
			}
			a.Type, a.I = AttrInt, i
		}
	}
	return a, nil
}

// count reads "N)" of tensors(N) and the like.
func (c *cursor) count() (int, error) {
	n, err := strconv.Atoi(c.until(')'))
	if err != nil || n < 0 || n > 1<<20 || !c.eat(")") {
		return 0, fmt.Errorf("bad count at column %d", c.pos+1)
	}
	return n, nil
}

// number reads the text of a number (digits, sign, point, exponent, Inf, NaN).
func (c *cursor) number() string {
	start := c.pos
	for c.pos < len(c.s) && strings.IndexByte("0123456789+-.eEInfaN", c.s[c.pos]) >= 0 {
		c.pos++
	}
	return c.s[start:c.pos]
}

// isFloatText: floatText always writes a point, an exponent, Inf or NaN.
func isFloatText(s string) bool { return strings.ContainsAny(s, ".eEIN") }

// list reads the rest of a list attribute after "[": floats, ints or
// strings, with the printer's "...(N)" for an elided tail.
func (c *cursor) list(a *Attr) error {
	a.Type = AttrInts
	total := -1
	var floats []float32
	var ints []int64
	var strs [][]byte
	for i := 0; !c.eat("]"); i++ {
		if i > 0 && !c.eat(",") {
			return fmt.Errorf("want \",\" or \"]\" at column %d", c.pos+1)
		}
		switch {
		case c.eat("...("):
			n, err := strconv.Atoi(c.until(')'))
			if err != nil || n < i || n > 1<<20 || !c.eat(")") {
				return fmt.Errorf("bad elision at column %d", c.pos+1)
			}
			total = n
		case c.peek('"'):
			s, ok := c.quoted()
			if !ok {
				return fmt.Errorf("bad string at column %d", c.pos+1)
			}
			a.Type = AttrStrings
			strs = append(strs, []byte(s))
		default:
			v := c.number()
			if isFloatText(v) {
				a.Type = AttrFloats
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("bad number %q at column %d", v, c.pos+1)
			}
			floats = append(floats, float32(f))
			if a.Type == AttrInts {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return fmt.Errorf("bad integer %q at column %d", v, c.pos+1)
				}
				ints = append(ints, n)
			}
		}
	}
	switch a.Type {
	case AttrStrings:
		a.Strings = strs
		for len(a.Strings) < total {
			a.Strings = append(a.Strings, nil)
		}
	case AttrFloats:
		a.Floats = floats
		for len(a.Floats) < total {
			a.Floats = append(a.Floats, 0)
		}
	default:
		a.Ints = ints
		if a.Ints == nil {
			a.Ints = []int64{}
		}
		for len(a.Ints) < total {
			a.Ints = append(a.Ints, 0)
		}
	}
	return nil
}
