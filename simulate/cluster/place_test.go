package cluster

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

func TestPlacePS(t *testing.T) {
	p := profileOf(t, mlpRaw(ir.S("N"), 4, 1024, false), "h100", 64)
	for _, tc := range []struct {
		name      string
		net       string
		transport Transport
		limit     float64
		want      Mechanism
		fallback  string
	}{
		{"rdma static", "ib-hdr", RDMA, 0, OneSidedWrite, ""},
		{"rdma over the registered limit", "ib-hdr", RDMA, 10 << 20, BounceCopy, "registered-memory limit"},
		{"grpc-tcp", "ib-hdr", GRPCTCP, 0, RPCCopy, ""},
		{"rdma on tcp", "tcp-25", RDMA, 0, RPCCopy, "no RDMA verbs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := clusterOf(t, "4x2", "h100", tc.net)
			pl, err := Place(p, c, Options{Strategy: PS, Transport: tc.transport, RegisteredLimitBytes: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(pl.Nodes) != len(p.Ops) || !pl.Nodes[0].Replicated {
				t.Fatalf("%d nodes placed, want %d replicated", len(pl.Nodes), len(p.Ops))
			}
			var push, pull int
			seen := false
			for _, r := range pl.Transfers {
				switch r.Kind {
				case "push":
					push++
				case "pull":
					pull++
				}
				if r.Mechanism == tc.want {
					seen = true
				}
				if !r.Static {
					t.Errorf("%s: weights have static shapes", r.Tensor)
				}
			}
			if pull != 4 || push < 4 {
				t.Errorf("%d pushes, %d pulls: want a push and a pull per parameter", push, pull)
			}
			if !seen {
				t.Errorf("no transfer uses %s: %+v", tc.want, pl.Transfers)
			}
			if tc.fallback != "" && !strings.Contains(strings.Join(pl.Fallbacks, "\n"), tc.fallback) {
				t.Errorf("fallbacks %q, want one naming %q", pl.Fallbacks, tc.fallback)
			}
			var reg float64
			for _, b := range pl.Buffers {
				if b.Registered {
					reg += b.Bytes * float64(b.Slots)
					if !b.Reused {
						t.Errorf("static buffer %s not reused across steps", b.Tensor)
					}
				}
			}
			var sum float64
			for _, r := range pl.RegisteredBytes {
				sum += r
				if tc.limit > 0 && r > tc.limit {
					t.Errorf("registered %g bytes on a machine, limit %g", r, tc.limit)
				}
			}
			if sum != reg {
				t.Errorf("registered bytes %g, buffers say %g", sum, reg)
			}
			if tc.transport == RDMA && tc.net == "ib-hdr" && tc.limit == 0 && sum == 0 {
				t.Error("rdma registered no buffers")
			}
		})
	}
}

// A tensor whose shape is only known at run time crosses machines by a
// shape message and a read, and gets no preregistered buffer.
func TestPlacePipelineDynamic(t *testing.T) {
	// a batch dim that stays symbolic: the cut activations are dynamic
	p, err := NewProfile(mlpRaw(ir.S("N"), 8, 512, false), gpuOf(t, "h100"), ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := clusterOf(t, "2x1", "h100", "ib-hdr")
	pl, err := Place(p, c, Options{Strategy: Pipeline, MicroBatches: 1})
	if err != nil {
		t.Fatal(err)
	}
	var stages [2]int
	for _, n := range pl.Nodes {
		if n.Device == nil || n.Replicated {
			t.Fatalf("node %s not placed on one device", n.Node)
		}
		stages[n.Stage]++
	}
	if stages[0] == 0 || stages[1] == 0 {
		t.Errorf("stage sizes %v", stages)
	}
	found := false
	for _, r := range pl.Transfers {
		if r.Kind == "activation" {
			found = true
			if r.Static || r.Mechanism != MetadataRead {
				t.Errorf("activation %+v: want dynamic, rdma-metadata-read", r)
			}
		}
	}
	if !found {
		t.Fatal("no activation transfer between the stages")
	}
	for _, b := range pl.Buffers {
		if b.Registered {
			t.Errorf("buffer %+v registered for a dynamic tensor", b)
		}
	}
	// with a static batch the same cut is a one-sided write into a
	// registered, reused buffer
	ps := profileOf(t, mlpRaw(ir.S("N"), 8, 512, false), "h100", 16)
	pl, err = Place(ps, c, Options{Strategy: Pipeline, MicroBatches: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pl.Transfers {
		if r.Kind == "activation" && (r.Mechanism != OneSidedWrite || r.Count != 4) {
			t.Errorf("static activation %+v: want 4 one-sided writes", r)
		}
	}
	if pl.RegisteredBytes[1] == 0 {
		t.Error("the receiving machine registered nothing")
	}
}

func TestPlaceAllReduce(t *testing.T) {
	p := profileOf(t, mlpRaw(ir.S("N"), 8, 1024, false), "h100", 64)
	c := clusterOf(t, "4x8", "h100", "ib-hdr")
	pl, err := Place(p, c, Options{Strategy: AllReduce})
	if err != nil {
		t.Fatal(err)
	}
	var bytes float64
	for _, r := range pl.Transfers {
		if r.Kind != "all-reduce" || r.Mechanism != OneSidedWrite {
			t.Errorf("transfer %+v: want all-reduce chunks written one-sided", r)
		}
		bytes += r.Bytes * 32 // chunk = bucket / GPUs
	}
	if !near(bytes, p.ParamBytes, 1e-9) {
		t.Errorf("buckets carry %g bytes, want every gradient once (%g)", bytes, p.ParamBytes)
	}
}

func TestSweep(t *testing.T) {
	p := profileOf(t, mlpRaw(ir.S("N"), 16, 2048, false), "p100", 256)
	base := clusterOf(t, "1x4", "p100", "roce-25")
	pts, err := Sweep(p, base, []int{1, 2, 4, 8, 16, 64}, Options{Strategy: AllReduce})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 6 || pts[0].Efficiency != 1 || pts[5].Machines != 16 || pts[5].GPUsPerMachine != 4 {
		t.Fatalf("points %+v", pts)
	}
	for i := 1; i < len(pts); i++ {
		if pts[i].Throughput <= pts[0].Throughput {
			t.Errorf("%d GPUs: throughput %g not above one GPU's %g", pts[i].GPUs, pts[i].Throughput, pts[0].Throughput)
		}
		if pts[i].Efficiency > 1+1e-9 {
			t.Errorf("%d GPUs: efficiency %g above 1", pts[i].GPUs, pts[i].Efficiency)
		}
	}
	if pts[5].Efficiency >= pts[2].Efficiency {
		t.Errorf("efficiency across machines %g not below one machine's %g", pts[5].Efficiency, pts[2].Efficiency)
	}
	if _, err := Sweep(p, base, []int{6}, Options{}); err == nil {
		t.Error("6 GPUs on machines of 4 accepted")
	}
	// pipeline declines the sizes it cannot split, and the sweep says so
	pts, err = Sweep(p, base, []int{1, 64}, Options{Strategy: Pipeline})
	if err != nil {
		t.Fatal(err)
	}
	if pts[1].Declined == "" {
		t.Errorf("pipeline over 64 stages of a 32-op model: %+v", pts[1])
	}
}
