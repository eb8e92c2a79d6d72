package cmd

// This file wires `wolong optimize --cluster` and `explain --cluster`
// (issue 6): the profile command's distributed flags (shared with it, see
// profile_cluster.go), checked and turned into the cluster the
// pipeline's rdma pass places the optimized model on.

import (
	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
)

// profileOnlyClusterFlags are profile's distributed flags that mean nothing
// to a placement (hidden on optimize and explain, rejected when given).
var profileOnlyClusterFlags = []string{"sweep", "plot", "trace-gpus"}

// addPipelineClusterFlags registers the --cluster flags on optimize and
// explain: profile's, less the ones that only a simulation reports.
func addPipelineClusterFlags(c *cobra.Command, o *ClusterFlags) {
	addClusterFlags(c, o)
	for _, name := range profileOnlyClusterFlags {
		_ = c.Flags().MarkHidden(name)
	}
}

// placement checks the --cluster flags of optimize and explain and
// returns the cluster to place the model on (a training step); nil
// without --cluster. gpu is --hw.
func (o *ClusterFlags) placement(changed func(string) bool, gpu string) (*pipeline.ClusterOptions, error) {
	if changed == nil {
		changed = func(string) bool { return false }
	}
	for _, name := range profileOnlyClusterFlags {
		if changed(name) {
			return nil, Usagef("--%s is a `wolong profile` flag: a placement has no %s", name, name)
		}
	}
	if err := o.check(changed, ""); err != nil {
		return nil, err
	}
	if o.Cluster == "" {
		return nil, nil
	}
	g, err := resolveHW("--hw", gpu)
	if err != nil {
		return nil, err
	}
	net, _, err := o.network(g.Name)
	if err != nil {
		return nil, err
	}
	copt, err := o.options(simulate.Train, false)
	if err != nil {
		return nil, err
	}
	c, err := cluster.Parse(o.Cluster, g, net)
	if err != nil {
		return nil, Usagef("--cluster: %v", err)
	}
	o.setNICs(c)
	copt.NoCompare = true
	return &pipeline.ClusterOptions{Cluster: c, Options: copt}, nil
}
