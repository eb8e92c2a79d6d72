package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func testCluster(t *testing.T, spec, net string) *cluster.Cluster {
	t.Helper()
	gpu, err := hw.Resolve("h100")
	if err != nil {
		t.Fatal(err)
	}
	n, err := cluster.NetworkPreset(net)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Parse(spec, gpu, n)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// a hand-made result: 10 ms step = 7 compute + 2 exposed comm + 1 bubble.
func testResult() *cluster.Result {
	return &cluster.Result{
		Cluster: "2x2", GPU: "h100", Network: "ib-hdr", Strategy: cluster.Pipeline, Transport: cluster.RDMA, Mode: "train",
		GPUs: 4, Batch: 8, GlobalBatch: 8, StepMs: 10, ComputeMs: 7, CommMs: 2, BubbleMs: 1, CommTotalMs: 5, OneGPUMs: 30,
		Efficiency: 0.75, Speedup: 3, Throughput: 800, Schedule: cluster.OneFOneB, Micro: 8,
		Stages: []cluster.Stage{{Device: cluster.Device{Machine: 0, GPU: 0}, First: "conv1", Last: "relu9", Ops: 10, ComputeMs: 7, CutBytes: 1e6, TransferMs: 0.1}},
		Links:  []cluster.LinkUse{{Link: "stage boundaries (sum)", Bytes: 2e6, BusyMs: 5, Utilization: 0.5}},
		Transports: []cluster.TransportStep{{Transport: cluster.GRPCTCP, StepMs: 25, SpeedupVsGRPCTCP: 1},
			{Transport: cluster.GRPCRDMA, StepMs: 12.5, SpeedupVsGRPCTCP: 2}, {Transport: cluster.RDMA, StepMs: 10, SpeedupVsGRPCTCP: 2.5}},
		Candidates: []cluster.Candidate{{Strategy: cluster.AllReduce, StepMs: 12, Throughput: 2667},
			{Strategy: cluster.PS, Declined: "no parameters"}, {Strategy: cluster.Pipeline, StepMs: 10, Throughput: 800}},
		Caveats: cluster.Caveats{Assumptions: []string{"from the cluster"}, Warnings: []string{"cluster warning"}},
	}
}

func TestClusterProfileText(t *testing.T) {
	p := NewClusterProfile("m.onnx", testCluster(t, "2x2", "ib-hdr"), testResult(), []string{"from the command"}, []string{"import warning"})
	if p.HiddenCommMs != 3 {
		t.Errorf("hidden comm %g ms, want 5 - 2 = 3", p.HiddenCommMs)
	}
	var b bytes.Buffer
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Cluster: 2x2 = 4 GPU(s) (2 machine(s) x 2 h100",
		"network ib-hdr (200 Gb/s x 2 NIC(s) per machine, RDMA, GPUDirect)", // h100 node preset: one NIC per GPU
		"Strategy: pipeline (1f1b, 8 micro-batches, 1 stages), transport rdma, mode train, batch 8 per GPU",
		"Predicted step time: 10.000 ms, throughput 800 samples/s",
		"│ compute (busiest GPU) │ 7.000 ms │ 70.0% │",
		"│ exposed communication │ 2.000 ms │ 20.0% │",
		"│ pipeline bubbles      │ 1.000 ms │ 10.0% │",
		"All communication 5.000 ms, of which 3.000 ms hidden behind compute.",
		"3.00x over one GPU", "efficiency 75.0%",
		"stage boundaries (sum)", "50.0%",
		"│ rdma (selected) │ 10.000 ms │ 2.50x", "│ grpc-tcp        │ 25.000 ms │ 1.00x",
		"declined: no parameters", "picked",
		"conv1 .. relu9",
		"  - from the command\n  - from the cluster\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "import warning") {
		t.Errorf("the text repeats the warnings (the command writes them on stderr):\n%s", out)
	}
}

func TestClusterProfileJSON(t *testing.T) {
	p := NewClusterProfile("m.onnx", testCluster(t, "2x2", "tcp-25"), testResult(), []string{"from the command"}, nil)
	var b bytes.Buffer
	if err := WriteJSON(&b, p); err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"step_ms": 10.0, "compute_ms": 7.0, "comm_ms": 2.0, "bubble_ms": 1.0, "efficiency": 0.75,
		"model": "m.onnx", "machines": 2.0, "gpus_per_machine": 2.0, "network_rdma": false, "hidden_comm_ms": 3.0} {
		if d[k] != want {
			t.Errorf("%s = %v, want %v", k, d[k], want)
		}
	}
	a, _ := d["assumptions"].([]any)
	if len(a) != 2 || a[0] != "from the command" || a[1] != "from the cluster" {
		t.Errorf("assumptions %v: want the command's then the cluster's, once", a)
	}
}

