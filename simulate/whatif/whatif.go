// Package whatif names the hardware parameters a prediction rests on and
// asks how the prediction moves with each: the elasticity of the total
// to each parameter (the total at -20% and +20% of it, ranked by effect)
// and --set overrides ("bw=+30%"). A parameter scales fields of the
// hardware file (the --hw schema), so every figure equals a run on a
// hardware file edited by hand the same way.
package whatif

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// Param is one hardware parameter: the hardware-file fields it scales.
type Param struct {
	Name   string // what --set and the tables call it
	Fields string // the hardware-file fields, as written there
	Doc    string
	get    func(h *hw.Hardware) float64
	// scale multiplies the parameter by f: its fields by f, or by 1/f for
	// a speed whose fields are times (host).
	scale func(h *hw.Hardware, f float64)
}

func field(name, json, doc string, p func(h *hw.Hardware) *float64) Param {
	return Param{Name: name, Fields: json, Doc: doc,
		get:   func(h *hw.Hardware) float64 { return *p(h) },
		scale: func(h *hw.Hardware, f float64) { *p(h) *= f }}
}

// hostFields are the host's times: a faster host divides them all.
func hostFields(h *hw.Hardware) []*float64 {
	return []*float64{&h.LaunchUs, &h.DispatchUs, &h.RunOverheadUs, &h.AllocUsPerMB, &h.FreeNodeUs, &h.SubgraphUs, &h.OutputUsPerMB, &h.InputUs, &h.OutputUs, &h.InputUsPerMB, &h.ShapeNodeUs}
}

// Params lists every parameter, in a fixed order.
func Params() []Param {
	return []Param{
		field("peak_fp32", "peak_tflops.fp32", "fp32 peak of the vector units, TFLOP/s", func(h *hw.Hardware) *float64 { return &h.PeakTFLOPS.FP32 }),
		field("peak_tf32", "peak_tflops.tf32", "tf32 tensor-core peak, TFLOP/s", func(h *hw.Hardware) *float64 { return &h.PeakTFLOPS.TF32 }),
		field("peak_fp16", "peak_tflops.fp16", "fp16 tensor-core peak, TFLOP/s", func(h *hw.Hardware) *float64 { return &h.PeakTFLOPS.FP16 }),
		field("peak_bf16", "peak_tflops.bf16", "bf16 tensor-core peak, TFLOP/s", func(h *hw.Hardware) *float64 { return &h.PeakTFLOPS.BF16 }),
		field("peak_fp8", "peak_tflops.fp8", "fp8 tensor-core peak, TFLOP/s", func(h *hw.Hardware) *float64 { return &h.PeakTFLOPS.FP8 }),
		field("peak_int8", "peak_tflops.int8", "int8 peak, TOP/s", func(h *hw.Hardware) *float64 { return &h.PeakTFLOPS.INT8 }),
		field("peak_fp64", "peak_tflops.fp64", "fp64 peak, TFLOP/s", func(h *hw.Hardware) *float64 { return &h.PeakTFLOPS.FP64 }),
		field("peak_fp16_vector", "peak_tflops.fp16_vector", "fp16 peak of the vector units, TFLOP/s", func(h *hw.Hardware) *float64 { return &h.PeakTFLOPS.FP16Vector }),
		field("bw", "memory_bandwidth_gbs", "device memory bandwidth, GB/s", func(h *hw.Hardware) *float64 { return &h.MemoryBandwidthGBs }),
		field("cache_bw", "cache_bandwidth_gbs", "last-level cache bandwidth, GB/s", func(h *hw.Hardware) *float64 { return &h.CacheBandwidthGBs }),
		field("launch", "launch_us", "host time to launch one kernel, us", func(h *hw.Hardware) *float64 { return &h.LaunchUs }),
		field("dispatch", "dispatch_us", "framework dispatch per executed node, us", func(h *hw.Hardware) *float64 { return &h.DispatchUs }),
		field("kernel_overhead", "kernel_overhead_us", "fixed device time per kernel, us", func(h *hw.Hardware) *float64 { return &h.KernelOverheadUs }),
		{Name: "host", Fields: "launch_us, dispatch_us, run_overhead_us, alloc_us_per_mb, free_node_us, subgraph_us, output_us_per_mb, input_us, output_us, input_us_per_mb, shape_node_us (divided)",
			Doc: "host speed: +20% divides every host time by 1.2",
			get: func(h *hw.Hardware) float64 { return 1 },
			scale: func(h *hw.Hardware, f float64) {
				for _, p := range hostFields(h) {
					*p /= f
				}
			}},
		field("nvlink", "nvlink_gbs", "NVLink bandwidth per direction, GB/s (clusters)", func(h *hw.Hardware) *float64 { return &h.NVLinkGBs }),
		field("pcie", "pcie_gbs", "PCIe bandwidth per direction, GB/s (clusters)", func(h *hw.Hardware) *float64 { return &h.PCIeGBs }),
	}
}

