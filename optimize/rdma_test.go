package optimize

import (
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// fixedPlacer puts the first half of the main graph's nodes on dev0 and
// the rest on dev1 (or replicates every node).
type fixedPlacer struct {
	dev0, dev1 string
	pipeline   bool
	reason     string // fallback reason of the dev0 -> dev1 pair
}

func (p fixedPlacer) Place(m *ir.Model) (*Placement, error) {
	pl := &Placement{Pipeline: p.pipeline, Devices: map[string]string{}}
	if p.reason != "" {
		pl.Fallbacks = map[string]string{p.dev0 + "->" + p.dev1: p.reason}
	}
	for i, n := range m.Graph.Nodes {
		d := p.dev0
		if i >= len(m.Graph.Nodes)/2 {
			d = p.dev1
		}
		pl.Devices[n.Name] = d
	}
	return pl, nil
}

func TestRDMAPass(t *testing.T) {
	const width = 16
	cases := []struct {
		name     string
		placer   fixedPlacer
		dynamic  bool   // dim 0 of the input is symbolic
		op, mech string // the one transfer node expected ("" for none)
	}{
		{"cross machine", fixedPlacer{"m0/gpu0", "m1/gpu0", true, ""}, false, "RdmaWrite", MechRDMAWrite},
		{"dynamic shape", fixedPlacer{"m0/gpu0", "m1/gpu0", true, ""}, true, "RdmaRead", MechMetadataRead},
		{"same machine", fixedPlacer{"m0/gpu0", "m0/gpu1", true, "no peer access"}, false, "Copy", MechPeerCopy},
		{"data parallel", fixedPlacer{"m0/gpu0", "m1/gpu0", false, ""}, false, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mk := func() *ir.Model {
				m := modelgen.Chain(6, width)
				if tc.dynamic {
					m.Graph.Inputs[0].Type.Shape.Dims[0] = ir.Dim{Sym: "N"}
				}
				ir.InferModel(m, ir.InferOptions{})
				return m
			}
			orig, m := mk(), mk()
			before := len(m.Graph.Nodes)
			res, err := Run(m, Options{Level: MaxLevel, Only: []string{"rdma"}, VerifyEach: true, Placer: tc.placer})
			if err != nil {
				t.Fatal(err)
			}
			if err := ir.Verify(m); err != nil {
				t.Fatal(err)
			}
			var xfers []*ir.Node
			for _, n := range m.Graph.Nodes {
				dev := ""
				for _, kv := range n.Metadata() {
					if kv.Key == DeviceKey {
						dev = kv.Value
					}
				}
				if dev == "" {
					t.Errorf("node %s has no %s metadata", n.Name, DeviceKey)
				}
				if !tc.placer.pipeline && dev != Replicated {
					t.Errorf("node %s: device %q, want %q", n.Name, dev, Replicated)
				}
				if n.Domain == ir.FusedDomain {
					xfers = append(xfers, n)
				}
			}
			if tc.op == "" {
				if len(xfers) != 0 || len(m.Graph.Nodes) != before {
					t.Fatalf("data parallel inserted %d transfer nodes", len(xfers))
				}
				return
			}
			if len(xfers) != 1 || len(m.Graph.Nodes) != before+1 {
				t.Fatalf("want 1 transfer node, have %d (nodes %d -> %d)", len(xfers), before, len(m.Graph.Nodes))
			}
			x := xfers[0]
			if x.Op != tc.op || x.AttrString("mechanism", "") != tc.mech {
				t.Errorf("transfer %s: op %s mechanism %s, want %s %s", x.Name, x.Op, x.AttrString("mechanism", ""), tc.op, tc.mech)
			}
			if x.AttrString("src", "") != tc.placer.dev0 || x.AttrString("dst", "") != tc.placer.dev1 {
				t.Errorf("transfer %s: %s -> %s", x.Name, x.AttrString("src", ""), x.AttrString("dst", ""))
			}
			wantBytes := int64(width * 4)
			if tc.dynamic {
				wantBytes = -1 // not known before the step runs
			}
			if b := x.AttrInt("bytes", 0); b != wantBytes {
				t.Errorf("transfer bytes %d, want %d (float32 [N,%d])", b, wantBytes, width)
			}
			if r := x.AttrString("reason", ""); r != tc.placer.reason {
				t.Errorf("transfer reason %q, want %q", r, tc.placer.reason)
			}
			if body := x.AttrGraph("body"); body == nil || len(body.Nodes) != 1 || body.Nodes[0].Op != "Identity" {
				t.Errorf("transfer body is not one Identity")
			}
			// the consumer on dev1 now reads the transfer's output
			out := x.Outputs[0]
			if len(out.Uses) == 0 {
				t.Fatalf("transfer output %s unused", out.Name)
			}
			src := x.Inputs[0].Producer
			if src == nil || len(res.Passes) == 0 {
				t.Fatal("transfer input has no producer")
			}
			found := false
			for _, p := range res.Passes {
				for _, r := range p.Rewrites {
					found = found || (p.Name == "rdma" && len(r.After) == 1 && r.After[0] == x.Name)
				}
			}
			if !found {
				t.Errorf("rdma pass reported no rewrite for %s", x.Name)
			}
			if why := compareRuns(t, orig, m, 3, 0, 0); why != "" {
				t.Fatalf("cannot compare: %s", why)
			}
		})
	}
}

func TestRDMASkippedWithoutPlacer(t *testing.T) {
	m := modelgen.Chain(4, 8)
	ir.InferModel(m, ir.InferOptions{})
	res, err := Run(m, Options{Level: MaxLevel, VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Passes {
		if p.Name == "rdma" {
			t.Fatal("rdma ran without a placer")
		}
	}
}
