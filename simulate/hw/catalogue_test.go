package hw

import (
	"encoding/json"
	"reflect"
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
	// Preset decodes one entry alone: it must give what the whole decode
	// gives, for every preset, under every spelling of its name.
	if got, want := Names(), len(c.devices); len(got) != want {
		t.Fatalf("Names: %d, want %d", len(got), want)
	}
	for i, h := range c.devices {
		if Names()[i] != h.Name {
			t.Errorf("Names()[%d] = %q, want %q", i, Names()[i], h.Name)
		}
		one, err := Preset(strings.ToUpper(h.Name))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(one, h.Clone()) {
			t.Errorf("Preset(%q) differs from the catalogue's entry", h.Name)
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

// TestSplitEntries: the preset index splits an array of objects by
// bracket depth outside strings and refuses any other layout.
func TestSplitEntries(t *testing.T) {
	got, err := splitEntries([]byte(` [ {"name": "a", "x": "}{\"]", "y": [1, {"z": 2}]},
	{"name":"b"} ] `))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].name != "a" || got[1].name != "b" || string(got[1].raw) != `{"name":"b"}` {
		t.Fatalf("got %+v", got)
	}
	var v map[string]any
	if err := json.Unmarshal(got[0].raw, &v); err != nil || v["x"] != `}{"]` {
		t.Errorf("first entry %q: %v", got[0].raw, err)
	}
	for _, bad := range []string{``, `{}`, `[{"name": "a"`, `[{"x": 1, "name": "a"}]`, `[{"name": "a\"b"}]`,
		`[{"name": "a"} {"name": "b"}]`, `[{"name": "a"}] x`, `[1]`, `[{"name": 3}]`} {
		if _, err := splitEntries([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
