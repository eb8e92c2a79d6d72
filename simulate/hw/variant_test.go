package hw

import (
	"strings"
	"testing"
)

// TestVariants: every variant_of names a CPU preset; a variant was fitted
// on a machine of its own (not the preset's, not another variant's), so
// that one machine picks one preset.
func TestVariants(t *testing.T) {
	seen := map[string]bool{}
	for _, h := range Presets() {
		if h.VariantOf == "" {
			continue
		}
		base, err := Preset(h.VariantOf)
		if err != nil || base.Kind != "cpu" || h.Kind != "cpu" || base.VariantOf != "" {
			t.Errorf("%s: variant_of %q must name a CPU preset that is no variant (%v)", h.Name, h.VariantOf, err)
			continue
		}
		if h.Fitted == nil || base.Fitted == nil || h.Fitted.Threads != base.Fitted.Threads {
			t.Errorf("%s: a variant and its preset say where they were fitted, with as many threads", h.Name)
			continue
		}
		cpu := CPUInfo{Model: h.Fitted.CPU, ID: h.Fitted.CPUID, Cores: h.Fitted.Cores}
		if base.Fitted.describes(cpu) || seen[base.Name+"/"+cpu.String()] {
			t.Errorf("%s: fitted on %s, which %s or another of its variants describes", h.Name, cpu, base.Name)
		}
		seen[base.Name+"/"+cpu.String()] = true
	}
}

// TestResolveOn: cpu-1t on the machine its Xeon or its Zen 3 variant was
// fitted on is that variant; on the preset's own machine, on an unknown
// one, and by exact name, the preset as named; a GPU preset never reads
// the host.
func TestResolveOn(t *testing.T) {
	xeon, err := Preset("cpu-1t-xeon")
	if err != nil {
		t.Fatal(err)
	}
	zen3, err := Preset("cpu-1t-zen3")
	if err != nil {
		t.Fatal(err)
	}
	base, err := Preset("cpu-1t")
	if err != nil {
		t.Fatal(err)
	}
	on := func(f *Fitted) func() CPUInfo {
		return func() CPUInfo { return CPUInfo{Model: f.CPU, ID: f.CPUID, Cores: f.Cores} }
	}
	for _, tc := range []struct {
		arg  string
		host func() CPUInfo
		want string
	}{
		{"cpu-1t", on(xeon.Fitted), "cpu-1t-xeon"},
		{"CPU-1T", on(xeon.Fitted), "cpu-1t-xeon"},
		{"cpu-1t", on(zen3.Fitted), "cpu-1t-zen3"},
		{"cpu-1t", on(base.Fitted), "cpu-1t"},
		{"cpu-1t", func() CPUInfo { return CPUInfo{Model: "Some CPU", Cores: 2} }, "cpu-1t"},
		{"cpu-1t", func() CPUInfo { return CPUInfo{} }, "cpu-1t"},
		{"cpu-1t", nil, "cpu-1t"},
		{"cpu-1t-xeon", on(base.Fitted), "cpu-1t-xeon"},
		{"h100", func() CPUInfo { t.Error("h100 read the host"); return CPUInfo{} }, "h100"},
	} {
		h, err := ResolveOn(tc.arg, tc.host)
		if err != nil || h.Name != tc.want {
			t.Errorf("ResolveOn(%q) = %v, %v; want %s", tc.arg, h, err, tc.want)
		}
	}
	// a machine with the variant's model name but another ID is not it
	other := CPUInfo{Model: xeon.Fitted.CPU, ID: "GenuineIntel 6/143/8", Cores: xeon.Fitted.Cores}
	if h, _ := ResolveOn("cpu-1t", func() CPUInfo { return other }); h.Name != "cpu-1t" {
		t.Errorf("cpu-1t on %s = %s, want cpu-1t", other, h.Name)
	}
	// two AMD EPYCs of one model name: the ID tells them apart
	if zen3.Fitted.CPU != base.Fitted.CPU || zen3.Fitted.CPUID == base.Fitted.CPUID {
		t.Errorf("cpu-1t-zen3 fitted on %q (%s), cpu-1t on %q (%s): want one name, two IDs", zen3.Fitted.CPU, zen3.Fitted.CPUID, base.Fitted.CPU, base.Fitted.CPUID)
	}
	if got := Variants("cpu-1t"); len(got) != 2 || !strings.EqualFold(got[0], "cpu-1t-xeon") || !strings.EqualFold(got[1], "cpu-1t-zen3") {
		t.Errorf("Variants(cpu-1t) = %v", got)
	}
}
