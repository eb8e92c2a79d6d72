package cluster

// This file implements the cluster description: N machines x G GPUs of one
// preset, the links inside a machine and the NICs between machines.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// MaxGPUs bounds a cluster (machines x GPUs per machine).
const MaxGPUs = 1 << 16

// Cluster is N machines of G GPUs each.
type Cluster struct {
	Machines       int
	GPUsPerMachine int
	GPU            *hw.Hardware
	Net            *Network
	Host           Host
	// NICsPerMachine share the machine's network traffic (default: the
	// GPU's node preset, one per GPU on DGX / HGX machines; else 1).
	NICsPerMachine int
	// Intra is the GPU-to-GPU link inside a machine: "nvlink" when the GPU
	// preset has NVLink bandwidth, else "pcie".
	Intra string
}

// Device names one GPU: machine and local index.
type Device struct {
	Machine int `json:"machine"`
	GPU     int `json:"gpu"`
}

// String formats d as "m<machine>/gpu<gpu>".
func (d Device) String() string { return fmt.Sprintf("m%d/gpu%d", d.Machine, d.GPU) }

// Parse builds a cluster from an "NxG" spec (machines x GPUs per machine;
// a bare "N" means N machines of one GPU).
func Parse(spec string, gpu *hw.Hardware, net *Network) (*Cluster, error) {
	if gpu == nil {
		return nil, fmt.Errorf("no GPU preset")
	}
	if net == nil {
		return nil, fmt.Errorf("no network preset")
	}
	if gpu.Kind != "gpu" {
		return nil, fmt.Errorf("%s is a %s, not a GPU", gpu.Name, gpu.Kind)
	}
	if err := net.Validate(); err != nil {
		return nil, err
	}
	s := strings.TrimSpace(strings.ToLower(spec))
	a, b, found := strings.Cut(s, "x")
	n, err1 := strconv.Atoi(a)
	g := 1
	var err2 error
	if found {
		g, err2 = strconv.Atoi(b)
	}
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("bad cluster %q (want NxG: machines x GPUs per machine, e.g. 4x8)", spec)
	}
	return New(n, g, gpu, net)
}

// New builds a cluster of machines x gpus.
func New(machines, gpus int, gpu *hw.Hardware, net *Network) (*Cluster, error) {
	if gpu == nil || net == nil {
		return nil, fmt.Errorf("no GPU or network preset")
	}
	if machines < 1 || gpus < 1 {
		return nil, fmt.Errorf("%dx%d: machines and GPUs per machine must be >= 1", machines, gpus)
	}
	if machines > MaxGPUs || gpus > MaxGPUs || machines*gpus > MaxGPUs {
		return nil, fmt.Errorf("%dx%d is more than %d GPUs", machines, gpus, MaxGPUs)
	}
	c := &Cluster{Machines: machines, GPUsPerMachine: gpus, GPU: gpu, Net: net, Host: DefaultHost(), NICsPerMachine: 1, Intra: "pcie"}
	if n := hw.NodePreset(gpu.Name); n != nil {
		c.NICsPerMachine = n.NICs(gpus)
	}
	if gpu.NVLinkGBs > 0 {
		c.Intra = "nvlink"
	}
	return c, nil
}

// GPUs returns the number of GPUs.
func (c *Cluster) GPUs() int { return c.Machines * c.GPUsPerMachine }

// String formats c as "4x8 h100, ib-hdr".
func (c *Cluster) String() string {
	return fmt.Sprintf("%dx%d %s, %s", c.Machines, c.GPUsPerMachine, c.GPU.Name, c.Net.Name)
}

// DeviceOf returns the device of global GPU rank r (machine-major).
func (c *Cluster) DeviceOf(r int) Device {
	return Device{Machine: r / c.GPUsPerMachine, GPU: r % c.GPUsPerMachine}
}

// IntraGBs returns the GPU-to-GPU bandwidth inside a machine, bytes/s per
// direction.
func (c *Cluster) IntraGBs() float64 {
	if c.Intra == "nvlink" && c.GPU.NVLinkGBs > 0 {
		return c.GPU.NVLinkGBs * 1e9
	}
	return c.pcieGBs()
}

// pcieGBs is the achievable GPU <-> host bandwidth, bytes/s.
func (c *Cluster) pcieGBs() float64 {
	p := c.GPU.PCIeGBs
	if p <= 0 {
		p = 16
	}
	e := c.Host.PCIeEfficiency
	if !(e > 0 && e <= 1) {
		e = 1
	}
	return p * 1e9 * e
}

// NICGBs returns the machine's network bandwidth (all NICs), bytes/s.
func (c *Cluster) NICGBs() float64 {
	k := c.NICsPerMachine
	if k < 1 {
		k = 1
	}
	return float64(k) * c.Net.GBs()
}

// Assumptions lists what every prediction on c rests on.
func (c *Cluster) Assumptions() []string {
	a := []string{
		fmt.Sprintf("cluster %s: %d machine(s) x %d GPU(s), %d NIC(s) per machine at %g Gb/s (%.0f%% achievable), intra-machine %s at %.0f GB/s",
			c.GPU.Name, c.Machines, c.GPUsPerMachine, max(1, c.NICsPerMachine), c.Net.BandwidthGbps, 100*c.Net.Efficiency, c.Intra, c.IntraGBs()/1e9),
	}
	if c.Net.GPUDirect {
		a = append(a, "GPUDirect RDMA: the NIC reads and writes GPU memory; no staging through the host")
	} else {
		a = append(a, fmt.Sprintf("no GPUDirect RDMA: every transfer is staged through host memory over PCIe (%.1f GB/s)", c.pcieGBs()/1e9))
	}
	a = append(a, c.Net.Assumptions...)
	a = append(a, c.Host.Assumptions...)
	return a
}