// Names lists the parameter names (for completion and errors).
func Names() []string {
	var out []string
	for _, p := range Params() {
		out = append(out, p.Name)
	}
	return out
}

// aliases are other spellings of parameter names (--set accepts them;
// tables and JSON use the name).
var aliases = map[string]string{"nvlink_bw": "nvlink", "pcie_bw": "pcie", "mem_bw": "bw", "memory_bw": "bw", "micro-batch": "micro_batch", "mb": "micro_batch"}

// canonical spells name as the tables do.
func canonical(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := aliases[n]; ok {
		return a
	}
	return n
}

// Lookup returns the parameter called name.
func Lookup(name string) (Param, bool) {
	n := canonical(name)
	for _, p := range Params() {
		if p.Name == n {
			return p, true
		}
	}
	return Param{}, false
}

// Value is the parameter's value on h (1 for host speed, a relative
// figure).
func (p Param) Value(h *hw.Hardware) float64 { return p.get(h) }

// Scaled returns a copy of h with the parameter multiplied by f.
func (p Param) Scaled(h *hw.Hardware, f float64) *hw.Hardware {
	c := h.Clone()
	p.scale(c, f)
	return c
}

// Set is one --set override: a parameter and the factor it is scaled by.
type Set struct {
	Param  Param
	Factor float64
	Spec   string // as given: "bw=+30%"
}

// Change is one --set value as written: a relative change (Factor) or an
// absolute value (Abs, when Factor is 0).
type Change struct {
	Name   string // the parameter, canonical
	Factor float64
	Abs    float64
	Spec   string // as given: "bw=+30%"
}

// ParseChange parses "NAME=+30%", "NAME=-20%", "NAME=x1.5" or
// "NAME=VALUE"; known lists the names the run takes (an unknown one is an
// error listing them).
func ParseChange(spec string, known []string) (Change, error) {
	name, val, ok := strings.Cut(spec, "=")
	if !ok {
		return Change{}, fmt.Errorf("--set %q: want NAME=+N%%, NAME=-N%%, NAME=xF or NAME=VALUE (names: %s)", spec, strings.Join(known, ", "))
	}
	c := Change{Name: canonical(name), Spec: spec}
	if !slices.Contains(known, c.Name) {
		return Change{}, fmt.Errorf("--set %q: unknown parameter %q (known: %s)", spec, name, strings.Join(known, ", "))
	}
	val = strings.TrimSpace(val)
	var err error
	switch {
	case strings.HasSuffix(val, "%"):
		var pct float64
		pct, err = strconv.ParseFloat(strings.TrimSuffix(val, "%"), 64)
		c.Factor = 1 + pct/100
	case strings.HasPrefix(val, "x") || strings.HasPrefix(val, "*"):
		c.Factor, err = strconv.ParseFloat(val[1:], 64)
	default:
		c.Abs, err = strconv.ParseFloat(val, 64)
		if err == nil && !(c.Abs > 0 && !math.IsInf(c.Abs, 0)) {
			err = fmt.Errorf("not positive")
		}
	}
	if err != nil || (c.Abs == 0 && (!(c.Factor > 0) || math.IsInf(c.Factor, 0))) {
		return Change{}, fmt.Errorf("--set %q: the change must leave the parameter positive and finite", spec)
	}
	return c, nil
}

// FactorOn is the factor the change scales a parameter of value cur by
// (an absolute value over cur); relative says the parameter takes only
// relative changes (host speed).
func (c Change) FactorOn(cur float64, relative bool, on string) (float64, error) {
	if c.Abs == 0 {
		return c.Factor, nil
	}
	if relative || cur <= 0 {
		return 0, fmt.Errorf("--set %q: %s is %g on %s: give a relative change (+N%%, -N%%, xF)", c.Spec, c.Name, cur, on)
	}
	return c.Abs / cur, nil
}

