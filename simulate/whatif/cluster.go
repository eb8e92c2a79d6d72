package whatif

// This file implements the parameters of a cluster prediction (graph-level
// strategies and the LLM planner alike): every hardware parameter of the
// GPU preset (its --hw schema), the network preset's bandwidth and
// latency, and the hosts' collective software latency; host speed also
// scales the hosts' copies and per-message CPU. Each scales fields of the
// presets (cluster.Network, cluster.Host: simulate/cluster/presets.json),
// so every figure equals a run on presets edited by hand the same way.

import (
	"fmt"

	"github.com/wolong-dev/wolong/simulate/cluster"
)

// ClusterParam is one parameter of a cluster: the preset fields it scales.
type ClusterParam struct {
	Name   string
	Fields string // "network: bandwidth_gbps, tcp_gbs"; a GPU parameter's are the --hw file's
	Doc    string
	// Device says the parameter edits the GPU preset (the one-GPU profile
	// a graph-level strategy starts from must be predicted again).
	Device bool
	get    func(c *cluster.Cluster) float64
	scale  func(c *cluster.Cluster, f float64)
}

// ClusterParams lists every parameter of a cluster, in a fixed order: the
// GPU's (Params), then the network's and the hosts'.
func ClusterParams() []ClusterParam {
	var out []ClusterParam
	for _, p := range Params() {
		p := p
		cp := ClusterParam{Name: p.Name, Fields: p.Fields, Doc: p.Doc, Device: true,
			get:   func(c *cluster.Cluster) float64 { return p.get(c.GPU) },
			scale: func(c *cluster.Cluster, f float64) { p.scale(c.GPU, f) }}
		if p.Name == "host" {
			cp.Fields += "; hosts: memcpy_gbs (multiplied), rpc_cpu_us, staging_latency_us; network: cpu_per_message_us, tcp_cpu_per_message_us (divided)"
			cp.scale = func(c *cluster.Cluster, f float64) {
				p.scale(c.GPU, f)
				c.Host.MemcpyGBs *= f
				for _, t := range []*float64{&c.Host.RPCCPUUs, &c.Host.StagingLatencyUs, &c.Net.CPUPerMessageUs, &c.Net.TCPCPUPerMessageUs} {
					*t /= f
				}
			}
		}
		out = append(out, cp)
	}
	return append(out,
		ClusterParam{Name: "net_bw", Fields: "network: bandwidth_gbps, tcp_gbs", Doc: "network bandwidth per NIC (line rate, and TCP goodput for grpc-tcp), Gb/s",
			get: func(c *cluster.Cluster) float64 { return c.Net.BandwidthGbps },
			scale: func(c *cluster.Cluster, f float64) {
				c.Net.BandwidthGbps *= f
				c.Net.TCPGBs *= f
			}},
		ClusterParam{Name: "net_latency", Fields: "network: latency_us, tcp_latency_us", Doc: "one-way network latency (RDMA verbs, and kernel TCP), us",
			get: func(c *cluster.Cluster) float64 { return c.Net.LatencyUs },
			scale: func(c *cluster.Cluster, f float64) {
				c.Net.LatencyUs *= f
				c.Net.TCPLatencyUs *= f
			}},
		ClusterParam{Name: "collective_latency", Fields: "hosts: collective_base_us, collective_net_step_us", Doc: "collective library (NCCL) software latency per collective and per network ring step, us",
			get: func(c *cluster.Cluster) float64 { return c.Host.CollectiveBaseUs },
			scale: func(c *cluster.Cluster, f float64) {
				c.Host.CollectiveBaseUs *= f
				c.Host.CollectiveNetStepUs *= f
			}},
	)
}

// ClusterNames lists the cluster parameters' names.
func ClusterNames() []string {
	var out []string
	for _, p := range ClusterParams() {
		out = append(out, p.Name)
	}
	return out
}

// LookupCluster returns the cluster parameter called name.
func LookupCluster(name string) (ClusterParam, bool) {
	n := canonical(name)
	for _, p := range ClusterParams() {
		if p.Name == n {
			return p, true
		}
	}
	return ClusterParam{}, false
}

// Value is the parameter's value on c (1 for host speed).
func (p ClusterParam) Value(c *cluster.Cluster) float64 { return p.get(c) }

// CloneCluster copies c deeply enough to edit its GPU, network and hosts.
func CloneCluster(c *cluster.Cluster) *cluster.Cluster {
	cc := *c
	cc.GPU = c.GPU.Clone()
	n := *c.Net
	cc.Net = &n
	return &cc
}

// Scaled returns a copy of c with the parameter multiplied by f.
func (p ClusterParam) Scaled(c *cluster.Cluster, f float64) *cluster.Cluster {
	cc := CloneCluster(c)
	p.scale(cc, f)
	return cc
}

// ApplyCluster applies the changes of cluster parameters to a copy of c,
// in order (changes of other names are left to the caller).
func ApplyCluster(c *cluster.Cluster, changes []Change) (*cluster.Cluster, error) {
	for _, ch := range changes {
		p, ok := LookupCluster(ch.Name)
		if !ok {
			continue
		}
		f, err := ch.FactorOn(p.Value(c), p.Name == "host", fmt.Sprintf("%s / %s", c.GPU.Name, c.Net.Name))
		if err != nil {
			return nil, err
		}
		c = p.Scaled(c, f)
	}
	return c, nil
}

// SweepCluster predicts the total at -Step and +Step of every parameter c
// has (non-zero) and ranks them; predict is told whether the GPU preset
// changed.
func SweepCluster(c *cluster.Cluster, predict func(c *cluster.Cluster, device bool) (Point, error)) ([]Row, error) {
	return sweepCluster(c, func(cc *cluster.Cluster, p ClusterParam, _ float64) (Point, error) { return predict(cc, p.Device) })
}

// sweepCluster is SweepCluster, predict told the parameter and factor.
func sweepCluster(c *cluster.Cluster, predict func(c *cluster.Cluster, p ClusterParam, f float64) (Point, error)) ([]Row, error) {
	var rows []Row
	for _, p := range ClusterParams() {
		v := p.Value(c)
		if !(v > 0) {
			continue
		}
		lo, err := predict(p.Scaled(c, 1-Step), p, 1-Step)
		if err != nil {
			return nil, err
		}
		hi, err := predict(p.Scaled(c, 1+Step), p, 1+Step)
		if err != nil {
			return nil, err
		}
		rows = append(rows, newRow(p.Name, p.Fields, v, lo, hi, 1-Step, 1+Step))
	}
	Rank(rows)
	return rows, nil
}
