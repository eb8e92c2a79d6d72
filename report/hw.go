package report

// This file implements the `wolong hw` listings of the hardware catalogue
// and of the network presets of the cluster model.

import (
	"fmt"
	"io"
	"strings"

	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func tflops(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%g", v)
}

// WriteHardwareList prints one row per preset.
func WriteHardwareList(w io.Writer, hs []*hw.Hardware) error {
	var rows [][]string
	for _, h := range hs {
		rows = append(rows, []string{h.Name, h.Kind, tflops(h.PeakTFLOPS.FP32), tflops(h.PeakTFLOPS.TF32),
			tflops(h.PeakTFLOPS.BF16), tflops(h.PeakTFLOPS.FP16), tflops(h.PeakTFLOPS.FP8),
			fmt.Sprintf("%g", h.MemoryGB), fmt.Sprintf("%g", h.MemoryBandwidthGBs), fmt.Sprint(h.SMs), describe(h)})
	}
	// narrow terminals lose tf32, fp8, bf16, SMs/cores, kind, in that order
	return TextTable{Header: []string{"name", "kind", "fp32 TFLOP/s", "tf32", "bf16", "fp16", "fp8", "memory GB", "bandwidth GB/s", "SMs/cores", "description"},
		Rows: rows, Drop: []int{3, 6, 4, 9, 1}, Prose: []int{10}}.Write(w)
}

// describe is a preset's description with what it lacks, each item cut
// to its head (before a colon or parenthesis: hw show prints it whole).
func describe(h *hw.Hardware) string {
	if len(h.Lacks) == 0 {
		return h.Description
	}
	heads := make([]string, len(h.Lacks))
	for i, l := range h.Lacks {
		if j := strings.IndexAny(l, ":("); j > 0 {
			l = l[:j]
		}
		heads[i] = strings.TrimSpace(l)
	}
	return h.Description + " [lacks " + strings.Join(heads, "; ") + "]"
}

// WriteHardware prints every field of h, its sources and assumptions.
func WriteHardware(w io.Writer, h *hw.Hardware) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "%s (%s): %s\n\n", h.Name, h.Kind, h.Description)
	p := h.PeakTFLOPS
	rows := [][]string{
		{"peak fp64", tflops(p.FP64) + " TFLOP/s"},
		{"peak fp32 (vector)", tflops(p.FP32) + " TFLOP/s"},
		{"peak tf32 (tensor, dense)", tflops(p.TF32) + " TFLOP/s"},
		{"peak fp16 (tensor, dense)", tflops(p.FP16) + " TFLOP/s"},
		{"peak bf16 (tensor, dense)", tflops(p.BF16) + " TFLOP/s"},
		{"peak fp8 (tensor, dense)", tflops(p.FP8) + " TFLOP/s"},
		{"peak int8 (tensor, dense)", tflops(p.INT8) + " TOP/s"},
		{"memory", fmt.Sprintf("%g GB at %g GB/s", h.MemoryGB, h.MemoryBandwidthGBs)},
		{"L2 / last-level cache", fmt.Sprintf("%g MB", h.L2MB)},
		{"SMs / cores", fmt.Sprintf("%d at %g GHz", h.SMs, h.ClockGHz)},
		{"host", fmt.Sprintf("launch %g us per kernel, dispatch %g us per node", h.LaunchUs, h.DispatchUs)},
		{"device", fmt.Sprintf("%g us fixed per kernel", h.KernelOverheadUs)},
		{"NVLink / PCIe", fmt.Sprintf("%g / %g GB/s", h.NVLinkGBs, h.PCIeGBs)},
		{"GEMM tile (waves model)", fmt.Sprintf("%dx%d, %d block(s) per SM", h.Efficiency.TileM, h.Efficiency.TileN, h.Efficiency.BlocksPerSM)},
		{"bandwidth fill", fmt.Sprintf("%d blocks of %d bytes per SM", h.Efficiency.MemBlocksPerSM, h.Efficiency.MemBytesPerBlock)},
	}
	if h.RunOverheadUs > 0 || h.AllocUsPerMB > 0 || h.FreeNodeUs > 0 {
		rows = append(rows, []string{"executor", fmt.Sprintf("%g us per run, %g us per MB of outputs allocated, %g us per node without a kernel", h.RunOverheadUs, h.AllocUsPerMB, h.FreeNodeUs)})
	}
	if h.InputUs > 0 || h.OutputUs > 0 || h.OutputUsPerMB > 0 {
		rows = append(rows, []string{"binding", fmt.Sprintf("%g us per graph input bound, %g us per output returned, %g us per MB of outputs returned", h.InputUs, h.OutputUs, h.OutputUsPerMB)})
	}
	if h.VariantOf != "" {
		rows = append(rows, []string{"variant of", h.VariantOf + ": --hw " + h.VariantOf + " predicts with this preset on the machine it was fitted on"})
	}
	if h.SubgraphUs > 0 {
		rows = append(rows, []string{"control flow", fmt.Sprintf("%g us per body execution (a Loop or Scan iteration, an If)", h.SubgraphUs)})
	}
	if len(h.Efficiency.Ops) > 0 {
		rows = append(rows, []string{"op efficiencies", fmt.Sprintf("%d op types of their own (see the file)", len(h.Efficiency.Ops))})
	}
	for _, l := range h.Lacks {
		rows = append(rows, []string{"lacks", l})
	}
	if h.Fitted != nil {
		rows = append(rows, []string{"fitted", h.Fitted.Describe()})
	}
	if h.CacheBandwidthGBs > 0 {
		rows = append(rows, []string{"cache bandwidth", fmt.Sprintf("%g GB/s for the first %g MB of a kernel's traffic", h.CacheBandwidthGBs, h.L2MB)})
	}
	if h.CacheWorkingSet {
		ws := fmt.Sprintf("a kernel's weights from the cache while all the model's weights fit in its %g MB, from memory beyond", h.L2MB)
		if f := h.CacheWorkingFraction; f > 0 && f < 1 {
			ws = fmt.Sprintf("a kernel's weights from the cache while all the model's weights fit in %.0f%% of its %g MB; from there to all of it a share rising to all from memory (cache_working_fraction %g)", 100*f, h.L2MB, f)
		}
		rows = append(rows, []string{"weights working set", ws})
	}
	if l := h.GEMMColLanes; l > 0 {
		rows = append(rows, []string{"GEMM lanes", fmt.Sprintf("a GEMM's columns (a convolution's output positions) in blocks of %g vector lanes: N columns keep N / (ceil(N/%g) x %g) of them busy (gemm_col_lanes)", l, l, l)})
	}
	if s := h.WeightStreamStall; s > 0 {
		rows = append(rows, []string{"weight streaming", fmt.Sprintf("%.0f%% of the shorter of a kernel's arithmetic and its streaming of weights past the cache does not overlap (weight_stream_stall)", 100*s)})
	}
	if d := h.DRAMBandwidthGBs; d > 0 && h.L3MB > 0 {
		rows = append(rows, []string{"weights past the L3", fmt.Sprintf("once the model's weights pass half of the %.3g MB L3, a share of them rising to all at %.3g MB streams from DRAM at %.4g GB/s; a GEMM of 8 rows or more adds %.2g x that streaming (or its arithmetic, if shorter) to its time (l3_mb, dram_bandwidth_gbs, dram_stream_stall)", h.L3MB, h.L3MB, d, h.DRAMStreamStall)})
	}
	if r := h.GEMMHalfRows; r > 0 {
		rows = append(rows, []string{"GEMM rows", fmt.Sprintf("a float GEMM of M rows per call computes at M / (M + %g) of its class's speed (gemm_half_rows)", r)})
	}
	if h.ConvIm2col {
		rows = append(rows, []string{"convolution", "im2col + GEMM (staging buffer before the arithmetic)"})
	} else {
		rows = append(rows, []string{"convolution", "implicit GEMM (no staging)"})
	}
	ew.check(WriteTable(ew, []string{"field", "value"}, rows))
	fmt.Fprintln(ew, "\nEfficiency (fraction of peak reached by a kernel that fills the device):")
	rows = nil
	for _, c := range h.Efficiency.Classes() {
		rows = append(rows, []string{c.Name, fmt.Sprintf("%.2f", c.Eff.Compute), fmt.Sprintf("%.2f", c.Eff.Memory), fmt.Sprintf("%g", c.Eff.OverheadUs)})
	}
	ew.check(WriteTable(ew, []string{"op class", "compute", "memory", "extra us/kernel"}, rows))
	writeSourcesAssumptions(ew, h.Sources, h.Assumptions)
	return ew.err
}

