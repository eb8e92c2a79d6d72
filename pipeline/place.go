package pipeline

// This file hands the optimized model to simulate/cluster.Place for the
// rdma pass and keeps the placement.

import (
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/cost"
)

// ClusterOptions are the cluster a model is placed on and how.
type ClusterOptions struct {
	Cluster *cluster.Cluster
	Options cluster.Options
}

// clusterPlacer places a model with simulate/cluster (a training step)
// and keeps the plan.
type clusterPlacer struct {
	c    *cluster.Cluster
	opt  cluster.Options
	sim  simulate.Options
	plan *cluster.Placement
}

func newClusterPlacer(c ClusterOptions, copt cost.Options) *clusterPlacer {
	return &clusterPlacer{c: c.Cluster, opt: c.Options, sim: simulate.Options{Cost: copt}}
}

// Place plans m on the cluster and converts the plan for the rdma pass.
func (p *clusterPlacer) Place(m *ir.Model) (*optimize.Placement, error) {
	prof, err := cluster.NewProfile(m, p.c.GPU, cluster.ProfileOptions{Sim: p.sim})
	if err != nil {
		return nil, err
	}
	pl, err := cluster.Place(prof, p.c, p.opt)
	if err != nil {
		return nil, err
	}
	p.plan = pl
	out := &optimize.Placement{Strategy: string(pl.Strategy), Pipeline: pl.Strategy == cluster.Pipeline,
		Devices: map[string]string{}, Mechanisms: map[string]string{}, Fallbacks: map[string]string{}}
	for _, n := range pl.Nodes {
		if n.Device != nil && !n.Replicated {
			out.Devices[n.Node] = n.Device.String()
		}
	}
	for _, t := range pl.Transfers {
		if t.Kind == "activation" {
			out.Mechanisms[t.From+"->"+t.To] = string(t.Mechanism)
			if t.Fallback != "" {
				out.Fallbacks[t.From+"->"+t.To] = t.Fallback
			}
		}
	}
	return out, nil
}
