package hw

import (
	"strings"
	"testing"
)

// TestRuntimesHaveSources: every runtime preset says what it is, what it
// fuses and where its numbers come from; each device kind has exactly one
// default, and the GPU default is the host cost every GPU preset carries.
func TestRuntimesHaveSources(t *testing.T) {
	defaults := map[string]int{}
	for _, r := range Runtimes() {
		if len(r.Sources) == 0 || r.Description == "" || r.Fusions == "" {
			t.Errorf("runtime %s: sources %d, description %q, fusions %q", r.Name, len(r.Sources), r.Description, r.Fusions)
		}
		for _, s := range r.Sources {
			if len(strings.TrimSpace(s)) < 20 {
				t.Errorf("runtime %s: source %q says too little", r.Name, s)
			}
		}
		if r.Default {
			defaults[r.Device]++
		}
	}
	if defaults["gpu"] != 1 || defaults["cpu"] != 1 {
		t.Errorf("defaults per device: %v, want one each", defaults)
	}
	eager := DefaultRuntime("gpu")
	for _, name := range Names() {
		h, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if h.Kind == "gpu" && (h.LaunchUs != *eager.LaunchUs || h.DispatchUs != *eager.DispatchUs) {
			t.Errorf("%s: launch %g dispatch %g, but the default runtime %s says %g/%g", name, h.LaunchUs, h.DispatchUs, eager.Name, *eager.LaunchUs, *eager.DispatchUs)
		}
	}
}

// TestWithRuntime: a runtime's host costs replace the hardware's, on a
// copy; one for another kind of hardware is refused.
func TestWithRuntime(t *testing.T) {
	h, _ := Preset("h100")
	g, _ := LookupRuntime("cuda-graph")
	c, err := h.WithRuntime(g)
	if err != nil {
		t.Fatal(err)
	}
	if c.LaunchUs != 0 || c.DispatchUs != 0 || c.RunOverheadUs != h.RunOverheadUs+g.RunLaunchUs || c.Runtime != g {
		t.Errorf("cuda-graph on h100: launch %g dispatch %g run %g", c.LaunchUs, c.DispatchUs, c.RunOverheadUs)
	}
	if h.LaunchUs != 5 || h.Runtime != nil {
		t.Errorf("WithRuntime changed the preset")
	}
	cpuRT, _ := LookupRuntime("ort-cpu")
	if _, err := h.WithRuntime(cpuRT); err == nil {
		t.Errorf("ort-cpu on h100 accepted")
	}
	if _, err := LookupRuntime("nope"); err == nil || !strings.Contains(err.Error(), "eager") {
		t.Errorf("unknown runtime: %v", err)
	}
}
