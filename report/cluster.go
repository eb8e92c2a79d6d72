package report

// This file implements the distributed `wolong profile --cluster` report:
// one step on a cluster split into compute, exposed communication and
// pipeline bubbles, per-link utilization, the step under every transport
// against grpc-tcp, the strategies auto compared, pipeline stages; and the
// `--sweep` scaling table with its JSON form.

import (
	"fmt"
	"io"

	"github.com/wolong-dev/wolong/simulate/cluster"
)

// ClusterProfile is what `wolong profile --cluster` prints. The JSON form
// carries the cluster result's fields at the top level (step_ms,
// compute_ms, comm_ms, bubble_ms, efficiency, throughput, links,
// transports, candidates, stages...) and a description of the cluster.
type ClusterProfile struct {
	Model string `json:"model"`
	*cluster.Result
	Machines       int     `json:"machines"`
	GPUsPerMachine int     `json:"gpus_per_machine"`
	NICsPerMachine int     `json:"nics_per_machine"`
	IntraLink      string  `json:"intra_link"`        // nvlink or pcie
	HiddenCommMs   float64 `json:"hidden_comm_ms"`    // communication overlapped with compute
	NetworkGbps    float64 `json:"network_gbps"`      // line rate per NIC
	NetworkRDMA    bool    `json:"network_rdma"`      // RDMA verbs available
	GPUDirect      bool    `json:"network_gpudirect"` // NIC reads / writes GPU memory
	// Breakdown splits step_ms into causes; ErrorBand is how sure it is.
	Breakdown []Cause    `json:"breakdown"`
	ErrorBand *ErrorBand `json:"error_band"`
	Caveats
}

// NewClusterProfile wraps a cluster simulation of model on c. assumptions
// are the command's own (defaults it chose); warnings the import,
// inference and single-GPU simulation messages that came before.
func NewClusterProfile(model string, c *cluster.Cluster, r *cluster.Result, assumptions, warnings []string) *ClusterProfile {
	p := &ClusterProfile{
		Model: model, Result: r,
		Machines: c.Machines, GPUsPerMachine: c.GPUsPerMachine, NICsPerMachine: max(1, c.NICsPerMachine), IntraLink: c.Intra,
		HiddenCommMs: max(0, r.CommTotalMs-r.CommMs),
		NetworkGbps:  c.Net.BandwidthGbps, NetworkRDMA: c.Net.RDMA, GPUDirect: c.Net.GPUDirect,
		Caveats: caveatsOf(assumptions, warnings, r.Caveats),
	}
	p.Breakdown, p.ErrorBand = clusterWhy(c, r)
	return p
}

// share formats part of whole as a percentage ("-" when whole is 0).
func share(part, whole float64) string {
	if whole <= 0 {
		return "-"
	}
	return Pct(part / whole)
}

