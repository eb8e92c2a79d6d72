package cmd

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// light returns the path of a light_* zoo model (skips when absent).
func light(t *testing.T, name string) string {
	t.Helper()
	return shared(t, "onnx-node-tests", "light", "light_"+name+".onnx")
}

// clusterJSON runs profile --format json with args and decodes the output.
func clusterJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	return profileJSON(t, args...)
}

func num(t *testing.T, doc map[string]any, key string) float64 {
	t.Helper()
	v, ok := doc[key].(float64)
	if !ok {
		t.Fatalf("JSON field %q missing or not a number: %v", key, doc[key])
	}
	return v
}

// The JSON fields are present, the step splits exactly into
// compute + exposed communication + bubbles, and each flag reaches the
// result.
func TestProfileClusterJSON(t *testing.T) {
	model := light(t, "squeezenet")
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, doc map[string]any)
	}{
		{"allreduce", []string{"--cluster", "2x2", "--net", "ib-hdr", "--strategy", "allreduce", "--batch", "8"}, func(t *testing.T, d map[string]any) {
			if d["strategy"] != "allreduce" || num(t, d, "bubble_ms") != 0 || num(t, d, "gpus") != 4 || num(t, d, "global_batch") != 32 {
				t.Errorf("strategy %v bubble %v gpus %v global batch %v", d["strategy"], d["bubble_ms"], d["gpus"], d["global_batch"])
			}
			links := linkNames(d)
			if !strings.Contains(links, "ib-hdr (per machine)") || !strings.Contains(links, "nvlink (per GPU)") {
				t.Errorf("links %s: want the network and nvlink", links)
			}
		}},
		{"ps", []string{"--cluster", "2x2", "--strategy", "ps", "--batch", "8"}, func(t *testing.T, d map[string]any) {
			if d["strategy"] != "ps" || num(t, d, "bubble_ms") != 0 {
				t.Errorf("strategy %v bubble %v", d["strategy"], d["bubble_ms"])
			}
		}},
		{"pipeline", []string{"--cluster", "2x2", "--strategy", "pipeline", "--batch", "8", "--schedule", "gpipe"}, func(t *testing.T, d map[string]any) {
			st, _ := d["stages"].([]any)
			if d["strategy"] != "pipeline" || len(st) != 4 || num(t, d, "bubble_ms") <= 0 || d["schedule"] != "gpipe" || num(t, d, "micro_batches") != 8 {
				t.Errorf("strategy %v, %d stages, bubble %v, schedule %v, micro-batches %v", d["strategy"], len(st), d["bubble_ms"], d["schedule"], d["micro_batches"])
			}
		}},
		// batch 1: the one-GPU step is launch-bound (idle between kernels);
		// splitting it into stages and micro-batches must not look
		// super-linear
		{"pipeline launch-bound", []string{"--cluster", "2x2", "--strategy", "pipeline"}, func(t *testing.T, d map[string]any) {
			if e := num(t, d, "efficiency"); e > 1 {
				t.Errorf("pipeline efficiency %v > 1", e)
			}
			// the model's batch is 1: one micro-batch, not 4 x stages
			if num(t, d, "micro_batches") != 1 || num(t, d, "global_batch") != 1 {
				t.Errorf("batch-1 model: %v micro-batches, global batch %v", d["micro_batches"], d["global_batch"])
			}
		}},
		{"auto", []string{"--cluster", "2x2", "--batch", "8"}, func(t *testing.T, d map[string]any) {
			c, _ := d["candidates"].([]any)
			if len(c) != 3 {
				t.Errorf("auto compared %d strategies, want 3: %v", len(c), d["candidates"])
			}
			best := 0.0
			for _, x := range c {
				m := x.(map[string]any)
				if tp, ok := m["throughput"].(float64); ok && tp > best {
					best = tp
				}
			}
			if math.Abs(num(t, d, "throughput")/best-1) > 1e-9 {
				t.Errorf("auto throughput %v, best candidate %v", d["throughput"], best)
			}
		}},
		{"transports", []string{"--cluster", "2x1", "--net", "roce-25", "--transport", "grpc-tcp", "--strategy", "ps", "--batch", "8"}, func(t *testing.T, d map[string]any) {
			tr, _ := d["transports"].([]any)
			if len(tr) != 3 || d["transport"] != "grpc-tcp" {
				t.Fatalf("transports %v, transport %v", d["transports"], d["transport"])
			}
			sp := map[string]float64{}
			for _, x := range tr {
				m := x.(map[string]any)
				sp[m["transport"].(string)] = m["speedup_vs_grpc_tcp"].(float64)
			}
			if sp["grpc-tcp"] != 1 || !(sp["rdma"] > 1) || sp["rdma"] < sp["grpc-rdma"] {
				t.Errorf("speedups vs grpc-tcp %v: want grpc-tcp 1 < grpc-rdma <= rdma", sp)
			}
			if math.Abs(num(t, d, "step_ms")/tr[0].(map[string]any)["step_ms"].(float64)-1) > 1e-9 {
				t.Errorf("selected grpc-tcp step %v differs from its row %v", d["step_ms"], tr[0])
			}
		}},
		{"one machine", []string{"--cluster", "1x4", "--strategy", "allreduce"}, func(t *testing.T, d map[string]any) {
			if _, ok := d["transports"]; ok {
				t.Errorf("one machine has a transport comparison: %v", d["transports"])
			}
			if num(t, d, "machines") != 1 || num(t, d, "gpus_per_machine") != 4 {
				t.Errorf("machines %v x %v", d["machines"], d["gpus_per_machine"])
			}
		}},
		{"no rdma", []string{"--cluster", "2x1", "--net", "tcp-25", "--transport", "rdma", "--strategy", "allreduce"}, func(t *testing.T, d map[string]any) {
			if !strings.Contains(strings.Join(toStrings(d["warnings"]), "\n"), "no RDMA verbs") || d["network_rdma"] != false {
				t.Errorf("rdma on tcp-25: warnings %v", d["warnings"])
			}
		}},
		// without RDMA verbs every transport is kernel TCP
		{"tcp only", []string{"--cluster", "2x1", "--net", "tcp-25", "--transport", "grpc-rdma", "--strategy", "ps", "--batch", "2"}, func(t *testing.T, d map[string]any) {
			for _, x := range d["transports"].([]any) {
				if m := x.(map[string]any); m["speedup_vs_grpc_tcp"].(float64) != 1 {
					t.Errorf("tcp-25: %v", m)
				}
			}
			if !strings.Contains(strings.Join(toStrings(d["warnings"]), "\n"), "transport grpc-rdma: network tcp-25 has no RDMA verbs") {
				t.Errorf("grpc-rdma on tcp-25: warnings %v", d["warnings"])
			}
		}},
		{"inference", []string{"--cluster", "2x1", "--strategy", "allreduce", "--mode", "inference"}, func(t *testing.T, d map[string]any) {
			if d["mode"] != "inference" || num(t, d, "comm_ms") != 0 {
				t.Errorf("data-parallel inference: mode %v, exposed comm %v", d["mode"], d["comm_ms"])
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := clusterJSON(t, append([]string{model}, tc.args...)...)
			step := num(t, d, "step_ms")
			parts := num(t, d, "compute_ms") + num(t, d, "comm_ms") + num(t, d, "bubble_ms")
			if !(step > 0) || math.Abs(parts-step) > 1e-6*step {
				t.Errorf("step %v ms != compute + comm + bubbles = %v ms", step, parts)
			}
			// ps may exceed 1 slightly (the servers shard the optimizer update)
			if e := num(t, d, "efficiency"); !(e > 0) || (d["strategy"] != "ps" && e > 1+1e-9) {
				t.Errorf("%s efficiency %v", d["strategy"], e)
			}
			if len(toStrings(d["assumptions"])) < 5 {
				t.Errorf("few assumptions: %v", d["assumptions"])
			}
			if !slicesContain(tc.args, "--mode") && d["mode"] != "train" {
				t.Errorf("--cluster without --mode: mode %v, want train", d["mode"])
			}
			tc.check(t, d)
		})
	}
}

