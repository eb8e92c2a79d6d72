package report

// This file implements --format csv: the rows a spreadsheet wants, one
// header row, numbers unformatted (seconds as milliseconds, counts and
// bytes whole, shares as fractions).

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func optNum(p *int64) string {
	if p == nil {
		return ""
	}
	return fmt.Sprint(*p)
}

// WriteCSV prints the per-node table (inspect --nodes) as CSV: inputs and
// outputs as their types joined by ';', unknown values empty.
func (r *Inspect) WriteCSV(w io.Writer) error {
	rows := make([][]string, len(r.NodeTable))
	for i, n := range r.NodeTable {
		share := ""
		if n.MACShare != nil {
			share = num(*n.MACShare)
		}
		rows[i] = []string{fmt.Sprint(i), n.Name, n.Op, strings.Join(typesOf(n.Inputs), ";"), strings.Join(typesOf(n.Outputs), ";"),
			optNum(n.OutputBytes), fmt.Sprint(n.Params), optNum(n.MACs), share, optNum(n.FLOPs)}
	}
	return WriteCSV(w, []string{"index", "node", "op", "inputs", "outputs", "output_bytes", "params", "macs", "mac_share", "flops"}, rows)
}

// WriteCSV prints every node (by "node") or every op type (by "op") of
// the profile as CSV, in the order of the JSON.
func (p *Profile) WriteCSV(w io.Writer, by string) error {
	if by == "op" {
		rows := make([][]string, len(p.Ops))
		for i, o := range p.Ops {
			rows[i] = []string{o.Op, fmt.Sprint(o.Count), fmt.Sprint(o.Kernels), num(o.FLOPs), num(o.Bytes), num(o.Intensity), o.Bound, num(o.TimeMs), num(o.Share)}
		}
		return WriteCSV(w, []string{"op", "nodes", "kernels", "flops", "bytes", "flop_per_byte", "bound", "time_ms", "share"}, rows)
	}
	rows := make([][]string, len(p.Nodes))
	for i, n := range p.Nodes {
		rows[i] = []string{n.Name, n.Op, n.Phase, n.Class, n.Bound, num(n.FLOPs), num(n.Bytes), num(n.Intensity), fmt.Sprint(n.Kernels),
			num(n.TimeMs), num(n.HostMs), num(n.StartMs), fmt.Sprint(n.Stream), num(n.Share)}
	}
	return WriteCSV(w, []string{"node", "op", "phase", "class", "bound", "flops", "bytes", "flop_per_byte", "kernels", "time_ms", "host_ms", "start_ms", "stream", "share"}, rows)
}

// WriteCSV prints one row per cluster size of the sweep.
func (s *Scaling) WriteCSV(w io.Writer) error {
	rows := make([][]string, len(s.Points))
	for i, p := range s.Points {
		rows[i] = []string{fmt.Sprint(p.GPUs), fmt.Sprint(p.Machines), fmt.Sprint(p.GPUsPerMachine), string(p.Strategy), num(p.StepMs), num(p.CommMs), num(p.BubbleMs),
			num(p.Throughput), num(p.Speedup), num(p.Efficiency), p.Declined}
	}
	return WriteCSV(w, []string{"gpus", "machines", "gpus_per_machine", "strategy", "step_ms", "comm_ms", "bubble_ms", "throughput", "speedup", "efficiency", "declined"}, rows)
}

// WriteHardwareCSV prints one row per hardware preset.
func WriteHardwareCSV(w io.Writer, hs []*hw.Hardware) error {
	rows := make([][]string, len(hs))
	for i, h := range hs {
		p := h.PeakTFLOPS
		rows[i] = []string{h.Name, h.Kind, num(p.FP64), num(p.FP32), num(p.TF32), num(p.BF16), num(p.FP16), num(p.FP8), num(p.INT8),
			num(h.MemoryGB), num(h.MemoryBandwidthGBs), num(h.L2MB), fmt.Sprint(h.SMs), num(h.ClockGHz), h.Description}
	}
	return WriteCSV(w, []string{"name", "kind", "fp64_tflops", "fp32_tflops", "tf32_tflops", "bf16_tflops", "fp16_tflops", "fp8_tflops", "int8_tops",
		"memory_gb", "bandwidth_gbs", "l2_mb", "sms_or_cores", "clock_ghz", "description"}, rows)
}

// WriteNetworkCSV prints one row per network preset.
func WriteNetworkCSV(w io.Writer, ns []*cluster.Network) error {
	rows := make([][]string, len(ns))
	for i, n := range ns {
		rows[i] = []string{n.Name, n.Kind, num(n.BandwidthGbps), num(n.Efficiency), num(n.LatencyUs), num(n.CPUPerMessageUs),
			strconv.FormatBool(n.RDMA), strconv.FormatBool(n.GPUDirect), num(n.TCPGBs), n.Description}
	}
	return WriteCSV(w, []string{"name", "kind", "bandwidth_gbps", "efficiency", "latency_us", "cpu_us_per_message", "rdma", "gpudirect", "tcp_gbs", "description"}, rows)
}