// WriteText prints the step split, scaling, links, transports, strategies
// compared, pipeline stages, assumptions and warnings.
func (p *ClusterProfile) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	r := p.Result
	fmt.Fprintf(ew, "Model: %s\n", p.Model)
	fmt.Fprintf(ew, "Cluster: %s = %d GPU(s) (%d machine(s) x %d %s, %s inside a machine), network %s (%g Gb/s x %d NIC(s) per machine",
		r.Cluster, r.GPUs, p.Machines, p.GPUsPerMachine, r.GPU, p.IntraLink, r.Network, p.NetworkGbps, p.NICsPerMachine)
	switch {
	case p.NetworkRDMA && p.GPUDirect:
		fmt.Fprint(ew, ", RDMA, GPUDirect")
	case p.NetworkRDMA:
		fmt.Fprint(ew, ", RDMA, staged through host memory")
	default:
		fmt.Fprint(ew, ", no RDMA")
	}
	fmt.Fprintln(ew, ")")
	batch := "as the model gives it"
	if r.Batch > 0 {
		batch = fmt.Sprintf("%d per GPU", r.Batch)
	}
	strat := string(r.Strategy)
	if r.Algorithm != "" {
		strat += fmt.Sprintf(" (%s", r.Algorithm)
		if r.Buckets > 0 {
			strat += fmt.Sprintf(", %d fused all-reduce(s)", r.Buckets)
		}
		strat += ")"
	}
	if r.Schedule != "" {
		strat += fmt.Sprintf(" (%s, %d micro-batches, %d stages)", r.Schedule, r.Micro, len(r.Stages))
	}
	fmt.Fprintf(ew, "Strategy: %s, transport %s, mode %s, batch %s (global %g samples per step)\n\n", strat, r.Transport, r.Mode, batch, r.GlobalBatch)

	fmt.Fprintf(ew, "Predicted step time: %s, throughput %.4g samples/s\n", Millis(r.StepMs/1e3), r.Throughput)
	rows := [][]string{
		{"compute (busiest GPU)", Millis(r.ComputeMs / 1e3), share(r.ComputeMs, r.StepMs)},
		{"exposed communication", Millis(r.CommMs / 1e3), share(r.CommMs, r.StepMs)},
		{"pipeline bubbles", Millis(r.BubbleMs / 1e3), share(r.BubbleMs, r.StepMs)},
	}
	ew.check(WriteTable(ew, []string{"part of the step", "time", "share"}, rows))
	fmt.Fprintf(ew, "All communication %s, of which %s hidden behind compute.\n", Millis(r.CommTotalMs/1e3), Millis(p.HiddenCommMs/1e3))
	fmt.Fprintf(ew, "Scaling: %.2fx over one GPU doing the same work (one-GPU step %s), efficiency %s\n",
		r.Speedup, Millis(r.OneGPUMs/1e3), Pct(r.Efficiency))

	if len(r.Links) > 0 {
		fmt.Fprintln(ew, "\nLink utilization (busy time over the step):")
		rows = nil
		for _, l := range r.Links {
			b := "-"
			if l.Bytes > 0 {
				b = SI(l.Bytes) + "B"
			}
			rows = append(rows, []string{l.Link, b, Millis(l.BusyMs / 1e3), Pct(l.Utilization)})
		}
		ew.check(WriteTable(ew, []string{"link", "bytes per step", "busy", "utilization"}, rows))
	}
	if len(r.Transports) > 0 {
		fmt.Fprintf(ew, "\nTransports (strategy %s, every cross-machine transfer costed with each):\n", r.Strategy)
		rows = nil
		for _, t := range r.Transports {
			mark := ""
			if t.Transport == r.Transport {
				mark = " (selected)"
			}
			rows = append(rows, []string{string(t.Transport) + mark, Millis(t.StepMs / 1e3), fmt.Sprintf("%.2fx", t.SpeedupVsGRPCTCP)})
		}
		ew.check(WriteTable(ew, []string{"transport", "step", "speedup vs grpc-tcp"}, rows))
	} else if p.Machines < 2 {
		fmt.Fprintln(ew, "\nTransports: one machine, nothing crosses the network (no transport comparison).")
	}
	if len(r.Candidates) > 0 {
		fmt.Fprintln(ew, "\nStrategies compared by auto (highest throughput wins):")
		rows = nil
		for _, c := range r.Candidates {
			if c.Declined != "" {
				rows = append(rows, []string{string(c.Strategy), "-", "-", "declined: " + c.Declined})
				continue
			}
			note := ""
			if c.Strategy == r.Strategy {
				note = "picked"
			}
			rows = append(rows, []string{string(c.Strategy), Millis(c.StepMs / 1e3), fmt.Sprintf("%.4g", c.Throughput), note})
		}
		ew.check(WriteTable(ew, []string{"strategy", "step", "samples/s", "note"}, rows))
	}
	if len(r.Stages) > 0 {
		fmt.Fprintln(ew, "\nPipeline stages:")
		rows = nil
		for i, s := range r.Stages {
			rows = append(rows, []string{fmt.Sprint(i), s.Device.String(), fmt.Sprint(s.Ops), s.First + " .. " + s.Last,
				Millis(s.ComputeMs / 1e3), SI(s.CutBytes) + "B", Millis(s.TransferMs / 1e3), Bytes(int64(s.PeakActivationBytes)), Bytes(int64(s.ParamBytes))})
		}
		ew.check(WriteTable(ew, []string{"stage", "device", "ops", "nodes", "compute", "cut bytes", "transfer/micro", "activations", "params"}, rows))
	}
	writeNotes(ew, p.Assumptions)
	return ew.err
}

// writeNotes prints the assumptions (warnings go to stderr, from the
// command).
func writeNotes(ew *errWriter, assumptions []string) {
	fmt.Fprintln(ew, "\nAssumptions:")
	for _, a := range assumptions {
		fmt.Fprintf(ew, "  - %s\n", a)
	}
}

