package optimize

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestPassOrder checks the pipeline table against passOrder and its
// basic invariants.
func TestPassOrder(t *testing.T) {
	pos := map[string]int{}
	for i, p := range passes {
		if _, dup := pos[p.Name]; dup {
			t.Errorf("pass %q listed twice", p.Name)
		}
		pos[p.Name] = i
		if p.Fn == nil || p.Doc == "" {
			t.Errorf("pass %q: missing function or doc", p.Name)
		}
		if p.Level < 0 || p.Level > MaxLevel {
			t.Errorf("pass %q: level %d", p.Name, p.Level)
		}
	}
	for _, o := range passOrder {
		a, ok1 := pos[o.a]
		b, ok2 := pos[o.b]
		if !ok1 || !ok2 {
			t.Errorf("passOrder names an unknown pass: %q before %q", o.a, o.b)
			continue
		}
		if a >= b {
			t.Errorf("%q must run before %q: %s", o.a, o.b, o.why)
		}
	}
}

// TestSelect checks levels, --passes and --disable-pass.
func TestSelect(t *testing.T) {
	names := func(ps []Pass) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		level   int
		only    []string
		disable []string
		want    []string
		wantErr bool
	}{
		{"O0 runs only required", 0, nil, nil, []string{"late_dce"}, false},
		{"O1 clean-up", 1, nil, nil, []string{"noop", "qdq", "constfold", "shapefold", "branchfold", "loophoist", "reshapechain", "cse", "early_dce", "late_dce"}, false},
		{"O2 adds fusion", 2, nil, nil, []string{"noop", "qdq", "constfold", "shapefold", "branchfold", "loophoist", "reshapechain", "cse", "early_dce", "bnfold", "layernorm", "rmsnorm", "gelu", "silu", "attention", "fuse", "late_dce"}, false},
		{"only", 3, []string{"fuse", "cse"}, nil, []string{"cse", "fuse", "late_dce"}, false},
		{"disable", 1, nil, []string{"cse", "noop"}, []string{"qdq", "constfold", "shapefold", "branchfold", "loophoist", "reshapechain", "early_dce", "late_dce"}, false},
		{"unknown pass", 3, []string{"nope"}, nil, nil, true},
		{"required cannot be disabled", 3, nil, []string{"late_dce"}, nil, true},
		{"bad level", 4, nil, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := Select(tc.level, tc.only, tc.disable)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			have := names(ps)
			if len(have) != len(tc.want) {
				t.Fatalf("have %v, want %v", have, tc.want)
			}
			for i := range have {
				if have[i] != tc.want[i] {
					t.Fatalf("have %v, want %v", have, tc.want)
				}
			}
		})
	}
}

// TestPassNameSpellings checks that every pass is named in canonical form
// and that each other spelling of a name selects it.
func TestPassNameSpellings(t *testing.T) {
	for _, p := range Passes() {
		if CanonicalPassName(p.Name) != p.Name {
			t.Errorf("pass %q is not in canonical form (%q)", p.Name, CanonicalPassName(p.Name))
		}
	}
	for _, tc := range []struct{ given, want string }{
		{"late dce", "late_dce"}, {"late-dce", "late_dce"}, {" Late_DCE ", "late_dce"}, {"early  dce", "early_dce"}, {"fuse", "fuse"},
	} {
		p, ok := LookupPass(tc.given)
		if !ok || p.Name != tc.want {
			t.Errorf("LookupPass(%q) = %q, %v; want %q", tc.given, p.Name, ok, tc.want)
		}
		sel, err := Select(1, []string{tc.given}, nil)
		if err != nil || sel[0].Name != tc.want && sel[len(sel)-1].Name != tc.want {
			t.Errorf("Select(only %q) = %v, %v", tc.given, sel, err)
		}
	}
	if _, ok := LookupPass("latedce"); ok {
		t.Error("LookupPass accepts a name that is no spelling of a pass")
	}
	if _, err := Select(1, nil, []string{"late dce"}); err == nil || !strings.Contains(err.Error(), `"late_dce" is required`) {
		t.Errorf("disabling a required pass by another spelling: %v", err)
	}
}