// WriteNetworkList prints one row per network preset (--net).
func WriteNetworkList(w io.Writer, ns []*cluster.Network) error {
	var rows [][]string
	for _, n := range ns {
		rdma, gd := "no", "no"
		if n.RDMA {
			rdma = "yes"
		}
		if n.GPUDirect {
			gd = "yes"
		}
		rows = append(rows, []string{n.Name, n.Kind, fmt.Sprintf("%g", n.BandwidthGbps), fmt.Sprintf("%.0f%%", 100*n.Efficiency),
			fmt.Sprintf("%g", n.LatencyUs), fmt.Sprintf("%g", n.CPUPerMessageUs), rdma, gd, fmt.Sprintf("%g", n.TCPGBs), n.Description})
	}
	// narrow terminals lose cpu us/msg, tcp GB/s, achievable, gpudirect, kind
	return TextTable{Header: []string{"network", "kind", "Gb/s", "achievable", "latency us", "cpu us/msg", "rdma", "gpudirect", "tcp GB/s", "description"},
		Rows: rows, Drop: []int{5, 8, 3, 7, 1}, Prose: []int{9}}.Write(w)
}

// WriteNetwork prints every field of a network preset, its sources and
// assumptions.
func WriteNetwork(w io.Writer, n *cluster.Network) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "%s (%s network): %s\n\n", n.Name, n.Kind, n.Description)
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	rows := [][]string{
		{"line rate per NIC", fmt.Sprintf("%g Gb/s per direction (%.2f GB/s)", n.BandwidthGbps, n.BandwidthGbps/8)},
		{"achievable (large transfers)", fmt.Sprintf("%.0f%% = %.2f GB/s", 100*n.Efficiency, n.GBs()/1e9)},
		{"one-way latency", fmt.Sprintf("%g us", n.LatencyUs)},
		{"CPU per message", fmt.Sprintf("%g us", n.CPUPerMessageUs)},
		{"RDMA verbs (one-sided read / write)", yes(n.RDMA)},
		{"GPUDirect RDMA", yes(n.GPUDirect) + map[bool]string{true: "", false: " (transfers staged through host memory over PCIe)"}[n.GPUDirect]},
		{"kernel TCP (what grpc-tcp gets)", fmt.Sprintf("%g GB/s per connection, %g us one-way, %g us CPU per message", n.TCPGBs, n.TCPLatencyUs, n.TCPCPUPerMessageUs)},
		{"registered memory per machine", fmt.Sprintf("%g GB", n.MaxRegisteredGB)},
	}
	ew.check(WriteTable(ew, []string{"field", "value"}, rows))
	writeSourcesAssumptions(ew, n.Sources, n.Assumptions)
	return ew.err
}

// writeSourcesAssumptions lists a preset's sources and assumptions, one
// "  - " line each under their headings.
func writeSourcesAssumptions(w io.Writer, sources, assumptions []string) {
	fmt.Fprintln(w, "\nSources:")
	for _, a := range sources {
		fmt.Fprintf(w, "  - %s\n", a)
	}
	fmt.Fprintln(w, "Assumptions:")
	for _, a := range assumptions {
		fmt.Fprintf(w, "  - %s\n", a)
	}
}

// WriteNode prints the standard machine of a GPU preset: the NICs per GPU
// and network profile --cluster assumes when --nics and --net are not
// given, with its sources.
func WriteNode(w io.Writer, n *hw.Node) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "\nNode (profile / optimize --cluster defaults): %s\n", n.Description)
	fmt.Fprintf(ew, "  --nics: %g per GPU (%d per 8-GPU machine); --net: %s\n", n.NICsPerGPU, n.NICs(8), n.Network)
	for _, s := range n.Sources {
		fmt.Fprintf(ew, "  - %s\n", s)
	}
	return ew.err
}