// Scaling is what `wolong profile --sweep` prints: one row per cluster
// size.
type Scaling struct {
	Model          string               `json:"model"`
	GPU            string               `json:"gpu"`
	Network        string               `json:"network"`
	Strategy       string               `json:"strategy"`
	Transport      string               `json:"transport"`
	Mode           string               `json:"mode"`
	Batch          int64                `json:"batch_per_gpu"` // 0: as the model gives it
	GPUsPerMachine int                  `json:"gpus_per_machine"`
	Points         []cluster.SweepPoint `json:"points"`
	Caveats
}

// WriteText prints the scaling table.
func (s *Scaling) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Model: %s\n", s.Model)
	batch := "as the model gives it"
	if s.Batch > 0 {
		batch = fmt.Sprintf("%d per GPU", s.Batch)
	}
	fmt.Fprintf(ew, "Scaling on %s over %s, machines of %d GPU(s): strategy %s, transport %s, mode %s, batch %s\n\n",
		s.GPU, s.Network, s.GPUsPerMachine, s.Strategy, s.Transport, s.Mode, batch)
	var rows [][]string
	declined := 0
	for _, p := range s.Points {
		shape := fmt.Sprintf("%dx%d", p.Machines, p.GPUsPerMachine)
		if p.Declined != "" {
			declined++
			rows = append(rows, []string{fmt.Sprint(p.GPUs), shape, string(p.Strategy), "-", "-", "-", "-", "-", "-", "declined: " + p.Declined})
			continue
		}
		rows = append(rows, []string{fmt.Sprint(p.GPUs), shape, string(p.Strategy), Millis(p.StepMs / 1e3), Millis(p.CommMs / 1e3), Millis(p.BubbleMs / 1e3),
			fmt.Sprintf("%.4g", p.Throughput), fmt.Sprintf("%.2fx", p.Speedup), Pct(p.Efficiency), ""})
	}
	ew.check(TextTable{Header: []string{"GPUs", "cluster", "strategy", "step", "exposed comm", "bubbles", "samples/s", "speedup", "efficiency", "note"},
		Rows: rows, Drop: []int{5, 1, 4}, Prose: []int{9}}.Write(ew))
	if declined > 0 {
		fmt.Fprintf(ew, "%d size(s) declined by the strategy (see note).\n", declined)
	}
	writeNotes(ew, s.Assumptions)
	return ew.err
}

// NewScaling is profile --sweep's report: model's steps on the sizes
// swept (pts) of clusters like c, connected by net, with copt; prof is
// the one-GPU step the sweep scaled; batch is --batch (0: the model's);
// assumptions are the command's, warnings the model's and the profile's.
func NewScaling(model string, batch int64, c *cluster.Cluster, net *cluster.Network, copt cluster.Options, prof *cluster.Profile, pts []cluster.SweepPoint, assumptions, warnings []string) *Scaling {
	gpu := c.GPU
	s := &Scaling{Model: model, GPU: gpu.Name, Network: net.Name, Strategy: string(copt.Strategy), Transport: string(copt.Transport),
		Mode: string(copt.Mode), Batch: batch, GPUsPerMachine: c.GPUsPerMachine, Points: pts, Caveats: Caveats{Warnings: warnings}}
	s.Assumptions = append(s.Assumptions, assumptions...)
	s.Assumptions = append(s.Assumptions, fmt.Sprintf("machines of %d %s GPU(s) (%s inside a machine at %.0f GB/s), %d NIC(s) per machine at %g Gb/s (%.0f%% achievable); a size below %d is one machine",
		c.GPUsPerMachine, gpu.Name, c.Intra, c.IntraGBs()/1e9, c.NICsPerMachine, net.BandwidthGbps, 100*net.Efficiency, c.GPUsPerMachine))
	s.Assumptions = append(s.Assumptions, c.Assumptions()[1:]...) // [0] is the base cluster's size
	s.Assumptions = append(s.Assumptions, prof.Notes...)
	s.Assumptions = append(s.Assumptions, fmt.Sprintf("one-GPU training step from simulate on %s: forward %.3f ms, backward %.3f ms, optimizer %.3f ms, %d parameter tensors (%.1f MB)",
		gpu.Name, prof.ForwardS*1e3, prof.BackwardS*1e3, prof.OptimizerS*1e3, len(prof.Params), prof.ParamBytes/1e6))
	if copt.Strategy == cluster.Auto {
		s.Assumptions = append(s.Assumptions, "strategy auto: each size uses the strategy of highest predicted throughput (column strategy)")
	}
	return s
}
