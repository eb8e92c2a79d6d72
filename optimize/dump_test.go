package optimize

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestParsePassPattern: a pass name in any spelling selects that pass, a
// regular expression the passes it matches; a pattern that selects no
// pass, or is no regular expression, is an error.
func TestParsePassPattern(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		want    string // the passes selected, or "error"
	}{
		{"fuse", "fuse"},
		{"Late DCE", "late_dce"},
		{"dce", "early_dce late_dce"},
		{"^(cse|fuse)$", "cse fuse"},
		{"batch$", "hbatch tbatch"},
		{"nosuchpass", "error"},
		{"(", "error"},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			p, err := ParsePassPattern(tc.pattern)
			if tc.want == "error" {
				if err == nil {
					t.Fatalf("no error, want one")
				}
				if !strings.Contains(err.Error(), tc.pattern) {
					t.Fatalf("error %q: want it to quote the pattern", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range passes {
				if p.Match(q.Name) {
					got = append(got, q.Name)
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("selects %v, want %s", got, tc.want)
			}
			if p.String() != tc.pattern {
				t.Fatalf("String() = %q, want %q", p.String(), tc.pattern)
			}
		})
	}
	var none *PassPattern
	if !none.Match("fuse") || none.String() != "" {
		t.Fatal("a nil pattern must select every pass")
	}
}

// dumpModel is MatMul + Add + Relu + Identity + Sigmoid: noop bypasses
// the Identity, early_dce deletes it, fuse groups the rest; cse finds
// nothing.
func dumpModel() *ir.Model {
	b := modelgen.New("dump", 17)
	x := b.Input("x", ir.Float32, 2, 8)
	y := b.Op("MatMul", in(x, b.Weight("w", 8, 8)))
	y = b.Op("Add", in(y, b.Weight("bias", 8)))
	y = b.Op("Identity", in(b.Op("Relu", in(y))))
	b.Output(b.Op("Sigmoid", in(y)))
	m := b.Model()
	ir.InferModel(m, ir.InferOptions{})
	return m
}

// TestDumps: the driver hands each dumper the input and the stages its
// pattern selects, skipping the unchanged ones unless asked; stages count
// every pass that ran; a stage is unchanged exactly when its hash is the
// one before; pass results carry the hash (only when asked for) and the
// wall time.
func TestDumps(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pattern string
		keep    bool
		want    string // the stages dumped, as seq:pass
	}{
		{"every pass", "", true, "0:input 1:noop 2:qdq 3:constfold 4:shapefold 5:reshapechain 6:cse 7:early_dce 8:bnfold 9:layernorm 10:rmsnorm 11:gelu 12:silu 13:attention 14:fuse 15:late_dce"},
		{"changed passes", "", false, "0:input 1:noop 7:early_dce 14:fuse"},
		{"by name", "fuse", false, "0:input 14:fuse"},
		{"by pattern, unchanged kept", "dce", true, "0:input 7:early_dce 15:late_dce"},
		{"by pattern, unchanged skipped", "dce", false, "0:input 7:early_dce"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pat *PassPattern
			if tc.pattern != "" {
				var err error
				if pat, err = ParsePassPattern(tc.pattern); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			var stages []Stage
			rec := dumpFunc(func(s Stage, _ *ir.Model) error {
				got = append(got, strconv.Itoa(s.Seq)+":"+s.Pass)
				return nil
			})
			all := dumpFunc(func(s Stage, _ *ir.Model) error { stages = append(stages, s); return nil })
			res, err := Run(dumpModel(), Options{Level: 2, VerifyEach: true,
				Dumps: []Dump{{After: pat, To: rec, KeepUnchanged: tc.keep}, {To: all, KeepUnchanged: true}, {}}})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("dumped\n %s\nwant\n %s", strings.Join(got, " "), tc.want)
			}
			if len(stages) != len(res.Passes)+1 {
				t.Fatalf("%d stages for %d passes", len(stages), len(res.Passes))
			}
			for k, p := range res.Passes {
				s := stages[k+1]
				if s.Pass != p.Name || s.Hash != p.Hash || s.Unchanged != p.Unchanged {
					t.Errorf("pass %s: stage %+v, result hash %s unchanged %v", p.Name, s, p.Hash, p.Unchanged)
				}
				if s.Unchanged != (s.Hash == stages[k].Hash) || s.Hash == "" {
					t.Errorf("pass %s: hash %q after %q, unchanged %v", p.Name, s.Hash, stages[k].Hash, s.Unchanged)
				}
				if s.Unchanged != (len(p.Rewrites) == 0) {
					t.Errorf("pass %s: %d rewrites, unchanged %v", p.Name, len(p.Rewrites), s.Unchanged)
				}
				if p.Elapsed <= 0 || p.Elapsed > time.Minute {
					t.Errorf("pass %s: wall time %v", p.Name, p.Elapsed)
				}
			}
		})
	}
	res, err := Run(dumpModel(), Options{Level: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Passes {
		if p.Hash != "" || p.Unchanged {
			t.Fatalf("pass %s: hash %q unchanged %v without Options.Hash", p.Name, p.Hash, p.Unchanged)
		}
	}
	res, err = Run(dumpModel(), Options{Level: 2, Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passes[0].Hash == "" || !res.Passes[1].Unchanged {
		t.Fatalf("Options.Hash: passes %+v", res.Passes[:2])
	}
}

// TestDumpError: a dumper's error stops the run, naming the stage.
func TestDumpError(t *testing.T) {
	boom := errors.New("disk full")
	for _, tc := range []struct{ at, want string }{
		{InputStage, "dump of the input: disk full"},
		{"fuse", `dump after pass "fuse": disk full`},
	} {
		d := dumpFunc(func(s Stage, _ *ir.Model) error {
			if s.Pass == tc.at {
				return boom
			}
			return nil
		})
		_, err := Run(dumpModel(), Options{Level: 2, Dumps: []Dump{{To: d}}})
		if !errors.Is(err, boom) || err.Error() != tc.want {
			t.Errorf("at %s: error %v, want %q", tc.at, err, tc.want)
		}
	}
}

// TestRunSortsInput: a hand-built model listed out of order is put in
// topological order before the first pass (the pass contract), so the
// passes, which no longer sort, see producers first.
func TestRunSortsInput(t *testing.T) {
	m := dumpModel()
	g := m.Graph
	for i, j := 0, len(g.Nodes)-1; i < j; i, j = i+1, j-1 {
		g.Nodes[i], g.Nodes[j] = g.Nodes[j], g.Nodes[i]
	}
	if err := ir.Verify(m); err == nil {
		t.Fatal("the reversed graph verifies")
	}
	res, err := Run(m, Options{Level: 2, VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Final.Nodes != 1 {
		t.Fatalf("%d nodes after -O2, want the one fused kernel", res.Final.Nodes)
	}
}

// TestHashWithoutDumps: Options.Hash alone (explain's Unchanged, no dump
// reading the hashes) does not hash the input model, a walk of all of it:
// the stages carry a token; with a dump the input's stage carries ir.Hash
// of the model, and the passes' Unchanged is the same either way.
func TestHashWithoutDumps(t *testing.T) {
	alone, err := Run(dumpModel(), Options{Level: 2, Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	var input Stage
	m := dumpModel()
	want := ir.Hash(m)
	dumped, err := Run(m, Options{Level: 2, Dumps: []Dump{{To: dumpFunc(func(s Stage, _ *ir.Model) error {
		if s.Pass == InputStage {
			input = s
		}
		return nil
	})}}})
	if err != nil {
		t.Fatal(err)
	}
	if input.Hash != want {
		t.Fatalf("input stage hash %q with a dump, want ir.Hash %q", input.Hash, want)
	}
	if len(alone.Passes) != len(dumped.Passes) {
		t.Fatalf("%d passes alone, %d with a dump", len(alone.Passes), len(dumped.Passes))
	}
	for i, p := range alone.Passes {
		if p.Unchanged != dumped.Passes[i].Unchanged || p.Unchanged != (len(p.Rewrites) == 0) {
			t.Errorf("pass %s: unchanged %v alone, %v with a dump, %d rewrites", p.Name, p.Unchanged, dumped.Passes[i].Unchanged, len(p.Rewrites))
		}
		if !strings.HasPrefix(p.Hash, inputToken) {
			t.Errorf("pass %s: hash %q alone, want the input's token or one after it", p.Name, p.Hash)
		}
	}
}
