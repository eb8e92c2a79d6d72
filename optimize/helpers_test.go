package optimize

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// passCase builds a model with the builder, runs the named passes on it
// (verifying after each), checks that the rewrites, one per line, match
// every pattern in want, that the op histogram after matches ops (when
// given, "Op:count" sorted as printed by opHistogram) and that the
// evaluator gives the same outputs before and after.
type passCase struct {
	name   string
	build  func(b *modelgen.Builder)
	passes []string
	want   []string // regexps, each must match some rewrite line
	ops    string   // expected opHistogram after, "" to skip
	norun  bool     // the evaluator cannot run this model
}

func runPassCases(t *testing.T, cases []passCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mk := func() *ir.Model {
				b := modelgen.New(tc.name, 17)
				tc.build(b)
				m := b.Model()
				ir.InferModel(m, ir.InferOptions{})
				return m
			}
			orig, m := mk(), mk()
			res, err := Run(m, Options{Level: MaxLevel, Only: tc.passes, VerifyEach: true})
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, p := range res.Passes {
				for _, r := range p.Rewrites {
					lines = append(lines, p.Name+": "+r.String())
				}
			}
			for _, w := range tc.want {
				re := regexp.MustCompile(w)
				found := false
				for _, l := range lines {
					found = found || re.MatchString(l)
				}
				if !found {
					t.Errorf("no rewrite matches %q; have:\n  %s", w, strings.Join(lines, "\n  "))
				}
			}
			if tc.ops != "" {
				if have := opHistogram(m); have != tc.ops {
					t.Errorf("ops after: have %s, want %s", have, tc.ops)
				}
			}
			if !tc.norun {
				if why := compareRuns(t, orig, m, 11, 1e-4, 1e-5); why != "" {
					t.Fatalf("cannot compare: %s", why)
				}
			}
		})
	}
}

// opHistogram lists the main graph's ops in node order, "A B wolong:C".
func opHistogram(m *ir.Model) string {
	var ops []string
	for _, n := range m.Graph.Nodes {
		ops = append(ops, n.QualifiedOp())
	}
	return strings.Join(ops, " ")
}

func in(vs ...*ir.Value) []*ir.Value { return vs }
