package cluster

// This file implements the all-reduce collectives: a ring over n ranks
// (reduce-scatter then all-gather, 2(n-1) steps of S/n bytes each) and the
// hierarchical form (ring reduce-scatter inside each machine over NVLink
// or PCIe, G concurrent rings across machines over the NICs, ring
// all-gather inside each machine).

import "fmt"

// Algorithm selects the all-reduce algorithm.
type Algorithm string

// Algorithms.
const (
	AlgoAuto         Algorithm = ""             // hierarchical when machines > 1 and GPUs per machine > 1, else ring
	AlgoRing         Algorithm = "ring"         // one flat ring over every GPU
	AlgoHierarchical Algorithm = "hierarchical" // NVLink/PCIe inside machines, then the network
)

// RingAllReduceS is the textbook cost of a ring all-reduce of bytes over n
// ranks on links of bandwidth bw (bytes/s) and one-way latency lat (s):
// 2(n-1)/n x bytes/bw + 2(n-1) x lat.
func RingAllReduceS(bytes float64, n int, bw, lat float64) float64 {
	if n <= 1 || bytes <= 0 {
		return 0
	}
	k := float64(n)
	return 2*(k-1)/k*bytes/bw + 2*(k-1)*lat
}

// Collective is the predicted cost of one all-reduce.
type Collective struct {
	Algorithm Algorithm `json:"algorithm"`
	Bytes     float64   `json:"bytes"`
	IntraS    float64   `json:"intra_s"` // inside machines (reduce-scatter + all-gather)
	InterS    float64   `json:"inter_s"` // across machines
	TotalS    float64   `json:"total_s"`
	// NICBytes is what each machine sends over its NICs; NICBusyS the
	// wire time of it; IntraBytes what each GPU sends on its intra link.
	NICBytes, NICBusyS, IntraBytes, IntraBusyS float64
	// CopyS and StagingS: host copies and PCIe staging inside TotalS.
	CopyS, StagingS float64
}

// AllReduce returns the cost of all-reducing bytes over every GPU of c
// with transport tr for the cross-machine steps.
func (c *Cluster) AllReduce(bytes float64, tr Transport, algo Algorithm) (Collective, error) {
	N, G := c.Machines, c.GPUsPerMachine
	switch algo {
	case AlgoAuto:
		algo = AlgoRing
		if N > 1 && G > 1 {
			algo = AlgoHierarchical
		}
	case AlgoRing, AlgoHierarchical:
	default:
		return Collective{}, fmt.Errorf("cluster: unknown all-reduce algorithm %q (want ring or hierarchical)", algo)
	}
	col := Collective{Algorithm: algo, Bytes: bytes}
	n := N * G
	if n <= 1 || bytes <= 0 {
		return col, nil
	}
	peer := func(b float64) TransferCost { return c.Peer(b) }
	if N == 1 { // one machine: a ring on the intra links
		k := float64(G)
		step := peer(bytes / k)
		col.IntraS = 2 * (k - 1) * step.TotalS
		col.IntraBytes = 2 * (k - 1) / k * bytes
		col.IntraBusyS = 2 * (k - 1) * step.WireS
		col.TotalS = col.IntraS
		return col, nil
	}
	if algo == AlgoRing || G == 1 {
		// every step moves bytes/n across each machine boundary; the
		// network hop is the slowest link of the ring
		k := float64(n)
		step := c.Transfer(tr, bytes/k, TransferOptions{})
		if G > 1 {
			if p := peer(bytes / k); p.TotalS > step.TotalS {
				step = p
			}
		}
		steps := 2 * (k - 1)
		col.InterS = steps*(step.TotalS+c.Host.CollectiveNetStepUs*1e-6) + c.Host.CollectiveBaseUs*1e-6
		col.NICBytes = steps * bytes / k
		col.NICBusyS = steps * step.WireS
		col.CopyS = steps * step.CopyS
		col.StagingS = steps * step.StagingS
		if G > 1 {
			col.IntraBytes = col.NICBytes
			col.IntraBusyS = steps * (bytes / k) / c.IntraGBs()
		}
		col.TotalS = col.InterS
		return col, nil
	}
	// hierarchical: reduce-scatter in the machine, G rings of bytes/G
	// across machines sharing the NICs, all-gather in the machine
	g := float64(G)
	rs := peer(bytes / g)
	col.IntraS = 2 * (g - 1) * rs.TotalS
	col.IntraBytes = 2 * (g - 1) / g * bytes
	col.IntraBusyS = 2 * (g - 1) * rs.WireS
	m := float64(N)
	chunk := bytes / g / m // per ring, per step
	one := c.Transfer(tr, chunk, TransferOptions{})
	wire := bytes / m / c.NICGBs() // the G rings' chunks share the machine's NICs
	stepS := one.TotalS - one.WireS + wire + c.Host.CollectiveNetStepUs*1e-6
	steps := 2 * (m - 1)
	col.InterS = steps * stepS
	col.NICBytes = steps * bytes / m
	col.NICBusyS = steps * wire
	col.CopyS = steps * one.CopyS
	col.StagingS = steps * one.StagingS
	col.TotalS = col.IntraS + col.InterS + c.Host.CollectiveBaseUs*1e-6
	return col, nil
}
