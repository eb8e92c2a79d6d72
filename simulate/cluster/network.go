package cluster

// This file implements the network and host presets (embedded JSON with
// their sources). GPUs and their standard machines (node presets) are
// simulate/hw's catalogue.

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/wolong-dev/wolong/internal/fieldcheck"
	"github.com/wolong-dev/wolong/simulate/hw"

	"github.com/wolong-dev/wolong/internal/strictjson"
)

// Network describes the fabric between machines. The JSON form is one
// entry of presets.json's "networks".
type Network struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"` // "infiniband", "roce" or "ethernet"
	Description string   `json:"description"`
	Sources     []string `json:"sources"`
	Assumptions []string `json:"assumptions"`

	BandwidthGbps   float64 `json:"bandwidth_gbps"`     // line rate per NIC, Gb/s per direction
	Efficiency      float64 `json:"efficiency"`         // achievable fraction of the line rate for large transfers
	LatencyUs       float64 `json:"latency_us"`         // one-way small-message latency (RDMA verbs where RDMA is true)
	CPUPerMessageUs float64 `json:"cpu_per_message_us"` // CPU to post and complete one message
	RDMA            bool    `json:"rdma"`               // RDMA verbs (one-sided read / write) available
	GPUDirect       bool    `json:"gpudirect"`          // the NIC reads / writes GPU memory directly

	// Kernel TCP on this fabric (IPoIB on InfiniBand): what grpc-tcp gets.
	TCPGBs             float64 `json:"tcp_gbs"`                // goodput per connection, GB/s
	TCPLatencyUs       float64 `json:"tcp_latency_us"`         // one-way latency
	TCPCPUPerMessageUs float64 `json:"tcp_cpu_per_message_us"` // syscall and stack CPU per message

	MaxRegisteredGB float64 `json:"max_registered_gb"` // registered (pinned) memory one machine may expose, GB
}

// GBs returns the achievable RDMA / wire bandwidth in bytes per second.
func (n *Network) GBs() float64 { return n.BandwidthGbps / 8 * 1e9 * n.Efficiency }

// Validate checks that the numbers a prediction needs are present.
func (n *Network) Validate() error {
	var ck fieldcheck.Check
	if n.Name == "" {
		ck.Addf("name is empty")
	}
	ck.Positive("bandwidth_gbps", n.BandwidthGbps)
	ck.Fraction("efficiency", n.Efficiency)
	ck.NonNeg("latency_us", n.LatencyUs)
	ck.NonNeg("cpu_per_message_us", n.CPUPerMessageUs)
	ck.Positive("tcp_gbs", n.TCPGBs)
	ck.NonNeg("tcp_latency_us", n.TCPLatencyUs)
	ck.NonNeg("tcp_cpu_per_message_us", n.TCPCPUPerMessageUs)
	ck.NonNeg("max_registered_gb", n.MaxRegisteredGB)
	if n.GPUDirect && !n.RDMA {
		ck.Addf("gpudirect needs rdma")
	}
	return ck.Err(fmt.Sprintf("invalid network %q", n.Name))
}

// Host describes the CPU side of a machine: the copies and RPC processing
// of the RPC transports, and GPU <-> host staging.
type Host struct {
	Description      string   `json:"description"`
	Sources          []string `json:"sources"`
	Assumptions      []string `json:"assumptions"`
	MemcpyGBs        float64  `json:"memcpy_gbs"`         // one serialize / deserialize / buffer copy, GB/s
	CopyThreads      int      `json:"copy_threads"`       // copies / RPC work one machine runs at once
	RPCCPUUs         float64  `json:"rpc_cpu_us"`         // CPU per RPC message on each side, us
	PCIeEfficiency   float64  `json:"pcie_efficiency"`    // achievable fraction of the GPU's PCIe bandwidth
	StagingLatencyUs float64  `json:"staging_latency_us"` // fixed cost of one GPU <-> host copy
	PeerLatencyUs    float64  `json:"peer_latency_us"`    // fixed cost of one GPU-to-GPU copy in a machine
	// All-reduce software latency (NCCL's model): per collective, and per
	// ring step that crosses the network (on top of the wire latency).
	CollectiveBaseUs    float64 `json:"collective_base_us"`
	CollectiveNetStepUs float64 `json:"collective_net_step_us"`
}

type catalogue struct {
	Networks []Network `json:"networks"`
	Host     Host      `json:"host"`
}

//go:embed presets.json
var presetsJSON []byte

// loadCatalogue parses and checks the embedded network and host presets
// on first use (TestEmbeddedPresets checks them; a broken file surfaces
// as NetworkPreset's error).
var loadCatalogue = sync.OnceValues(func() (*catalogue, error) {
	var c catalogue
	if err := strictjson.Decode(bytes.NewReader(presetsJSON), int64(len(presetsJSON)), &c); err != nil {
		return nil, fmt.Errorf("embedded presets: %v", err)
	}
	for i := range c.Networks {
		if err := c.Networks[i].Validate(); err != nil {
			return nil, fmt.Errorf("embedded preset: %v", err)
		}
	}
	return &c, nil
})

// networks returns the network presets (nil when the embedded file is
// broken).
func networks() []Network {
	c, err := loadCatalogue()
	if err != nil {
		return nil
	}
	return c.Networks
}

// NetworkNames lists the network presets in catalogue order.
func NetworkNames() []string {
	ns := networks()
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return out
}

// NetworkPreset returns a copy of the network preset called name
// (case-insensitive).
func NetworkPreset(name string) (*Network, error) {
	c, err := loadCatalogue()
	if err != nil {
		return nil, err
	}
	for _, n := range c.Networks {
		if strings.EqualFold(n.Name, name) {
			c := n
			c.Sources = append([]string(nil), n.Sources...)
			c.Assumptions = append([]string(nil), n.Assumptions...)
			return &c, nil
		}
	}
	return nil, fmt.Errorf("unknown network %q (want one of %s)", name, strings.Join(NetworkNames(), ", "))
}

// DefaultHost returns the host model every machine uses (zero when the
// embedded file is broken: NetworkPreset reports why).
func DefaultHost() Host {
	c, err := loadCatalogue()
	if err != nil {
		return Host{}
	}
	return c.Host
}

// DefaultNetwork is the network of the GPU preset's node, else ib-hdr.
func DefaultNetwork(gpu string) string {
	if gpu == "" {
		return defaultNetwork
	}
	if n := hw.NodePreset(gpu); n != nil {
		return n.Network
	}
	return defaultNetwork
}

// defaultNetwork is --net's default for a GPU without a node preset.
const defaultNetwork = "ib-hdr"
