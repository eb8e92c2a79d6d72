package optimize

import (
	"testing"
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
		{"O0 runs only required", 0, nil, nil, []string{"late dce"}, false},
		{"O1 clean-up", 1, nil, nil, []string{"noop", "qdq", "constfold", "shapefold", "reshapechain", "cse", "early dce", "late dce"}, false},
		{"O2 adds fusion", 2, nil, nil, []string{"noop", "qdq", "constfold", "shapefold", "reshapechain", "cse", "early dce", "bnfold", "layernorm", "rmsnorm", "gelu", "silu", "attention", "fuse", "late dce"}, false},
		{"only", 3, []string{"fuse", "cse"}, nil, []string{"cse", "fuse", "late dce"}, false},
		{"disable", 1, nil, []string{"cse", "noop"}, []string{"qdq", "constfold", "shapefold", "reshapechain", "early dce", "late dce"}, false},
		{"unknown pass", 3, []string{"nope"}, nil, nil, true},
		{"required cannot be disabled", 3, nil, []string{"late dce"}, nil, true},
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