func testScaling() *Scaling {
	return &Scaling{Model: "dir/m.onnx", GPU: "p100", Network: "roce-25", Strategy: "allreduce", Transport: "rdma", Mode: "train", Batch: 64, GPUsPerMachine: 4,
		Points: []cluster.SweepPoint{
			{GPUs: 1, Machines: 1, GPUsPerMachine: 1, Strategy: cluster.AllReduce, StepMs: 100, Throughput: 640, Speedup: 1, Efficiency: 1},
			{GPUs: 8, Machines: 2, GPUsPerMachine: 4, Strategy: cluster.AllReduce, StepMs: 110, CommMs: 10, Throughput: 4654.6, Speedup: 7.27, Efficiency: 0.909},
			{GPUs: 16, Machines: 4, GPUsPerMachine: 4, Strategy: cluster.Pipeline, Declined: "too small"},
		},
		Caveats: Caveats{Assumptions: []string{"a"}}}
}

func TestScalingText(t *testing.T) {
	var b bytes.Buffer
	if err := testScaling().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Scaling on p100 over roce-25, machines of 4 GPU(s): strategy allreduce, transport rdma, mode train, batch 64 per GPU",
		"│ 8    │ 2x4     │ allreduce │ 110.0 ms │ 10.000 ms    │ 0 ms    │ 4655      │ 7.27x   │ 90.9%      │",
		"declined: too small", "1 size(s) declined",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestScalingPlot(t *testing.T) {
	for _, tc := range []struct{ format, magic string }{{"png", "\x89PNG"}, {"svg", "<svg"}, {".SVG", "<svg"}, {"pdf", "%PDF"}} {
		var b bytes.Buffer
		if err := WriteScalingPlot(&b, testScaling(), tc.format); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		if b.Len() < 1000 || !bytes.Contains(b.Bytes()[:512], []byte(tc.magic)) {
			t.Errorf("%s: %d bytes starting %q", tc.format, b.Len(), b.Bytes()[:16])
		}
	}
	var b bytes.Buffer
	if err := WriteScalingPlot(&b, testScaling(), "gif"); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("gif: %v", err)
	}
	s := testScaling()
	s.Points = s.Points[2:]
	if err := WriteScalingPlot(&b, s, "png"); err == nil || !strings.Contains(err.Error(), "declined") {
		t.Errorf("every size declined: %v", err)
	}
	// one point plots too (degenerate axes widened)
	s = testScaling()
	s.Points = s.Points[:1]
	b.Reset()
	if err := WriteScalingPlot(&b, s, "svg"); err != nil || b.Len() == 0 {
		t.Errorf("one point: %v", err)
	}
}

func TestClusterTrace(t *testing.T) {
	r := testResult()
	r.Timeline = []cluster.Span{
		{Track: "m1/nic", Name: "act0", Cat: "comm", StartMs: 1, EndMs: 2},
		{Track: "m1/gpu1", Name: "F0", Cat: "forward", StartMs: 2, EndMs: 3},
		{Track: "m0/gpu0", Name: "F0", Cat: "forward", StartMs: 0, EndMs: 1},
		{Track: "m0/nic", Name: "act0", Cat: "comm", StartMs: 1, EndMs: 2.5},
		{Track: "m0/gpu1", Name: "F0", Cat: "forward", StartMs: 1, EndMs: 2},
		{Track: "m0/gpu0", Name: "B0", Cat: "backward", StartMs: 5, EndMs: 6},
	}
	tr := NewClusterTrace("m.onnx", r)
	type pt struct{ pid, tid int }
	threads := map[pt]string{}
	procs := map[int]string{}
	var order []string
	spans := map[pt]int{}
	for _, e := range tr.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "thread_name":
			threads[pt{e.Pid, e.Tid}] = e.Args["name"].(string)
			order = append(order, e.Args["name"].(string))
		case e.Ph == "M" && e.Name == "process_name":
			procs[e.Pid] = e.Args["name"].(string)
		case e.Ph == "X":
			spans[pt{e.Pid, e.Tid}]++
			if e.Name == "act0" && e.Pid == 1 && (e.Ts != 1000 || e.Dur != 1500) {
				t.Errorf("m0 nic span at %v +%v us, want 1000 +1500", e.Ts, e.Dur)
			}
		}
	}
	want := map[pt]string{{1, 1}: "gpu0 stream 0", {1, 2}: "gpu1 stream 0", {1, ClusterNICTid}: "nic (ib-hdr)", {2, 2}: "gpu1 stream 0", {2, ClusterNICTid}: "nic (ib-hdr)"}
	if len(threads) != len(want) {
		t.Errorf("tracks %v, want %v", threads, want)
	}
	for k, v := range want {
		if threads[k] != v {
			t.Errorf("track %v = %q, want %q", k, threads[k], v)
		}
	}
	if got := strings.Join(order, ","); got != "gpu0 stream 0,gpu1 stream 0,nic (ib-hdr),gpu1 stream 0,nic (ib-hdr)" {
		t.Errorf("track order %s: want machines in order, GPUs then the NIC", got)
	}
	if procs[1] != "machine 0 (predicted)" || procs[2] != "machine 1 (predicted)" {
		t.Errorf("processes %v", procs)
	}
	if spans[pt{1, 1}] != 2 || spans[pt{1, ClusterNICTid}] != 1 || spans[pt{2, ClusterNICTid}] != 1 {
		t.Errorf("spans per track %v", spans)
	}
	var b bytes.Buffer
	if err := WriteClusterTrace(&b, "m.onnx", r); err != nil || !json.Valid(b.Bytes()) {
		t.Errorf("WriteClusterTrace: %v", err)
	}
}
