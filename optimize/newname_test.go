package optimize

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// oldNewName is newName as it was until issue 25 (one scan of every name
// of the model on each prefix's first use), kept as the reference the
// set-based newName must agree with name for name.
type oldNewName struct {
	modelNames []string
	names      map[string]bool
	next       map[string]int
}

func (o *oldNewName) newName(g *ir.Graph, prefix string) string {
	if o.modelNames == nil {
		o.modelNames = []string{}
		g.Walk(func(g *ir.Graph) bool {
			for _, n := range g.Nodes {
				o.modelNames = append(o.modelNames, n.Name)
			}
			for _, v := range g.Initializers {
				o.modelNames = append(o.modelNames, v.Name)
			}
			return true
		})
		o.next, o.names = map[string]int{}, map[string]bool{}
	}
	k, ok := o.next[prefix]
	if !ok {
		for _, s := range o.modelNames {
			if s == prefix+"#" {
				k = -1
			}
			if strings.HasPrefix(s, prefix+"_") {
				o.names[s] = true
			}
		}
	}
	for {
		name := prefix + "_" + strconv.Itoa(k)
		k++
		if !o.names[name] {
			o.next[prefix] = k
			return name
		}
	}
}

// TestNewNameMatchesOldScheme: on models whose names collide with what
// newName would write (numbered names, "P#" names, leading zeros,
// negative numbers, prefixes that are prefixes of each other), the
// set-based newName returns the names the old scan returned, in order,
// and never a name of the model or one returned before.
func TestNewNameMatchesOldScheme(t *testing.T) {
	prefixes := []string{"fused_gelu", "fused", "a", "a_1", "a_", "x", "split", "concat", "w_batched", ""}
	for seed := int64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		g := ir.NewGraph("g")
		in := g.AddInput("in", ir.TensorType(ir.Float32, ir.ShapeOf(1)))
		model := map[string]bool{}
		for i := range 200 {
			p := prefixes[r.Intn(len(prefixes))]
			var name string
			switch r.Intn(6) {
			case 0:
				name = p + "#"
			case 1:
				name = fmt.Sprintf("%s_0%d", p, r.Intn(5))
			case 2:
				name = fmt.Sprintf("%s_%d", p, r.Intn(8)-1)
			case 3:
				name = fmt.Sprintf("%s_%d_%d", p, r.Intn(3), r.Intn(3))
			default:
				name = fmt.Sprintf("%s_%d", p, r.Intn(12))
			}
			if model[name] {
				continue
			}
			model[name] = true
			if i%3 == 0 {
				g.AddInitializer(&ir.Tensor{Name: name, DType: ir.Float32, Dims: []int64{1}, Raw: make([]byte, 4)})
				continue
			}
			g.AddNode("Relu", "", name, []*ir.Value{in}, []string{fmt.Sprintf("v%d", i)})
		}
		c := &Context{Model: &ir.Model{Graph: g}}
		old := &oldNewName{}
		seen := map[string]bool{}
		for range 300 {
			p := prefixes[r.Intn(len(prefixes))]
			got, want := c.newName(p), old.newName(g, p)
			if got != want {
				t.Fatalf("seed %d: newName(%q) = %q, the old scheme gives %q", seed, p, got, want)
			}
			if model[got] || seen[got] {
				t.Fatalf("seed %d: newName(%q) = %q is taken", seed, p, got)
			}
			seen[got] = true
		}
	}
}

func TestNumbered(t *testing.T) {
	for s, want := range map[string]bool{
		"a_1": true, "a_-1": true, "_0": true, "a_b_12": true, "a_007": true,
		"a": false, "a_": false, "a1": false, "a_1x": false, "-1": false, "a-1": false, "": false, "_-": false,
	} {
		if got := numbered(s); got != want {
			t.Errorf("numbered(%q) = %v, want %v", s, got, want)
		}
	}
}
