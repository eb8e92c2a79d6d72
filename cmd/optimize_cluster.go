package cmd

// This file wires `wolong optimize --cluster` and `explain --cluster`
// (issue 6): the profile command's distributed flags (shared with it, see
// profile_cluster.go), the Placer that hands the optimized model to
// simulate/cluster.Place for the rdma pass, and the placement kept for
// plan.json.

import (
	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
)

// profileOnlyClusterFlags are profile's distributed flags that mean nothing
// to a placement (hidden on optimize and explain, rejected when given).
var profileOnlyClusterFlags = []string{"sweep", "plot", "trace-gpus"}

// addPipelineClusterFlags registers the --cluster flags on optimize and
// explain: profile's, less the ones that only a simulation reports.
func addPipelineClusterFlags(c *cobra.Command, o *OptimizeOptions) {
	addClusterFlags(c, &o.Cluster)
	for _, name := range profileOnlyClusterFlags {
		_ = c.Flags().MarkHidden(name)
	}
	o.changed = func(name string) bool { return c.Flags().Changed(name) }
}

// clusterPlacer places a model with simulate/cluster and keeps the plan.
type clusterPlacer struct {
	c    *cluster.Cluster
	opt  cluster.Options
	sim  simulate.Options
	plan *cluster.Placement
}

// newClusterPlacer checks the --cluster flags; nil without --cluster.
func newClusterPlacer(o *OptimizeOptions) (*clusterPlacer, error) {
	changed := o.changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	for _, name := range profileOnlyClusterFlags {
		if changed(name) {
			return nil, Usagef("--%s is a `wolong profile` flag: a placement has no %s", name, name)
		}
	}
	if err := o.Cluster.check(changed, ""); err != nil {
		return nil, err
	}
	if o.Cluster.Cluster == "" {
		return nil, nil
	}
	net, err := cluster.NetworkPreset(o.Cluster.Net)
	if err != nil {
		return nil, Usagef("--net: %v", err)
	}
	copt, err := o.Cluster.options(simulate.Train, false)
	if err != nil {
		return nil, err
	}
	gpu, err := cluster.GPUPreset(o.HW)
	if err != nil {
		return nil, Usagef("--hw: %v", err)
	}
	c, err := cluster.Parse(o.Cluster.Cluster, gpu, net)
	if err != nil {
		return nil, Usagef("--cluster: %v", err)
	}
	c.NICsPerMachine = o.Cluster.NICs
	copt.NoCompare = true
	return &clusterPlacer{c: c, opt: copt}, nil
}

// Place plans m on the cluster (a training step) and converts the plan for
// the rdma pass.
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

// placement returns the plan, placing the final model when the rdma pass
// did not run (-O below 3, --passes or --disable-pass without it).
func (p *clusterPlacer) placement(m *ir.Model) (*cluster.Placement, bool, error) {
	if p.plan != nil {
		return p.plan, true, nil
	}
	_, err := p.Place(m)
	return p.plan, false, err
}
