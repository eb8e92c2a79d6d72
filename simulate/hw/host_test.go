package hw

import (
	"strings"
	"testing"
)

// TestHostMismatch: a CPU file fitted elsewhere, or not saying where, warns;
// the same machine does not; a GPU never does.
func TestHostMismatch(t *testing.T) {
	here := CPUInfo{Model: "AMD EPYC", ID: "AuthenticAMD 26/2/1", Cores: 2}
	cpu := &Hardware{Name: "local", Kind: "cpu", Fitted: &Fitted{CPU: "AMD EPYC", CPUID: "AuthenticAMD 26/2/1", Cores: 2}}
	for _, c := range []struct {
		name string
		h    *Hardware
		cpu  CPUInfo
		want string // "" or a fragment of the warning
	}{
		{"same machine", cpu, here, ""},
		{"same name, other family", cpu, CPUInfo{Model: "AMD EPYC", ID: "AuthenticAMD 25/1/1", Cores: 2}, "fitted on AMD EPYC (AuthenticAMD 26/2/1)"},
		{"other core count", cpu, CPUInfo{Model: "AMD EPYC", ID: "AuthenticAMD 26/2/1", Cores: 8}, "this machine is AMD EPYC (AuthenticAMD 26/2/1) (8)"},
		{"other model", cpu, CPUInfo{Model: "Intel(R) Xeon(R) Platinum 8480+", Cores: 2}, "Intel(R) Xeon(R) Platinum 8480+"},
		{"unfitted", &Hardware{Name: "x", Kind: "cpu"}, here, "does not say which machine"},
		{"gpu", &Hardware{Name: "h100", Kind: "gpu"}, here, ""},
		{"host unknown", cpu, CPUInfo{}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.h.HostMismatch(c.cpu)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("HostMismatch = %q, want %q", got, c.want)
			}
		})
	}
}

// TestHostCPU reads this machine: a core count always, and an ID with the
// model on Linux x86.
func TestHostCPU(t *testing.T) {
	c := HostCPU()
	if c.Cores <= 0 || c.OS == "" {
		t.Fatalf("HostCPU() = %+v", c)
	}
	t.Logf("%s", c)
}

// TestGEMMLanes: the GEMM kernel's column block by vector flags.
func TestGEMMLanes(t *testing.T) {
	for flags, want := range map[string]float64{
		"fma avx avx2 avx512f avx512bw": 16,
		"fma avx avx2":                  8,
		"neon asimd":                    4,
		"":                              0,
	} {
		if got := GEMMLanes(flags); got != want {
			t.Errorf("GEMMLanes(%q) = %g, want %g", flags, got, want)
		}
	}
}