// TestNoRewriteChangesNothing: the driver re-sorts and re-hashes only
// after a pass that reports a rewrite, so under VerifyEach it refuses a
// pass that reports none but changed the node list or the model.
func TestNoRewriteChangesNothing(t *testing.T) {
	i := slices.IndexFunc(passes[:], func(p Pass) bool { return p.Name == "noop" })
	saved := passes[i].Fn
	defer func() { passes[i].Fn = saved }()
	passes[i].Fn = func(c *Context) ([]Rewrite, error) {
		slices.Reverse(c.Graph().Nodes) // out of order, and unreported
		return nil, nil
	}
	_, err := Run(dumpModel(), Options{Level: 1, VerifyEach: true})
	if err == nil || !strings.Contains(err.Error(), `pass "noop" reported no rewrite but changed the node list`) {
		t.Fatalf("got %v", err)
	}
	// An unreported change the node list does not show (a renamed node)
	// is caught by the model's hash, which the driver otherwise skips
	// after such a pass.
	passes[i].Fn = func(c *Context) ([]Rewrite, error) {
		c.Graph().Nodes[0].Name += "_renamed"
		return nil, nil
	}
	_, err = Run(dumpModel(), Options{Level: 1, VerifyEach: true, Hash: true})
	if err == nil || !strings.Contains(err.Error(), `pass "noop" reported no rewrite but changed the model`) {
		t.Fatalf("got %v", err)
	}
	passes[i].Fn = saved
	if _, err := Run(dumpModel(), Options{Level: 1, VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
}

// TestRepeatsSkipped: a pass that Repeats an earlier one runs only when
// a rewrite was reported since that one ran (or that one found some), and
// names an earlier pass of the same function.
func TestRepeatsSkipped(t *testing.T) {
	for i, p := range passes {
		if p.Repeats == "" {
			continue
		}
		j := slices.IndexFunc(passes[:], func(q Pass) bool { return q.Name == p.Repeats })
		if j < 0 || j >= i || reflect.ValueOf(passes[j].Fn).Pointer() != reflect.ValueOf(p.Fn).Pointer() {
			t.Errorf("pass %s repeats %q: want an earlier pass of the same function", p.Name, p.Repeats)
		}
	}
	saved := passes
	defer func() { passes = saved }()
	calls := map[string]int{}
	for i := range passes {
		name, fn := passes[i].Name, passes[i].Fn
		passes[i].Fn = func(c *Context) ([]Rewrite, error) { calls[name]++; return fn(c) }
	}
	clean := func() *ir.Model { // nothing for the passes before fuse to do
		b := modelgen.New("clean", 17)
		y := b.Op("MatMul", in(b.Input("x", ir.Float32, 2, 8), b.Weight("w", 8, 8)))
		b.Output(b.Op("Relu", in(b.Op("Add", in(y, b.Weight("bias", 8))))))
		return b.Model()
	}
	if _, err := Run(clean(), Options{Level: 3, VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	if calls["cse"] != 1 || calls["late_cse"] != 0 {
		t.Errorf("nothing rewritten between cse and late_cse: calls %v", calls)
	}
	// a rewrite reported in between (here a fake one) runs it again
	i := slices.IndexFunc(passes[:], func(p Pass) bool { return p.Name == "bnfold" })
	passes[i].Fn = func(c *Context) ([]Rewrite, error) { return []Rewrite{{Remark: "fake"}}, nil }
	passes[i].Needs = nil // the model holds no BatchNormalization: run the fake anyway
	clear(calls)
	if _, err := Run(clean(), Options{Level: 3, VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	if calls["late_cse"] != 1 {
		t.Errorf("a rewrite between cse and late_cse: calls %v", calls)
	}
}