// ParseSet parses "NAME=+30%", "NAME=-20%", "NAME=x1.5" or "NAME=VALUE"
// (an absolute value, for a parameter of one field) against h.
func ParseSet(spec string, h *hw.Hardware) (Set, error) {
	c, err := ParseChange(spec, Names())
	if err != nil {
		return Set{}, err
	}
	p, _ := Lookup(c.Name)
	f, err := c.FactorOn(p.Value(h), p.Name == "host", h.Name)
	if err != nil {
		return Set{}, err
	}
	return Set{Param: p, Factor: f, Spec: spec}, nil
}

// Apply returns h with every override applied, in order.
func Apply(h *hw.Hardware, sets []Set) *hw.Hardware {
	for _, s := range sets {
		h = s.Param.Scaled(h, s.Factor)
	}
	return h
}

// Row is one parameter's effect on the total: the total with the
// parameter at MinusValue and at PlusValue (-20% and +20% of Value for a
// hardware, network or host parameter; the neighbouring valid values for
// a parallel degree or batch), the others as given.
type Row struct {
	Param      string  `json:"param"`
	Fields     string  `json:"fields"`
	Value      float64 `json:"value"`
	MinusMs    float64 `json:"minus_20_ms"` // total with the parameter at -20% (MinusValue)
	PlusMs     float64 `json:"plus_20_ms"`  // total with the parameter at +20% (PlusValue)
	Elasticity float64 `json:"elasticity"`  // d ln(total) / d ln(parameter), by central difference
	MinusValue float64 `json:"minus_value"` // the parameter's value at MinusMs
	PlusValue  float64 `json:"plus_value"`  // and at PlusMs
	// Note says why a side stays at Value (no valid smaller or larger
	// degree) and which values were skipped.
	Note string `json:"note,omitempty"`
	// MinusServe and PlusServe are a serving run's figures at each side.
	MinusServe *ServePoint `json:"minus_20_serving,omitempty"`
	PlusServe  *ServePoint `json:"plus_20_serving,omitempty"`
}

// ServePoint is what a serving prediction gives beside its total.
type ServePoint struct {
	TokensPerS float64 `json:"tokens_per_s"` // generated tokens per second, over the cluster
	TTFTMs     float64 `json:"ttft_ms"`      // time to first token (mean over the requests)
	TPOTMs     float64 `json:"tpot_ms"`      // time per output token (mean)
}

// Point is one prediction's total (and, serving, its other figures).
type Point struct {
	Ms    float64
	Serve *ServePoint
}

// Step is the relative change of each parameter (20%).
const Step = 0.2

// Sweep predicts the total at -Step and +Step of every parameter h has
// (non-zero) with predict, and ranks the parameters by the spread of the
// two totals, largest first (ties in the order of Params). baseMs is the
// total on h itself.
func Sweep(h *hw.Hardware, baseMs float64, predict func(*hw.Hardware) (float64, error)) ([]Row, error) {
	var rows []Row
	for _, p := range Params() {
		v := p.Value(h)
		if !(v > 0) {
			continue
		}
		lo, err := predict(p.Scaled(h, 1-Step))
		if err != nil {
			return nil, err
		}
		hi, err := predict(p.Scaled(h, 1+Step))
		if err != nil {
			return nil, err
		}
		rows = append(rows, newRow(p.Name, p.Fields, v, Point{Ms: lo}, Point{Ms: hi}, 1-Step, 1+Step))
	}
	Rank(rows)
	return rows, nil
}

// newRow is the row of a parameter of value v whose totals are lo at
// v x fm and hi at v x fp.
func newRow(name, fields string, v float64, lo, hi Point, fm, fp float64) Row {
	r := Row{Param: name, Fields: fields, Value: v, MinusMs: lo.Ms, PlusMs: hi.Ms, MinusValue: v * fm, PlusValue: v * fp,
		MinusServe: lo.Serve, PlusServe: hi.Serve}
	if lo.Ms > 0 && hi.Ms > 0 && fp > fm {
		r.Elasticity = math.Log(hi.Ms/lo.Ms) / math.Log(fp/fm)
	}
	return r
}

// Rank orders rows by the spread of their two totals, largest first
// (stable: ties keep their order).
func Rank(rows []Row) {
	sort.SliceStable(rows, func(i, j int) bool {
		return math.Abs(rows[i].PlusMs-rows[i].MinusMs) > math.Abs(rows[j].PlusMs-rows[j].MinusMs)
	})
}
