package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestHostVariant: --hw cpu-1t on the machine its Xeon variant was fitted
// on predicts with that variant and says so (the hardware's name, no
// warning that the preset was fitted elsewhere); on another machine it is
// cpu-1t with that warning; the exact name needs no host.
func TestHostVariant(t *testing.T) {
	xeon, err := hw.Preset("cpu-1t-xeon")
	if err != nil {
		t.Fatal(err)
	}
	defer func(f func() hw.CPUInfo) { hostCPU = f }(hostCPU)
	for _, tc := range []struct {
		hw   string
		cpu  hw.CPUInfo
		want string
		warn bool
	}{
		{"cpu-1t", hw.CPUInfo{Model: xeon.Fitted.CPU, ID: xeon.Fitted.CPUID, Cores: xeon.Fitted.Cores}, "cpu-1t-xeon", false},
		{"cpu-1t", hw.CPUInfo{Model: "Another CPU", ID: "GenuineIntel 6/85/7", Cores: 2}, "cpu-1t", true},
		{"cpu-1t-xeon", hw.CPUInfo{Model: "Another CPU", ID: "GenuineIntel 6/85/7", Cores: 2}, "cpu-1t-xeon", true},
	} {
		hostCPU = func() hw.CPUInfo { return tc.cpu }
		out, stderr, code := run("profile", "../testdata/models/sample_cnn.onnx", "--dim", "N=1", "--hw", tc.hw, "--format", "json")
		var doc struct {
			Hardware string `json:"hardware"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
			t.Fatalf("--hw %s on %s: exit %d: %s", tc.hw, tc.cpu.Model, code, stderr)
		}
		warned := strings.Contains(stderr, "was fitted on")
		if doc.Hardware != tc.want || warned != tc.warn {
			t.Errorf("--hw %s on %s: hardware %q, warned %v; want %q, %v (%s)", tc.hw, tc.cpu.Model, doc.Hardware, warned, tc.want, tc.warn, stderr)
		}
	}
}

// TestValidateMachine: validate predicts the machine its latency records
// were measured on: records of the Xeon the variant was fitted on give
// cpu-1t-xeon whatever this machine is; records of another machine (the
// committed AMD ones) give cpu-1t.
func TestValidateMachine(t *testing.T) {
	xeon, err := hw.Preset("cpu-1t-xeon")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rec := func(name, cpu string) string {
		p := filepath.Join(dir, name)
		doc := fmt.Sprintf(`{"format":"wolong-ort-latency","version":1,"model":"m.onnx","ort":"1.30.0","threads":1,"graph_optimization":"disabled","median_us":100,"host":{"cpu":%q,"cores":%d}}`, cpu, xeon.Fitted.Cores)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ cpu, want string }{{xeon.Fitted.CPU, "cpu-1t-xeon"}, {"AMD EPYC", "cpu-1t"}} {
		p := rec(strings.ReplaceAll(tc.cpu, " ", "_")+".json", tc.cpu)
		got, code, err := parseArgv(NewCmdValidate, []string{"m.onnx", "--ort-latency", p, "--hw", "cpu-1t"})
		if code != 0 || err != nil || got.HW.Name != tc.want {
			t.Errorf("records of %s: exit %d (%v), hardware %v; want %s", tc.cpu, code, err, got, tc.want)
		}
	}
}
