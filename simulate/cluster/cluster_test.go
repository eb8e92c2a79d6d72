package cluster

import (
	"errors"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// ---- helpers: hand-built models ----

func gpuOf(t testing.TB, name string) *hw.Hardware {
	t.Helper()
	h, err := hw.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func netOf(t testing.TB, name string) *Network {
	t.Helper()
	n, err := NetworkPreset(name)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func clusterOf(t testing.TB, spec, gpu, net string) *Cluster {
	t.Helper()
	c, err := Parse(spec, gpuOf(t, gpu), netOf(t, net))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mlp builds layers x [width x width] MatMul+Relu with initializer
// weights; batch is the input's dim 0.
func mlp(batch ir.Dim, layers int, width int64) *ir.Model {
	return mlpRaw(batch, layers, width, true)
}

// mlpRaw builds mlp, with weight data (raw) or with shapes only.
func mlpRaw(batch ir.Dim, layers int, width int64, raw bool) *ir.Model {
	g := ir.NewGraph("mlp")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.DimsShape(batch, ir.D(width))))
	for i := 0; i < layers; i++ {
		wt := &ir.Tensor{Name: "w" + string(rune('a'+i)), DType: ir.Float32, Dims: []int64{width, width}}
		if raw {
			wt.Raw = make([]byte, 4*width*width)
		}
		w := g.AddInitializer(wt)
		h := g.AddNode("MatMul", "", "fc"+string(rune('a'+i)), []*ir.Value{x, w}, []string{"h" + string(rune('a'+i))}).Outputs[0]
		x = g.AddNode("Relu", "", "relu"+string(rune('a'+i)), []*ir.Value{h}, []string{"r" + string(rune('a'+i))}).Outputs[0]
	}
	g.Outputs = []*ir.Value{x}
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	ir.InferModel(m, ir.InferOptions{})
	return m
}

func profileOf(t testing.TB, m *ir.Model, gpu string, batch int64) *Profile {
	t.Helper()
	if batch > 0 {
		atBatch(m, batch)
	}
	p, err := NewProfile(m, gpuOf(t, gpu), ProfileOptions{Batch: batch})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// handNet is a network with round numbers and no per-message CPU, for
// hand-computed cases: 100 Gb/s fully achievable (12.5 GB/s), 5 us.
func handCluster(t *testing.T, machines, gpus int, gpudirect bool) *Cluster {
	t.Helper()
	n := &Network{Name: "hand", Kind: "infiniband", BandwidthGbps: 100, Efficiency: 1, LatencyUs: 5, RDMA: true, GPUDirect: gpudirect, TCPGBs: 2, TCPLatencyUs: 20, MaxRegisteredGB: 1}
	c, err := New(machines, gpus, gpuOf(t, "h100"), n)
	if err != nil {
		t.Fatal(err)
	}
	c.Host.CollectiveBaseUs, c.Host.CollectiveNetStepUs = 0, 0
	return c
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

// ---- presets and parsing ----

// TestNodePresets: DGX / HGX machines have one scale-out NIC per GPU on
// their node's network, a GPU without a node preset one NIC per machine;
// New applies the node's NICs and an explicit count overrides them.
func TestNodePresets(t *testing.T) {
	for _, tc := range []struct {
		gpu       string
		machine   int // GPUs per machine
		nics      int
		net       string
		hasPreset bool
	}{
		{"h100", 8, 8, "ib-ndr", true}, {"h200", 8, 8, "ib-ndr", true}, {"b200", 8, 8, "ib-ndr", true}, {"h800", 8, 8, "ib-ndr", true},
		{"a100", 8, 8, "ib-hdr", true}, {"gb200", 72, 72, "ib-ndr", true}, {"h100", 4, 4, "ib-ndr", true},
		{"p100", 4, 1, "ib-hdr", false}, {"v100", 8, 1, "ib-hdr", false},
	} {
		n := hw.NodePreset(tc.gpu)
		if (n != nil) != tc.hasPreset || DefaultNetwork(tc.gpu) != tc.net {
			t.Errorf("%s: node %+v, default network %s; want a preset %v, %s", tc.gpu, n, DefaultNetwork(tc.gpu), tc.hasPreset, tc.net)
		}
		c, err := New(2, tc.machine, gpuOf(t, tc.gpu), netOf(t, tc.net))
		if err != nil {
			t.Fatal(err)
		}
		if c.NICsPerMachine != tc.nics {
			t.Errorf("%s machine of %d: %d NICs, want %d", tc.gpu, tc.machine, c.NICsPerMachine, tc.nics)
		}
		if n != nil && (len(n.Sources) == 0 || n.Description == "") {
			t.Errorf("%s node: no description or sources", tc.gpu)
		}
	}
}

func TestPresets(t *testing.T) {
	want := []string{"ib-edr", "ib-hdr", "ib-ndr", "ib-xdr", "roce-25", "roce-100", "roce-400", "tcp-25", "tcp-100"}
	if got := strings.Join(NetworkNames(), ","); got != strings.Join(want, ",") {
		t.Fatalf("networks %s, want %s", got, strings.Join(want, ","))
	}
	gbps := map[string]float64{"ib-edr": 100, "ib-hdr": 200, "ib-ndr": 400, "ib-xdr": 800, "roce-25": 25, "roce-100": 100, "roce-400": 400, "tcp-25": 25, "tcp-100": 100}
	for _, name := range want {
		n := netOf(t, name)
		if n.BandwidthGbps != gbps[name] {
			t.Errorf("%s: %g Gb/s, want %g", name, n.BandwidthGbps, gbps[name])
		}
		if len(n.Sources) == 0 {
			t.Errorf("%s: no sources", name)
		}
		if strings.HasPrefix(name, "tcp") == n.RDMA {
			t.Errorf("%s: rdma = %v", name, n.RDMA)
		}
	}
	if _, err := NetworkPreset("myrinet"); err == nil {
		t.Error("unknown network accepted")
	}
	p := gpuOf(t, "p100")
	if p.PeakTFLOPS.FP32 != 10.6 || p.MemoryBandwidthGBs != 732 {
		t.Errorf("p100: %g TFLOPS fp32, %g GB/s: want the datasheet's 10.6 and 732", p.PeakTFLOPS.FP32, p.MemoryBandwidthGBs)
	}
	// every node preset runs a network preset of this package
	for _, n := range hw.Nodes() {
		if _, err := NetworkPreset(n.Network); err != nil {
			t.Errorf("node %s: %v", n.GPU, err)
		}
	}
	if _, err := loadCatalogue(); err != nil {
		t.Errorf("embedded presets: %v", err)
	}
}

func TestParse(t *testing.T) {
	gpu, net := gpuOf(t, "h100"), netOf(t, "ib-hdr")
	for _, tc := range []struct {
		spec string
		m, g int
		bad  bool
	}{
		{spec: "4x8", m: 4, g: 8},
		{spec: "1x1", m: 1, g: 1},
		{spec: "16", m: 16, g: 1},
		{spec: " 2X4 ", m: 2, g: 4},
		{spec: "0x8", bad: true},
		{spec: "4x", bad: true},
		{spec: "x4", bad: true},
		{spec: "4x-1", bad: true},
		{spec: "axb", bad: true},
		{spec: "100000x100000", bad: true},
		{spec: "", bad: true},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			c, err := Parse(tc.spec, gpu, net)
			if tc.bad {
				if err == nil {
					t.Fatalf("accepted %q", tc.spec)
				}
				if strings.HasPrefix(err.Error(), "cluster: ") {
					t.Errorf("error %q starts with the package name: errors are user-ready lines", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Machines != tc.m || c.GPUsPerMachine != tc.g {
				t.Errorf("%dx%d, want %dx%d", c.Machines, c.GPUsPerMachine, tc.m, tc.g)
			}
		})
	}
	if _, err := Parse("2x2", gpuOf(t, "cpu"), net); err == nil {
		t.Error("a CPU preset accepted as a GPU")
	}
	for _, s := range []string{"ps", "allreduce", "pipeline", "auto", ""} {
		if _, err := ParseStrategy(s); err != nil {
			t.Errorf("strategy %q: %v", s, err)
		}
	}
	for _, s := range []string{"grpc-tcp", "grpc-rdma", "rdma"} {
		if _, err := ParseTransport(s); err != nil {
			t.Errorf("transport %q: %v", s, err)
		}
	}
	if _, err := ParseTransport("carrier-pigeon"); err == nil {
		t.Error("unknown transport accepted")
	}
	got, err := ParseGPUList("gpus=1,2,4,512")
	if err != nil || len(got) != 4 || got[3] != 512 {
		t.Errorf("ParseGPUList: %v %v", got, err)
	}
	for _, bad := range []string{"gpus=", "gpus=1,,2", "gpus=0", "gpus=1.5", "gpus=-2"} {
		if _, err := ParseGPUList(bad); err == nil {
			t.Errorf("ParseGPUList(%q) accepted", bad)
		}
	}
}

// ---- hand-computed cases ----

// A ring all-reduce of S bytes over n GPUs costs
// 2(n-1)/n x S/B + 2(n-1) x latency.
func TestRingAllReduceHand(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		bytes float64
		want  float64 // seconds, computed by hand
	}{
		// 2*3/4 * 1e9/12.5e9 = 0.12; 2*3 * 5e-6 = 3e-5
		{"4 GPUs 1 GB", 4, 1e9, 0.12003},
		// 2*7/8 * 1e9/12.5e9 = 0.14; 14 * 5e-6 = 7e-5
		{"8 GPUs 1 GB", 8, 1e9, 0.14007},
		// 2*1/2 * 1e6/12.5e9 = 8e-5; 2 * 5e-6 = 1e-5
		{"2 GPUs 1 MB", 2, 1e6, 9e-5},
		{"1 GPU", 1, 1e9, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := handCluster(t, tc.n, 1, true)
			col, err := c.AllReduce(tc.bytes, RDMA, AlgoRing)
			if err != nil {
				t.Fatal(err)
			}
			if !near(col.TotalS, tc.want, 1e-9) {
				t.Errorf("all-reduce %g s, want %g s", col.TotalS, tc.want)
			}
			if f := RingAllReduceS(tc.bytes, tc.n, 12.5e9, 5e-6); !near(f, tc.want, 1e-9) {
				t.Errorf("RingAllReduceS %g s, want %g s", f, tc.want)
			}
		})
	}
}

// A static tensor over rdma costs latency + bytes/bandwidth, with no copy
// term; grpc-tcp adds both copies (and staging, and the TCP stack).
func TestTransferHand(t *testing.T) {
	c := handCluster(t, 2, 1, true)
	const bytes = 1e8
	r := c.Transfer(RDMA, bytes, TransferOptions{})
	// 5e-6 + 1e8/12.5e9 = 0.008005
	if !near(r.TotalS, 0.008005, 1e-9) || r.CopyS != 0 || r.StagingS != 0 || r.Mechanism != OneSidedWrite {
		t.Errorf("rdma static: %+v, want 0.008005 s one-sided write with no copy", r)
	}
	g := c.Transfer(GRPCTCP, bytes, TransferOptions{})
	wantCopy := 2 * bytes / (c.Host.MemcpyGBs * 1e9) // serialize + deserialize
	if !near(g.CopyS, wantCopy, 1e-9) || g.Mechanism != RPCCopy {
		t.Errorf("grpc-tcp copies %g s, want %g s (both copies)", g.CopyS, wantCopy)
	}
	if g.StagingS <= 0 || g.TotalS <= r.TotalS+g.CopyS {
		t.Errorf("grpc-tcp %+v: want staging and a total above rdma + copies", g)
	}
	gr := c.Transfer(GRPCRDMA, bytes, TransferOptions{})
	if gr.CopyS != wantCopy || gr.WireS != r.WireS || gr.TotalS <= r.TotalS || gr.TotalS >= g.TotalS {
		t.Errorf("grpc-rdma %+v: want rdma's wire time plus both copies, between rdma and grpc-tcp", gr)
	}
	d := c.Transfer(RDMA, bytes, TransferOptions{Dynamic: true})
	if d.Mechanism != MetadataRead || !near(d.LatencyS, 3*5e-6, 1e-9) || d.Messages != 2 {
		t.Errorf("rdma dynamic: %+v, want a shape message then a read (3 one-way latencies)", d)
	}
	u := c.Transfer(RDMA, bytes, TransferOptions{Unregistered: true})
	if u.Mechanism != BounceCopy || u.CopyS != bytes/(c.Host.MemcpyGBs*1e9) || u.Fallback == "" {
		t.Errorf("rdma unregistered: %+v, want one bounce copy and a reason", u)
	}
	nogd := handCluster(t, 2, 1, false)
	s := nogd.Transfer(RDMA, bytes, TransferOptions{})
	if s.StagingS <= 0 || !strings.Contains(s.Fallback, "GPUDirect") {
		t.Errorf("rdma without GPUDirect: %+v, want staging through the host with a reason", s)
	}
	tcp := clusterOf(t, "2x1", "h100", "tcp-25")
	f := tcp.Transfer(RDMA, bytes, TransferOptions{})
	if f.Transport != GRPCTCP || f.Fallback == "" {
		t.Errorf("rdma on tcp-25: %+v, want a fallback to grpc-tcp", f)
	}
}

func TestHierarchical(t *testing.T) {
	c := clusterOf(t, "4x8", "h100", "ib-edr")
	const S = 1e9
	flat, err := c.AllReduce(S, RDMA, AlgoRing)
	if err != nil {
		t.Fatal(err)
	}
	hier, err := c.AllReduce(S, RDMA, AlgoHierarchical)
	if err != nil {
		t.Fatal(err)
	}
	if hier.TotalS >= flat.TotalS {
		t.Errorf("hierarchical %g s not below flat ring %g s on 4x8", hier.TotalS, flat.TotalS)
	}
	// each machine sends 2(N-1)/N x S over its NIC in the hierarchical form
	if !near(hier.NICBytes, 2*3.0/4*S, 1e-9) {
		t.Errorf("hierarchical NIC bytes %g, want %g", hier.NICBytes, 1.5*S)
	}
	if auto, _ := c.AllReduce(S, RDMA, AlgoAuto); auto.Algorithm != AlgoHierarchical {
		t.Errorf("auto picked %s on 4x8", auto.Algorithm)
	}
	if _, err := c.AllReduce(S, RDMA, "butterfly"); err == nil {
		t.Error("unknown algorithm accepted")
	}
}

// ---- strategies on a hand-built model ----

func TestStrategies(t *testing.T) {
	p := profileOf(t, mlp(ir.S("N"), 16, 1024), "h100", 64)
	if len(p.Params) != 16 || p.ParamBytes != 16*4*1024*1024 {
		t.Fatalf("%d params, %g bytes: want 16 of 4 MiB", len(p.Params), p.ParamBytes)
	}
	c := clusterOf(t, "2x4", "h100", "roce-25")
	for _, s := range []Strategy{AllReduce, PS, Pipeline, Auto} {
		for _, tr := range Transports() {
			t.Run(string(s)+"/"+string(tr), func(t *testing.T) {
				r, err := Simulate(p, c, Options{Strategy: s, Transport: tr, Timeline: true})
				if err != nil {
					t.Fatal(err)
				}
				if !(r.StepMs > 0) || r.CommMs < -1e-9 || r.BubbleMs < -1e-9 {
					t.Errorf("step %g comm %g bubble %g", r.StepMs, r.CommMs, r.BubbleMs)
				}
				if d := r.StepMs - (r.ComputeMs + r.CommMs + r.BubbleMs); math.Abs(d) > 1e-6*r.StepMs {
					t.Errorf("step %g ms != compute %g + comm %g + bubble %g", r.StepMs, r.ComputeMs, r.CommMs, r.BubbleMs)
				}
				if r.Efficiency <= 0 || r.Efficiency > 1.05 {
					t.Errorf("efficiency %g", r.Efficiency)
				}
				if len(r.Transports) != 3 || r.Transports[0].SpeedupVsGRPCTCP != 1 {
					t.Errorf("transport comparison %+v", r.Transports)
				}
				tracks := map[string]bool{}
				for _, sp := range r.Timeline {
					tracks[sp.Track] = true
					if sp.EndMs < sp.StartMs {
						t.Fatalf("span %+v ends before it starts", sp)
					}
				}
				if !tracks["m0/gpu0"] || !tracks["m1/gpu3"] {
					t.Errorf("timeline tracks %v: want one per GPU", tracks)
				}
				if r.Strategy != Pipeline && !tracks["m0/nic"] {
					t.Errorf("timeline tracks %v: want one per NIC", tracks)
				}
			})
		}
	}
	// allreduce on a ring of data-parallel GPUs: rdma never slower than grpc
	r, _ := Simulate(p, c, Options{Strategy: AllReduce})
	if r.Transports[2].StepMs > r.Transports[0].StepMs {
		t.Errorf("rdma %g ms slower than grpc-tcp %g ms", r.Transports[2].StepMs, r.Transports[0].StepMs)
	}
	// inference: data parallel needs no communication
	ri, err := Simulate(p, c, Options{Strategy: AllReduce, Mode: simulate.Inference})
	if err != nil || ri.CommMs != 0 || !near(ri.Efficiency, 1, 1e-9) {
		t.Errorf("inference allreduce: %+v %v", ri, err)
	}
}

func TestBucketing(t *testing.T) {
	// backward long enough to hide communication: p100, 16 MiB layers
	p := profileOf(t, mlpRaw(ir.S("N"), 16, 2048, false), "p100", 4096)
	c := clusterOf(t, "8x1", "p100", "roce-100")
	one, err := Simulate(p, c, Options{Strategy: AllReduce, BucketBytes: 1 << 40, FusionCycleS: 1})
	if err != nil {
		t.Fatal(err)
	}
	if one.Buckets != 1 {
		t.Fatalf("%d buckets with an unbounded bucket and cycle, want 1", one.Buckets)
	}
	per, _ := Simulate(p, c, Options{Strategy: AllReduce, BucketBytes: -1})
	if per.Buckets != 16 {
		t.Errorf("%d buckets with one tensor each, want 16", per.Buckets)
	}
	fused, _ := Simulate(p, c, Options{Strategy: AllReduce, BucketBytes: 8 << 20})
	// one bucket overlaps nothing: all communication is exposed
	if !near(one.CommMs, one.CommTotalMs, 1e-6) {
		t.Errorf("single bucket: exposed %g ms, total %g ms: want all exposed", one.CommMs, one.CommTotalMs)
	}
	if fused.CommMs >= one.CommMs {
		t.Errorf("8 MiB buckets expose %g ms, not less than one bucket's %g ms", fused.CommMs, one.CommMs)
	}
}

func TestPipelineDecline(t *testing.T) {
	p := profileOf(t, mlp(ir.S("N"), 2, 256), "h100", 8)
	c := clusterOf(t, "1x8", "h100", "ib-hdr")
	_, err := Simulate(p, c, Options{Strategy: Pipeline})
	var de *DeclineError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "too few") {
		t.Fatalf("got %v, want a decline naming too few ops", err)
	}
	r, err := Simulate(p, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	declined := false
	for _, cd := range r.Candidates {
		declined = declined || (cd.Strategy == Pipeline && cd.Declined != "")
	}
	if r.Strategy == Pipeline || !declined {
		t.Errorf("auto: %s with candidates %+v, want pipeline listed as declined", r.Strategy, r.Candidates)
	}
}

func TestPipelineSchedule(t *testing.T) {
	p := profileOf(t, mlp(ir.S("N"), 16, 2048), "h100", 64)
	c := clusterOf(t, "1x4", "h100", "ib-hdr")
	for _, tc := range []struct {
		micro int
		sched Schedule
	}{{1, GPipe}, {4, GPipe}, {16, GPipe}, {16, OneFOneB}} {
		r, err := Simulate(p, c, Options{Strategy: Pipeline, MicroBatches: tc.micro, Schedule: tc.sched})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Stages) != 4 {
			t.Fatalf("%d stages, want 4", len(r.Stages))
		}
		// balanced stages: the bubble is about (K-1)/(M+K-1) of the step
		want := 3.0 / float64(tc.micro+3)
		if got := r.BubbleMs / r.StepMs; math.Abs(got-want) > 0.08 {
			t.Errorf("M=%d: bubble fraction %.3f, want about %.3f", tc.micro, got, want)
		}
		if tc.sched == OneFOneB && r.Stages[0].PeakActivationBytes >= 16.0/4*r.Stages[3].PeakActivationBytes*4 {
			t.Errorf("1f1b stage 0 holds %g bytes", r.Stages[0].PeakActivationBytes)
		}
	}
	g, _ := Simulate(p, c, Options{Strategy: Pipeline, MicroBatches: 16, Schedule: GPipe})
	o, _ := Simulate(p, c, Options{Strategy: Pipeline, MicroBatches: 16, Schedule: OneFOneB})
	if o.Stages[0].PeakActivationBytes >= g.Stages[0].PeakActivationBytes {
		t.Errorf("1f1b stage 0 activations %g not below gpipe's %g", o.Stages[0].PeakActivationBytes, g.Stages[0].PeakActivationBytes)
	}
}

// The dynamic program finds the best bottleneck: it equals brute force
// over every split on small cases, and the coarse and even splits are
// valid partitions no better than it.
func TestSplit(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for it := 0; it < 300; it++ {
		n := 1 + rng.Intn(10)
		k := 1 + rng.Intn(min(n, 5))
		pre := make([]float64, n+1)
		for i := 0; i < n; i++ {
			pre[i+1] = pre[i] + rng.Float64()
		}
		xc := make([]float64, n)
		for i := range xc {
			xc[i] = 2 * rng.Float64()
		}
		x := func(s, b int) float64 { return xc[b] * float64(1+s%2) }
		dp := splitDP(pre, k, x)
		best := math.Inf(1)
		var rec func(s, start int, b []int)
		rec = func(s, start int, b []int) {
			if s == k {
				if start == n {
					best = math.Min(best, bottleneck(pre, b, x))
				}
				return
			}
			for e := start + 1; e <= n-(k-1-s); e++ {
				rec(s+1, e, append(b, e))
			}
		}
		rec(0, 0, []int{0})
		if math.Abs(dp.bottleneck-best) > 1e-12 || math.Abs(bottleneck(pre, dp.bounds, x)-best) > 1e-12 {
			t.Fatalf("n=%d k=%d: dp %g (bounds %v), brute force %g", n, k, dp.bottleneck, dp.bounds, best)
		}
		for _, part := range []partition{dp, splitEven(pre, k, x)} {
			b := part.bounds
			if len(b) != k+1 || b[0] != 0 || b[k] != n {
				t.Fatalf("bounds %v", b)
			}
			for s := 0; s < k; s++ {
				if b[s+1] <= b[s] {
					t.Fatalf("empty stage in %v", b)
				}
			}
			if part.bottleneck < best-1e-12 {
				t.Fatalf("split %v beats the optimum %g", b, best)
			}
		}
	}
	// a large case takes the chunked path and stays valid
	n, k := 5000, 8
	pre := make([]float64, n+1)
	for i := 0; i < n; i++ {
		pre[i+1] = pre[i] + rng.Float64()
	}
	x := func(s, b int) float64 { return 0 }
	part := split(pre, k, x)
	if len(part.bounds) != k+1 || part.bounds[k] != n || part.bottleneck > 1.05*pre[n]/float64(k) {
		t.Errorf("chunked split: bottleneck %g, ideal %g", part.bottleneck, pre[n]/float64(k))
	}
}
