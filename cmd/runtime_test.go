package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestRuntimeChangesPrediction profiles a small CNN under each GPU
// runtime and checks that each changes the prediction as its preset
// says: the default (eager) is the prediction without --runtime, CUDA
// graphs take the per-kernel launch and per-node dispatch off the host
// (one graph launch per run left) with the device time unchanged, ONNX
// Runtime's CUDA provider dispatches cheaper and fuses at load (fewer
// kernels), a TensorRT-style engine fuses more still; every prediction
// names its runtime in the assumptions.
func TestRuntimeChangesPrediction(t *testing.T) {
	model := filepath.Join("..", "testdata", "models", "sample_cnn.onnx")
	type prof struct {
		TotalMs     float64  `json:"total_ms"`
		HostMs      float64  `json:"host_busy_ms"`
		DeviceMs    float64  `json:"device_busy_ms"`
		Kernels     int64    `json:"kernels"`
		Assumptions []string `json:"assumptions"`
	}
	get := func(args ...string) prof {
		t.Helper()
		out, errs, code := run(append([]string{"profile", model, "--dim", "N=1", "--format", "json"}, args...)...)
		var p prof
		if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
			t.Fatalf("profile %v: exit %d: %s", args, code, errs)
		}
		return p
	}
	says := func(p prof, want string) bool {
		for _, a := range p.Assumptions {
			if strings.Contains(a, want) {
				return true
			}
		}
		return false
	}
	def, eager := get(), get("--runtime", "eager")
	graph, ort, trt := get("--runtime", "cuda-graph"), get("--runtime", "ort-cuda"), get("--runtime", "tensorrt")
	if def.TotalMs != eager.TotalMs || !says(def, "runtime eager (default on GPUs") || !says(eager, "runtime eager (--runtime eager)") {
		t.Errorf("default %.4f ms vs eager %.4f ms; assumptions %q", def.TotalMs, eager.TotalMs, def.Assumptions)
	}
	if graph.DeviceMs != eager.DeviceMs || graph.HostMs > 0.0101 || graph.TotalMs >= eager.TotalMs || !says(graph, "runtime cuda-graph") {
		t.Errorf("cuda-graph: host %.4f ms (want the 10 us graph launch), device %.4f vs %.4f ms, total %.4f vs eager %.4f", graph.HostMs, graph.DeviceMs, eager.DeviceMs, graph.TotalMs, eager.TotalMs)
	}
	if ort.Kernels >= eager.Kernels || ort.HostMs >= eager.HostMs || !says(ort, "runtime ort-cuda") {
		t.Errorf("ort-cuda: %d kernels (eager %d), host %.4f ms (eager %.4f)", ort.Kernels, eager.Kernels, ort.HostMs, eager.HostMs)
	}
	if trt.Kernels > ort.Kernels || trt.TotalMs >= eager.TotalMs || !says(trt, "runtime tensorrt") {
		t.Errorf("tensorrt: %d kernels (ort-cuda %d), total %.4f ms (eager %.4f)", trt.Kernels, ort.Kernels, trt.TotalMs, eager.TotalMs)
	}
	// -O given explicitly wins over the runtime's load-time fusion
	if o0 := get("--runtime", "tensorrt", "-O0"); o0.Kernels != eager.Kernels && o0.Kernels < trt.Kernels {
		t.Errorf("-O0 with tensorrt: %d kernels", o0.Kernels)
	}
	cpu := get("--hw", "cpu-1t")
	if !says(cpu, "runtime ort-cpu (default on CPUs") {
		t.Errorf("cpu-1t: assumptions %q", cpu.Assumptions)
	}
	for _, args := range [][]string{{"--runtime", "ort-cpu"}, {"--runtime", "nope"}, {"--hw", "cpu-1t", "--runtime", "tensorrt"}} {
		if _, errs, code := run(append([]string{"profile", model, "--dim", "N=1"}, args...)...); code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("profile %v: exit %d, %q; want a one-line usage error", args, code, errs)
		}
	}
	for _, cmd := range [][]string{{"optimize", model, "--dim", "N=1", "--runtime", "cuda-graph", "--format", "json"}, {"explain", model, "--dim", "N=1", "--runtime", "cuda-graph", "--format", "json"}} {
		out, errs, code := run(cmd...)
		if code != 0 || !strings.Contains(out, "runtime cuda-graph (--runtime cuda-graph)") {
			t.Errorf("%s --runtime: exit %d, %s; the runtime is not in its assumptions", cmd[0], code, errs)
		}
	}
}

// TestRuntimeListed: the runtimes are listed by wolong runtime list (with
// sources in JSON) and in wolong hw list.
func TestRuntimeListed(t *testing.T) {
	out, _, code := run("runtime", "list")
	for _, name := range []string{"eager (default)", "ort-cuda", "cuda-graph", "tensorrt", "ort-cpu (default)"} {
		if code != 0 || !strings.Contains(out, name) {
			t.Errorf("runtime list: exit %d, no %q in\n%s", code, name, out)
		}
	}
	js, _, code := run("runtime", "list", "--format", "json")
	var rs []struct {
		Name    string   `json:"name"`
		Sources []string `json:"sources"`
	}
	if code != 0 || json.Unmarshal([]byte(js), &rs) != nil || len(rs) < 5 {
		t.Fatalf("runtime list --format json: exit %d", code)
	}
	if out, _, _ := run("hw", "list"); !strings.Contains(out, "Runtimes (--runtime") || !strings.Contains(out, "cuda-graph") {
		t.Errorf("hw list has no runtimes section")
	}
}
