package optimize

// This file implements the driver's dumps: which stages of the pipeline a
// dumper sees (the input, then the passes a name or pattern selects), and
// the graph hash that tells the passes that changed nothing.

import (
	"fmt"
	"regexp"

	"github.com/wolong-dev/wolong/ir"
)

// Stage is a point of the pipeline: the model Run received (Seq 0, Pass
// "input") or the model after the Seq-th pass that ran.
type Stage struct {
	Seq  int
	Pass string
	// Hash identifies the model at this stage: ir.Hash of it for the
	// input (when a dump or Options.VerifyEach reads the hashes; with
	// Options.Hash alone, which tells Unchanged, a token), after a pass
	// under Options.VerifyEach, and after a pass that reported no rewrite
	// (the hash before it); after a pass that reported rewrites, a fresh
	// token (such a pass changed the model: the driver's contract, which
	// VerifyEach checks by hashing). Equal hashes are the same model; the
	// values mean nothing else.
	Hash string
	// Unchanged: the pass left the model as it found it (the hash of the
	// stage before is the same). Always false for the input.
	Unchanged bool
}

// InputStage is the name of the stage before the first pass.
const InputStage = "input"

// Dumper writes the model at a stage: an IR text or DOT file, a diff
// against the stage before. It must not change m.
type Dumper interface {
	Dump(s Stage, m *ir.Model) error
}

// Dump asks Run to call To with the input and with the model after each
// pass that After selects. Passes that left the model unchanged are
// skipped (their dump would repeat the one before) unless KeepUnchanged.
type Dump struct {
	After         *PassPattern // nil selects every pass
	To            Dumper       // nil dumps nothing
	KeepUnchanged bool
}

// PassPattern selects passes by name or by pattern.
type PassPattern struct {
	text string
	name string         // a pass name in canonical form, or ""
	re   *regexp.Regexp // otherwise
}

// ParsePassPattern reads a pass selection: the name of a pass, in any
// spelling CanonicalPassName accepts ("late dce"), or a regular expression
// matched against the canonical names ("dce" selects early_dce and
// late_dce, "^(cse|fuse)$" two passes). A pattern that selects no pass is
// an error.
func ParsePassPattern(s string) (*PassPattern, error) {
	if p, ok := LookupPass(s); ok {
		return &PassPattern{text: s, name: p.Name}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("%q is neither a pass nor a regular expression: %v", s, err)
	}
	pp := &PassPattern{text: s, re: re}
	for _, p := range passes {
		if pp.Match(p.Name) {
			return pp, nil
		}
	}
	return nil, fmt.Errorf("%q matches no pass (known: %s)", s, passNames())
}

// Match reports whether the pattern selects the pass called name (its
// canonical name). A nil pattern selects every pass.
func (p *PassPattern) Match(name string) bool {
	switch {
	case p == nil:
		return true
	case p.re != nil:
		return p.re.MatchString(name)
	}
	return p.name == name
}

// String returns the pattern as it was given.
func (p *PassPattern) String() string {
	if p == nil {
		return ""
	}
	return p.text
}

// stages tracks the stages of one Run: their hashes and the dumps to
// write. A nil *stages (nothing asked for) does nothing.
type stages struct {
	dumps   []Dump
	verify  bool // Options.VerifyEach: every stage hashed
	seq     int
	hash    string
	base    string // the input's hash
	changes int    // passes that reported rewrites, for their Stage.Hash tokens
}

// newStages returns the tracker opt asks for: nil when it wants neither
// hashes nor dumps.
func newStages(opt Options) *stages {
	var ds []Dump
	for _, d := range opt.Dumps {
		if d.To != nil {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 && !opt.Hash {
		return nil
	}
	return &stages{dumps: ds, verify: opt.VerifyEach}
}

// inputToken stands for the input's hash when nothing reads the hashes
// but Unchanged (Options.Hash without dumps or VerifyEach): ir.Hash walks
// the whole model, its tensors' data included (~0.1 s at 100k nodes with
// weights), for a value no one would see.
const inputToken = "input"

// input records and dumps the model before the first pass.
func (s *stages) input(m *ir.Model) error {
	if s == nil {
		return nil
	}
	s.hash = inputToken
	if len(s.dumps) > 0 || s.verify {
		s.hash = ir.Hash(m)
	}
	s.base = s.hash
	st := Stage{Pass: InputStage, Hash: s.hash}
	for _, d := range s.dumps {
		if err := d.To.Dump(st, m); err != nil {
			return fmt.Errorf("dump of the input: %w", err)
		}
	}
	return nil
}

// after records the model after pass, fills pr's hash, and writes the
// dumps that select it. The driver's contract is that a pass reports
// what it changed: one that reported no rewrite changed nothing, one that
// reported rewrites changed the model. So the model is hashed (a walk of
// the whole model) only when verify asks to check the claim.
func (s *stages) after(pass string, m *ir.Model, pr *PassResult, verify bool) error {
	if s == nil {
		return nil
	}
	s.seq++
	h := s.hash
	switch {
	case verify:
		h = ir.Hash(m)
	case pr.NumRewrites() > 0:
		s.changes++
		h = fmt.Sprintf("%s~%d", s.base, s.changes)
	}
	if pr.NumRewrites() == 0 && h != s.hash {
		return fmt.Errorf("pass %q reported no rewrite but changed the model", pass)
	}
	st := Stage{Seq: s.seq, Pass: pass, Hash: h, Unchanged: h == s.hash}
	s.hash = h
	pr.Hash, pr.Unchanged = st.Hash, st.Unchanged
	for _, d := range s.dumps {
		if !d.After.Match(pass) || (st.Unchanged && !d.KeepUnchanged) {
			continue
		}
		if err := d.To.Dump(st, m); err != nil {
			return fmt.Errorf("dump after pass %q: %w", pass, err)
		}
	}
	return nil
}
