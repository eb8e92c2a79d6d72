package hw

// This file chooses, for a CPU preset, the variant of it fitted on the
// machine at hand. A CPU preset describes the one machine it was fitted
// on (Fitted), yet a name such as cpu-1t stands for a machine class (one
// thread of the 2-vCPU virtual machines wolong is developed and judged
// on), and the class has held more than one CPU: the catalogue keeps the
// preset fitted on each (variant_of names the preset a variant stands in
// for), and --hw NAME predicts with the one fitted on this CPU. A machine
// that matches no variant gets the preset itself and HostMismatch's
// warning. Exact names (cpu-1t-xeon) always mean that preset.

import (
	"bytes"
	"strings"
)

// ResolveOn is Resolve, except that a CPU preset with a variant fitted on
// the machine host describes resolves to that variant (its own name, so
// every report says which). host is called only when the preset has
// variants and was not itself fitted on the machine.
func ResolveOn(arg string, host func() CPUInfo) (*Hardware, error) {
	h, err := Resolve(arg)
	if err != nil || h.Kind != "cpu" || h.Fitted == nil || host == nil || !strings.EqualFold(h.Name, arg) {
		return h, err
	}
	vs := variants(h.Name)
	if len(vs) == 0 {
		return h, nil
	}
	cpu := host()
	if h.Fitted.describes(cpu) {
		return h, nil
	}
	for _, v := range vs {
		if v.Fitted != nil && v.Fitted.describes(cpu) {
			return v, nil
		}
	}
	return h, nil
}

// variants returns the presets whose variant_of is name, in catalogue
// order (decoding only the entries that mention variant_of).
func variants(name string) []*Hardware {
	idx, err := presetIndex()
	if err != nil {
		return nil
	}
	var out []*Hardware
	for _, p := range idx {
		if strings.EqualFold(p.name, name) || !bytes.Contains(p.raw, []byte(`"variant_of"`)) {
			continue
		}
		v, err := Preset(p.name)
		if err == nil && strings.EqualFold(v.VariantOf, name) {
			out = append(out, v)
		}
	}
	return out
}

// Variants lists the names of the presets that stand in for name on other
// machines (hw show prints them).
func Variants(name string) []string {
	var out []string
	for _, v := range variants(name) {
		out = append(out, v.Name)
	}
	return out
}
