package hw

import (
	"strings"
	"testing"
)

// TestEmbeddedCatalogue: the embedded presets parse and validate (they are
// parsed on first use, not at init, so this test is where a broken file
// shows); every preset and node cites sources; every GPU without a
// single-GPU anchor says so (Lacks), and the CPUs describe the machine
// they were measured on and point to calibrate --host.
func TestEmbeddedCatalogue(t *testing.T) {
	c, err := loadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.devices) == 0 || len(c.nodes) == 0 {
		t.Fatalf("%d devices, %d nodes", len(c.devices), len(c.nodes))
	}
	for _, h := range c.devices {
		if len(h.Sources) == 0 || h.Description == "" {
			t.Errorf("%s: no sources or description", h.Name)
		}
		if h.Kind == "cpu" {
			d := h.Description
			if strings.Contains(d, "workplace") || !strings.Contains(d, "GHz") || !strings.Contains(d, "calibrate --host") {
				t.Errorf("%s: description %q: want the CPU model, clock, threads and runtime, and calibrate --host", h.Name, d)
			}
		}
	}
	for _, name := range []string{"p100", "h800", "b200", "gb200", "mi300x"} {
		h, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Lacks) == 0 {
			t.Errorf("%s: a GPU with cluster-level anchors only must say what it lacks", name)
		}
	}
	if NodePreset("h100") == nil || NodePreset("v100") != nil {
		t.Error("node presets: want h100's, none for v100")
	}
}