func slicesContain(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func linkNames(d map[string]any) string {
	var out []string
	ls, _ := d["links"].([]any)
	for _, l := range ls {
		out = append(out, l.(map[string]any)["link"].(string))
	}
	return strings.Join(out, ", ")
}

// The text report states the split, the links, the transports and the
// assumptions.
func TestProfileClusterText(t *testing.T) {
	out, errs, code := wolong(t, "profile", light(t, "squeezenet"), "--cluster", "2x2", "--net", "roce-100", "--batch", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Predicted step time:", "compute (busiest GPU)", "exposed communication", "pipeline bubbles",
		"Link utilization", "roce-100 (per machine)", "speedup vs grpc-tcp", "grpc-tcp", "grpc-rdma", "Strategies compared by auto", "picked", "Assumptions:", "efficiency"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

func TestProfileClusterUsage(t *testing.T) {
	model := light(t, "squeezenet")
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--net", "ib-hdr"}, 2, "--net needs --cluster"},
		{[]string{"--strategy", "ps"}, 2, "--strategy needs --cluster"},
		{[]string{"--cluster", "2x2", "--net", "ib-gdr"}, 2, "unknown network"},
		{[]string{"--cluster", "2x2", "--transport", "udp"}, 2, "--transport"},
		{[]string{"--cluster", "2x2", "--strategy", "zero"}, 2, "--strategy"},
		{[]string{"--cluster", "0x2"}, 2, "--cluster"},
		{[]string{"--cluster", "four"}, 2, "--cluster"},
		{[]string{"--cluster", "2x2", "--hw", "cpu"}, 2, "not a GPU"},
		{[]string{"--cluster", "2x2", "--plot", filepath.Join(dir, "s.png")}, 2, "--plot draws the scaling of --sweep"},
		{[]string{"--sweep", "gpus=1,2", "--plot", filepath.Join(dir, "s.gif")}, 2, ".png, .svg or .pdf"},
		{[]string{"--sweep", "gpus=1,2", "--trace", filepath.Join(dir, "t.json")}, 2, "--trace draws one cluster step"},
		{[]string{"--cluster", "1x4", "--sweep", "gpus=1,6"}, 2, "not a whole number of machines"},
		{[]string{"--sweep", "gpus=1,two"}, 2, "--sweep"},
		{[]string{"--cluster", "2x2", "--nics", "0"}, 2, "--nics"},
		{[]string{"--cluster", "2x2", "--allreduce", "tree"}, 2, "--allreduce"},
		{[]string{"--cluster", "2x2", "--schedule", "zb"}, 2, "--schedule"},
		{[]string{"--cluster", "2x2", "--bucket-mb", "-1"}, 2, "--bucket-mb"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errs, code := wolong(t, append([]string{"profile", model}, tc.args...)...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, errs, tc.code, tc.want)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
				t.Errorf("want one error line and no output; stdout %q stderr %q", out, errs)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "s.png")); err == nil {
		t.Errorf("a refused --plot wrote its file")
	}
}

// A model too small to split: --strategy pipeline declines with one line
// (exit 1); auto says it declined and picks another strategy.
func TestProfileClusterPipelineDeclines(t *testing.T) {
	mm := writeModel(t, "MatMul", ir.Float32, ir.ShapeOf(64, 256), ir.ShapeOf(256, 256))
	_, errs, code := wolong(t, "profile", mm, "--cluster", "2x2", "--strategy", "pipeline")
	if code != 1 || !strings.Contains(errs, "pipeline declined") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("pipeline on one MatMul: exit %d, stderr %q; want exit 1, one line saying it declined", code, errs)
	}
	d := clusterJSON(t, mm, "--cluster", "2x2")
	declined := ""
	for _, x := range d["candidates"].([]any) {
		m := x.(map[string]any)
		if m["strategy"] == "pipeline" {
			declined, _ = m["declined"].(string)
		}
	}
	if declined == "" || d["strategy"] == "pipeline" {
		t.Errorf("auto: strategy %v, pipeline candidate declined %q", d["strategy"], declined)
	}
	out, _, code := wolong(t, "profile", mm, "--cluster", "2x2")
	if code != 0 || !strings.Contains(out, "declined: ") {
		t.Errorf("auto text report does not say pipeline declined (exit %d):\n%s", code, out)
	}
}

// Every model of the shared corpus profiles on 2x2 under every strategy;
// pipeline may decline (exit 1 with that one-line message), auto never
// fails.
func TestProfileClusterSharedModels(t *testing.T) {
	root := shared(t, "models")
	var paths []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".onnx") {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	if len(paths) == 0 {
		t.Skip("no models")
	}
	strategies := []string{"allreduce", "ps", "pipeline", "auto"}
	if testing.Short() {
		strategies = []string{"auto"}
	}
	for _, path := range paths {
		rel, _ := filepath.Rel(root, path)
		t.Run(rel, func(t *testing.T) {
			if _, errs, code := wolong(t, "inspect", path, "--format", "json"); code != 0 {
				t.Skipf("does not import: %s", strings.TrimSpace(errs))
			}
			for _, s := range strategies {
				out, errs, code := wolong(t, "profile", path, "--cluster", "2x2", "--strategy", s, "--format", "json")
				if code == 1 && s == "pipeline" && strings.Contains(errs, "pipeline declined") && strings.Count(strings.TrimSpace(errs), "\n") == 0 {
					continue
				}
				if code != 0 {
					t.Errorf("%s: exit %d: %s", s, code, errs)
					continue
				}
				var d map[string]any
				if err := json.Unmarshal([]byte(out), &d); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
				if st, _ := d["step_ms"].(float64); !(st > 0) {
					t.Errorf("%s: step_ms %v", s, d["step_ms"])
				}
			}
		})
	}
}

func TestProfileSweepAndPlot(t *testing.T) {
	model := light(t, "squeezenet")
	dir := t.TempDir()
	d := clusterJSON(t, model, "--cluster", "1x2", "--net", "roce-25", "--strategy", "allreduce", "--batch", "8", "--sweep", "gpus=1,2,4,8")
	pts, _ := d["points"].([]any)
	if len(pts) != 4 {
		t.Fatalf("sweep points %v", d["points"])
	}
	prev := 0.0
	for i, want := range []float64{1, 2, 4, 8} {
		p := pts[i].(map[string]any)
		if p["gpus"].(float64) != want || p["machines"].(float64)*p["gpus_per_machine"].(float64) != want {
			t.Errorf("point %d: %v", i, p)
		}
		tp, eff := p["throughput"].(float64), p["efficiency"].(float64)
		if !(tp > prev) || !(eff > 0 && eff <= 1+1e-9) {
			t.Errorf("point %d: throughput %v after %v, efficiency %v", i, tp, prev, eff)
		}
		prev = tp
	}
	if e := pts[0].(map[string]any)["efficiency"].(float64); math.Abs(e-1) > 1e-9 {
		t.Errorf("one GPU efficiency %v, want 1", e)
	}
	out, errs, code := wolong(t, "profile", model, "--cluster", "1x2", "--batch", "8", "--sweep", "gpus=1,2,4")
	if code != 0 || !strings.Contains(out, "efficiency") || !strings.Contains(out, "samples/s") || !strings.Contains(out, "2x2") {
		t.Errorf("sweep table (exit %d, %s):\n%s", code, errs, out)
	}
	for _, tc := range []struct{ name, magic string }{
		{"scaling.png", "\x89PNG\r\n\x1a\n"},
		{"scaling.svg", "<svg"},
		{"scaling.pdf", "%PDF"},
	} {
		path := filepath.Join(dir, tc.name)
		if _, errs, code := wolong(t, "profile", model, "--cluster", "1x2", "--batch", "8", "--sweep", "gpus=1,2,4,8", "--plot", path); code != 0 {
			t.Fatalf("--plot %s: exit %d: %s", tc.name, code, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 1000 || !bytes.Contains(b[:min(len(b), 512)], []byte(tc.magic)) {
			t.Errorf("%s: %d bytes, starts %q", tc.name, len(b), b[:min(len(b), 16)])
		}
	}
	// the plot never overwrites the model
	copyPath := filepath.Join(dir, "model.png")
	orig, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyPath, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := wolong(t, "profile", copyPath, "--sweep", "gpus=1,2", "--plot", copyPath); code == 0 {
		t.Errorf("--plot onto the model succeeded: %s", errs)
	}
	if b, _ := os.ReadFile(copyPath); !bytes.Equal(b, orig) {
		t.Errorf("--plot overwrote the model")
	}
}

// The cluster trace is Chrome-trace JSON with one track per GPU stream and
// one per NIC, for data-parallel and pipeline steps.
func TestProfileClusterTrace(t *testing.T) {
	model := light(t, "squeezenet")
	for _, strategy := range []string{"allreduce", "ps", "pipeline"} {
		t.Run(strategy, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "trace.json")
			d := clusterJSON(t, model, "--cluster", "2x2", "--strategy", strategy, "--batch", "8", "--trace", path)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var tr struct {
				TraceEvents []struct {
					Name string         `json:"name"`
					Cat  string         `json:"cat"`
					Ph   string         `json:"ph"`
					Ts   *float64       `json:"ts"`
					Dur  *float64       `json:"dur"`
					Pid  *int           `json:"pid"`
					Tid  *int           `json:"tid"`
					Args map[string]any `json:"args"`
				} `json:"traceEvents"`
				DisplayTimeUnit string `json:"displayTimeUnit"`
			}
			if err := json.Unmarshal(b, &tr); err != nil {
				t.Fatalf("trace is not JSON: %v", err)
			}
			type track struct{ pid, tid int }
			names := map[track]string{}
			busy := map[track]int{}
			stepUs := num(t, d, "step_ms") * 1e3
			for _, e := range tr.TraceEvents {
				if e.Pid == nil || e.Tid == nil || e.Ts == nil || e.Name == "" {
					t.Fatalf("event lacks name/pid/tid/ts: %+v", e)
				}
				k := track{*e.Pid, *e.Tid}
				switch e.Ph {
				case "M":
					if e.Name == "thread_name" {
						names[k], _ = e.Args["name"].(string)
					}
				case "X":
					if e.Dur == nil || *e.Dur < 0 || *e.Ts < 0 || *e.Ts+*e.Dur > stepUs*(1+1e-9)+1e-6 {
						t.Errorf("span %q [%v +%v] us outside the %v us step", e.Name, *e.Ts, *e.Dur, stepUs)
					}
					busy[k]++
				default:
					t.Errorf("unexpected phase %q", e.Ph)
				}
			}
			var gpus, nics int
			for k, n := range names {
				switch {
				case strings.HasPrefix(n, "gpu") && strings.Contains(n, "stream"):
					gpus++
				case strings.HasPrefix(n, "nic"):
					nics++
				default:
					t.Errorf("track %v named %q", k, n)
				}
				if busy[k] == 0 {
					t.Errorf("track %q has no spans", n)
				}
			}
			if gpus != 4 || nics != 2 {
				t.Errorf("%d GPU tracks and %d NIC tracks, want 4 and 2: %v", gpus, nics, names)
			}
		})
	}
}

func TestHwNetworks(t *testing.T) {
	out, _, code := wolong(t, "hw", "list")
	if code != 0 {
		t.Fatal("hw list failed")
	}
	for _, name := range []string{"ib-edr", "ib-hdr", "ib-ndr", "ib-xdr", "roce-25", "roce-100", "roce-400", "tcp-25", "tcp-100", "p100", "h100"} {
		if !strings.Contains(out, name) {
			t.Errorf("hw list lacks %s", name)
		}
	}
	out, _, code = wolong(t, "hw", "list", "--networks", "--format", "json")
	var nets []struct {
		Name      string  `json:"name"`
		Gbps      float64 `json:"bandwidth_gbps"`
		LatencyUs float64 `json:"latency_us"`
	}
	if err := json.Unmarshal([]byte(out), &nets); code != 0 || err != nil || len(nets) != 9 {
		t.Fatalf("hw list --networks --format json: exit %d, %v, %d networks", code, err, len(nets))
	}
	// InfiniBand EDR / HDR / NDR / XDR 4x: 100 / 200 / 400 / 800 Gb/s (IBTA roadmap)
	for _, n := range nets {
		want := map[string]float64{"ib-edr": 100, "ib-hdr": 200, "ib-ndr": 400, "ib-xdr": 800, "roce-25": 25, "roce-100": 100, "roce-400": 400, "tcp-25": 25, "tcp-100": 100}[n.Name]
		if n.Gbps != want || !(n.LatencyUs > 0) {
			t.Errorf("%s: %g Gb/s (want %g), latency %g us", n.Name, n.Gbps, want, n.LatencyUs)
		}
	}
	out, _, code = wolong(t, "hw", "show", "h100")
	if code != 0 || !strings.Contains(out, "Node (profile / optimize --cluster defaults): DGX H100") || !strings.Contains(out, "--nics: 1 per GPU (8 per 8-GPU machine); --net: ib-ndr") {
		t.Errorf("hw show h100 does not state the node's NICs and network: exit %d\n%s", code, out)
	}
	out, _, code = wolong(t, "hw", "show", "ib-ndr")
	if code != 0 || !strings.Contains(out, "400 Gb/s") || !strings.Contains(out, "Sources:") || !strings.Contains(out, "GPUDirect") {
		t.Errorf("hw show ib-ndr: exit %d\n%s", code, out)
	}
	_, errs, code := wolong(t, "hw", "show", "tpu")
	if code != 2 || !strings.Contains(errs, "roce-25") || !strings.Contains(errs, "p100") {
		t.Errorf("hw show tpu: exit %d, %q: want the hardware and network names", code, errs)
	}
	out, _, code = wolong(t, "hw", "show", "p100")
	if code != 0 || !strings.Contains(out, "P100") {
		t.Errorf("hw show p100: exit %d\n%s", code, out)
	}
}

// Wolong anchor through the CLI (Xue et al., EuroSys 2019 / arXiv:1805.08430:
// zero-copy RDMA up to 25x over gRPC): VGG-19 with parameter servers over 8
// machines of one P100 on EDR InfiniBand, batch 32, predicts rdma well
// above grpc-tcp (simulate/cluster's TestWolongAnchor holds the range).
func TestProfileClusterWolongAnchor(t *testing.T) {
	if testing.Short() {
		t.Skip("VGG-19 profile")
	}
	d := clusterJSON(t, light(t, "vgg19"), "--hw", "p100", "--cluster", "8x1", "--net", "ib-edr", "--strategy", "ps", "--batch", "32")
	sp := map[string]float64{}
	for _, x := range d["transports"].([]any) {
		m := x.(map[string]any)
		sp[m["transport"].(string)] = m["speedup_vs_grpc_tcp"].(float64)
	}
	t.Logf("VGG-19 ps 8x1 ib-edr: speedup vs grpc-tcp %v", sp)
	if sp["rdma"] <= 1.5 || sp["rdma"] > 25 || sp["rdma"] < sp["grpc-rdma"] {
		t.Errorf("rdma over grpc-tcp %.2fx (grpc-rdma %.2fx): want within (1.5, 25] and >= grpc-rdma", sp["rdma"], sp["grpc-rdma"])
	}
}

// Horovod anchor through the CLI (Sergeev & Del Balso, arXiv:1802.05799:
// ~90% scaling efficiency for Inception V3 / ResNet-101 and 68% for VGG-16
// on 512 Pascal GPUs over 25 GbE RoCE with tensor fusion): ResNet-50 and
// VGG-19 stand in, on 128x4 p100 over roce-25, flat ring, 64 MiB fusion
// buffer, batch 64, with cuDNN's Winograd 3x3 kernels (the p100 preset's
// default). They must matter: --conv-algo direct has longer compute, so
// less of the communication shows; --winograd (deprecated) changes nothing.
func TestProfileClusterHorovodAnchor(t *testing.T) {
	if testing.Short() {
		t.Skip("512-GPU anchor")
	}
	args := []string{"--hw", "p100", "--cluster", "128x4", "--net", "roce-25", "--strategy", "allreduce", "--allreduce", "ring", "--bucket-mb", "64", "--batch", "64"}
	eff := map[string]float64{}
	for _, name := range []string{"resnet50", "vgg19"} {
		d := clusterJSON(t, append([]string{light(t, name)}, args...)...)
		direct := clusterJSON(t, append(append([]string{light(t, name)}, args...), "--conv-algo", "direct")...)
		old := clusterJSON(t, append(append([]string{light(t, name)}, args...), "--winograd")...)
		eff[name] = num(t, d, "efficiency")
		t.Logf("%s: efficiency %.3f (Winograd), %.3f with direct convolutions", name, eff[name], num(t, direct, "efficiency"))
		if !(num(t, d, "compute_ms") < num(t, direct, "compute_ms")) {
			t.Errorf("%s: Winograd compute %v ms not below direct %v ms", name, d["compute_ms"], direct["compute_ms"])
		}
		if num(t, old, "compute_ms") != num(t, d, "compute_ms") {
			t.Errorf("%s: --winograd compute %v ms, default %v ms: want the same", name, old["compute_ms"], d["compute_ms"])
		}
	}
	if e := eff["resnet50"]; e < 0.82 || e > 0.96 {
		t.Errorf("ResNet-50 efficiency %.3f, want near Horovod's ~0.90", e)
	}
	if e := eff["vgg19"]; e < 0.58 || e > 0.78 {
		t.Errorf("VGG-19 efficiency %.3f, want near Horovod's 0.68 for VGG-16", e)
	}
}

// The same command gives the same bytes: report, JSON, trace and plot.
func TestProfileClusterDeterministic(t *testing.T) {
	model := light(t, "squeezenet")
	dir := t.TempDir()
	runs := [][]string{
		{"--cluster", "2x2", "--batch", "4"},
		{"--cluster", "2x2", "--batch", "4", "--format", "json", "--trace", filepath.Join(dir, "t.json")},
		{"--cluster", "1x2", "--batch", "4", "--sweep", "gpus=1,2,4", "--plot", filepath.Join(dir, "s.svg")},
	}
	for _, args := range runs {
		var prev []string
		for i := 0; i < 2; i++ {
			out, errs, code := wolong(t, append([]string{"profile", model}, args...)...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			got := []string{out}
			for _, f := range []string{"t.json", "s.svg"} {
				if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
					got = append(got, string(b))
				}
			}
			if i == 1 && strings.Join(got, "\x00") != strings.Join(prev, "\x00") {
				t.Errorf("%v: output differs between two runs", args)
			}
			prev = got
		}
	}
}
