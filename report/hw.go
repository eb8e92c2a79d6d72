package report

// This file implements the `wolong hw` listings of the hardware catalogue.

import (
	"fmt"
	"io"

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
			fmt.Sprintf("%g", h.MemoryGB), fmt.Sprintf("%g", h.MemoryBandwidthGBs), fmt.Sprint(h.SMs), h.Description})
	}
	return WriteTable(w, []string{"name", "kind", "fp32 TFLOP/s", "tf32", "bf16", "fp16", "fp8", "memory GB", "bandwidth GB/s", "SMs/cores", "description"}, rows)
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
		{"per kernel", fmt.Sprintf("launch %g us + dispatch %g us (host), %g us fixed (device)", h.LaunchUs, h.DispatchUs, h.KernelOverheadUs)},
		{"NVLink / PCIe", fmt.Sprintf("%g / %g GB/s", h.NVLinkGBs, h.PCIeGBs)},
		{"GEMM tile (waves model)", fmt.Sprintf("%dx%d, %d block(s) per SM", h.Efficiency.TileM, h.Efficiency.TileN, h.Efficiency.BlocksPerSM)},
		{"bandwidth fill", fmt.Sprintf("%d blocks of %d bytes per SM", h.Efficiency.MemBlocksPerSM, h.Efficiency.MemBytesPerBlock)},
	}
	ew.check(WriteTable(ew, []string{"field", "value"}, rows))
	fmt.Fprintln(ew, "\nEfficiency (fraction of peak reached by a kernel that fills the device):")
	rows = nil
	for _, c := range h.Efficiency.Classes() {
		rows = append(rows, []string{c.Name, fmt.Sprintf("%.2f", c.Eff.Compute), fmt.Sprintf("%.2f", c.Eff.Memory), fmt.Sprintf("%g", c.Eff.OverheadUs)})
	}
	ew.check(WriteTable(ew, []string{"op class", "compute", "memory", "extra us/kernel"}, rows))
	fmt.Fprintln(ew, "\nSources:")
	for _, s := range h.Sources {
		fmt.Fprintf(ew, "  - %s\n", s)
	}
	fmt.Fprintln(ew, "Assumptions:")
	for _, s := range h.Assumptions {
		fmt.Fprintf(ew, "  - %s\n", s)
	}
	return ew.err
}
