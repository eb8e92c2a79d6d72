package cluster

// This file implements the transports and the cost of one tensor transfer
// between machines:
//
//	grpc-tcp   GPU->host staging, serialize copy, kernel TCP, deserialize
//	           copy, host->GPU staging, RPC CPU on both sides
//	grpc-rdma  GPU->host staging, copy into the RPC buffer, RDMA transfer,
//	           copy out of the RPC buffer, host->GPU staging, RPC CPU
//	rdma       static shape: one-sided write straight into a buffer
//	           preallocated on the receiver (latency + bytes/bandwidth, no
//	           copy); dynamic shape: a shape message, then the receiver
//	           allocates and reads (three one-way latencies); without GPUDirect
//	           both stage through host memory; a buffer beyond the registered
//	           memory limit goes through a registered bounce buffer (one copy)
//
// The parts are summed for one transfer (the RPC stacks serialize a whole
// tensor before sending it); when many transfers run at once the callers
// overlap them per resource (NIC, host CPU, PCIe) instead.

import (
	"fmt"
	"strings"
)

// Transport is how tensors cross machines.
type Transport string

// Transports.
const (
	GRPCTCP  Transport = "grpc-tcp"
	GRPCRDMA Transport = "grpc-rdma"
	RDMA     Transport = "rdma"
)

// Transports lists the transports in the order reports show them.
func Transports() []Transport { return []Transport{GRPCTCP, GRPCRDMA, RDMA} }

// ParseTransport validates a --transport value.
func ParseTransport(s string) (Transport, error) {
	return parseName("transport", s, Transports()...)
}

// Mechanism is how one transfer moves its bytes.
type Mechanism string

// Mechanisms.
const (
	// OneSidedWrite: static shape, written one-sided and zero-copy into
	// a buffer preallocated (and registered) on the receiver.
	OneSidedWrite Mechanism = "rdma-write"
	// MetadataRead: dynamic shape: the sender writes the shape, the
	// receiver allocates and reads the tensor one-sided.
	MetadataRead Mechanism = "rdma-metadata-read"
	// BounceCopy: RDMA into a registered bounce buffer, then a copy
	// (the tensor's buffer did not fit the registered-memory limit).
	BounceCopy Mechanism = "rdma-bounce-copy"
	// RPCCopy: an RPC with serialization and copies (grpc-tcp, grpc-rdma).
	RPCCopy Mechanism = "rpc-copy"
	// PeerCopy: a GPU-to-GPU copy inside a machine (NVLink or PCIe).
	PeerCopy Mechanism = "peer-copy"
)

// TransferCost is the predicted cost of moving one tensor, split by what
// it spends (seconds).
type TransferCost struct {
	Transport Transport `json:"transport"`
	Mechanism Mechanism `json:"mechanism"`
	Bytes     float64   `json:"bytes"`
	Messages  int       `json:"messages"`
	LatencyS  float64   `json:"latency_s"`          // network / link latency
	WireS     float64   `json:"wire_s"`             // bytes / achievable bandwidth
	CopyS     float64   `json:"copy_s"`             // host copies (serialize, deserialize, RPC or bounce buffers)
	StagingS  float64   `json:"staging_s"`          // GPU <-> host copies over PCIe
	CPUS      float64   `json:"cpu_s"`              // per-message CPU (RPC processing, posting verbs)
	TotalS    float64   `json:"total_s"`            // sum of the above: one transfer alone
	Fallback  string    `json:"fallback,omitempty"` // why a cheaper mechanism was not used
}

// TransferOptions qualify one transfer.
type TransferOptions struct {
	Dynamic bool // the shape is not known before the step runs
	// Unregistered: the receive buffer did not fit the registered-memory
	// limit (rdma only).
	Unregistered bool
	// Host: the tensor lives in host memory on both ends (no GPU staging).
	Host bool
}

// Transfer returns the cost of sending bytes from a GPU on one machine to
// a GPU on another with transport tr.
func (c *Cluster) Transfer(tr Transport, bytes float64, o TransferOptions) TransferCost {
	if bytes < 0 || bytes != bytes {
		bytes = 0
	}
	n, h := c.Net, c.Host
	tc := TransferCost{Transport: tr, Bytes: bytes, Messages: 1}
	us := 1e-6
	copyS := bytes / (h.MemcpyGBs * 1e9)
	stage := func() {
		if !o.Host {
			tc.StagingS = 2 * (h.StagingLatencyUs*us + bytes/c.pcieGBs())
		}
	}
	if (tr == RDMA || tr == GRPCRDMA) && !n.RDMA {
		tr = GRPCTCP
		tc.Fallback = fmt.Sprintf("network %s has no RDMA verbs: grpc-tcp", n.Name)
	}
	switch tr {
	case GRPCTCP:
		tc.Mechanism = RPCCopy
		stage()
		tc.CopyS = 2 * copyS // serialize + deserialize
		tc.LatencyS = n.TCPLatencyUs * us
		tc.WireS = bytes / (min(n.TCPGBs*1e9, n.GBs()))
		tc.CPUS = 2*h.RPCCPUUs*us + 2*n.TCPCPUPerMessageUs*us
	case GRPCRDMA:
		tc.Mechanism = RPCCopy
		stage()
		tc.CopyS = 2 * copyS // into and out of the RPC buffers
		tc.LatencyS = n.LatencyUs * us
		tc.WireS = bytes / n.GBs()
		tc.CPUS = 2*h.RPCCPUUs*us + 2*n.CPUPerMessageUs*us
	default: // RDMA
		tc.Mechanism = OneSidedWrite
		tc.LatencyS = n.LatencyUs * us
		tc.WireS = bytes / n.GBs()
		tc.CPUS = n.CPUPerMessageUs * us
		if o.Dynamic {
			tc.Mechanism = MetadataRead
			tc.Messages = 2
			tc.LatencyS = 2*n.LatencyUs*us + n.LatencyUs*us // shape write, read request, read response
			tc.CPUS = 2 * n.CPUPerMessageUs * us
		}
		if !n.GPUDirect && !o.Host {
			stage()
			tc.Fallback = fmt.Sprintf("network %s has no GPUDirect RDMA: staged through host memory", n.Name)
		}
		if o.Unregistered {
			tc.Mechanism = BounceCopy
			tc.CopyS = copyS
			tc.Fallback = "receive buffer over the registered-memory limit: RDMA into a bounce buffer, then a copy"
		}
	}
	tc.Transport = tr
	tc.TotalS = tc.LatencyS + tc.WireS + tc.CopyS + tc.StagingS + tc.CPUS
	return tc
}

// Peer returns the cost of a GPU-to-GPU copy inside a machine.
func (c *Cluster) Peer(bytes float64) TransferCost {
	if bytes < 0 || bytes != bytes {
		bytes = 0
	}
	tc := TransferCost{Mechanism: PeerCopy, Bytes: bytes, Messages: 1}
	tc.LatencyS = c.Host.PeerLatencyUs * 1e-6
	tc.WireS = bytes / c.IntraGBs()
	tc.TotalS = tc.LatencyS + tc.WireS
	return tc
}

// parseName returns the one of values s spells, ignoring case, or an error
// naming what was asked for and the values.
func parseName[T ~string](what, s string, values ...T) (T, error) {
	names := make([]string, len(values))
	for i, v := range values {
		if strings.EqualFold(s, string(v)) {
			return v, nil
		}
		names[i] = string(v)
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	return "", fmt.Errorf("unknown %s %q (want %s)", what, s, want)
}
