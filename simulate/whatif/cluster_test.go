package whatif_test

import (
	"encoding/json"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
	"github.com/wolong-dev/wolong/simulate/llm"
	"github.com/wolong-dev/wolong/simulate/whatif"
)

// editedNet is the network preset with fields scaled by hand: its JSON
// (presets.json's schema) edited and read back.
func editedNet(t *testing.T, n *cluster.Network, f float64, fields ...string) *cluster.Network {
	t.Helper()
	b, _ := json.Marshal(n)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, fl := range fields {
		doc[fl] = doc[fl].(float64) * f
	}
	b, _ = json.Marshal(doc)
	var e cluster.Network
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

func row(t *testing.T, rows []whatif.Row, name string) whatif.Row {
	t.Helper()
	for _, r := range rows {
		if r.Param == name {
			return r
		}
	}
	t.Fatalf("no row %s", name)
	return whatif.Row{}
}

// A data-parallel step of an MLP with 16 MB of weights and almost no
// compute, on 4 machines of one GPU over 25 Gb/s Ethernet, is
// network-bound: net_bw ranks first. Each ±20% total equals the step on
// presets edited by hand (the network's JSON, the GPU's hardware file,
// with the one-GPU profile predicted again on it).
func TestClusterSweepNetworkBound(t *testing.T) {
	m := modelgen.MLP(1024, 4)
	ir.InferModel(m, ir.InferOptions{Inputs: simulate.BatchInputs(m.Graph, 8, nil)})
	h, _ := hw.Preset("h100")
	net, _ := cluster.NetworkPreset("roce-25")
	opt := cluster.Options{Strategy: cluster.AllReduce}
	step := func(gpu *hw.Hardware, n *cluster.Network) float64 {
		p, err := cluster.NewProfile(m, gpu, cluster.ProfileOptions{Batch: 8})
		if err != nil {
			t.Fatal(err)
		}
		c, err := cluster.New(4, 1, gpu, n)
		if err != nil {
			t.Fatal(err)
		}
		r, err := cluster.Simulate(p, c, opt)
		if err != nil {
			t.Fatal(err)
		}
		return r.StepMs
	}
	c, _ := cluster.New(4, 1, h, net)
	rows, err := whatif.SweepCluster(c, func(cc *cluster.Cluster, _ bool) (whatif.Point, error) {
		return whatif.Point{Ms: step(cc.GPU, cc.Net)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Param != "net_bw" || !(rows[0].Elasticity < -0.5) {
		t.Errorf("first %s (elasticity %.2f), want net_bw near -1", rows[0].Param, rows[0].Elasticity)
	}
	for _, f := range []float64{0.8, 1.2} {
		pick := func(r whatif.Row) float64 {
			if f < 1 {
				return r.MinusMs
			}
			return r.PlusMs
		}
		if got, want := pick(row(t, rows, "net_bw")), step(h, editedNet(t, net, f, "bandwidth_gbps", "tcp_gbs")); got != want {
			t.Errorf("net_bw x%g: sweep %v ms, edited preset %v ms", f, got, want)
		}
		if got, want := pick(row(t, rows, "net_latency")), step(h, editedNet(t, net, f, "latency_us", "tcp_latency_us")); got != want {
			t.Errorf("net_latency x%g: sweep %v ms, edited preset %v ms", f, got, want)
		}
		if got, want := pick(row(t, rows, "bw")), step(edited(t, h, f, "memory_bandwidth_gbs"), net); got != want {
			t.Errorf("bw x%g: sweep %v ms, edited hardware file %v ms", f, got, want)
		}
	}
}

// A compute-bound LLM training step (GPT-3 1.3B, 2048 tokens, on one
// machine of 8 GPUs) ranks the bf16 peak first among the hardware
// parameters; the ±20% totals equal steps on edited presets; tp's row
// holds the steps at its neighbouring valid values (half and double), as
// predicted with those degrees given.
func TestLLMSweepComputeBound(t *testing.T) {
	tr, err := llm.Architecture("gpt3-1.3b")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := hw.Preset("h100")
	net, _ := cluster.NetworkPreset("ib-ndr")
	o := llm.LLMOptions{TP: 2, GlobalBatch: 64}
	step := func(gpu *hw.Hardware, n *cluster.Network, o llm.LLMOptions) float64 {
		c, err := cluster.New(1, 8, gpu, n)
		if err != nil {
			t.Fatal(err)
		}
		r, err := llm.SimulateLLM(tr, c, o)
		if err != nil {
			t.Fatal(err)
		}
		return r.StepMs
	}
	c, _ := cluster.New(1, 8, h, net)
	base, err := llm.SimulateLLM(tr, c, o)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := whatif.SweepCluster(c, func(cc *cluster.Cluster, _ bool) (whatif.Point, error) {
		r, err := llm.SimulateLLM(tr, cc, o)
		if err != nil {
			return whatif.Point{}, err
		}
		return whatif.TrainPoint(r), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Param != "peak_bf16" {
		t.Errorf("first %s, want peak_bf16 (%+v)", rows[0].Param, rows[:3])
	}
	for _, f := range []float64{0.8, 1.2} {
		want := step(edited(t, h, f, "peak_tflops.bf16"), net, o)
		got := row(t, rows, "peak_bf16").PlusMs
		if f < 1 {
			got = row(t, rows, "peak_bf16").MinusMs
		}
		if got != want {
			t.Errorf("peak_bf16 x%g: sweep %v ms, edited hardware file %v ms", f, got, want)
		}
		wantNVL := step(edited(t, h, f, "nvlink_gbs"), net, o)
		if r := row(t, rows, "nvlink"); (f < 1 && r.MinusMs != wantNVL) || (f > 1 && r.PlusMs != wantNVL) {
			t.Errorf("nvlink x%g: sweep %+v, edited hardware file %v ms", f, r, wantNVL)
		}
	}
	layout := whatif.SweepTrain(whatif.TrainRun{T: tr, C: c, O: o}, base, whatif.TrainDegrees(tr, o, base))
	tp := row(t, layout, "tp")
	if tp.MinusValue != 1 || tp.PlusValue != 4 {
		t.Fatalf("tp row %+v: want 1 and 4", tp)
	}
	if got := step(h, net, llm.LLMOptions{TP: 1, GlobalBatch: 64}); got != tp.MinusMs {
		t.Errorf("tp 1: %v ms, row %v ms", got, tp.MinusMs)
	}
	if got := step(h, net, llm.LLMOptions{TP: 4, GlobalBatch: 64}); got != tp.PlusMs {
		t.Errorf("tp 4: %v ms, row %v ms", got, tp.PlusMs)
	}
}

// Unknown names are refused with the list of the known ones.
func TestParseChange(t *testing.T) {
	known := append(whatif.ClusterNames(), whatif.TrainDegreeNames()...)
	for _, ok := range []string{"net_bw=+30%", "nvlink_bw=-20%", "tp=4", "net_latency=x2", "micro-batch=2"} {
		if _, err := whatif.ParseChange(ok, known); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"nope=+3%", "net_bw", "net_bw=-100%", "tp=-2", "bw=abc"} {
		if _, err := whatif.ParseChange(bad, known); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
