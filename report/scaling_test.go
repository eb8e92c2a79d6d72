package report

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestNewScaling: the sweep's report names the cluster's GPU, network and
// options, and its assumptions come in order: the command's, the
// machines', the cluster's, the profile's notes, the one-GPU step, and
// the auto strategy's.
func TestNewScaling(t *testing.T) {
	gpu, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	net, err := cluster.NetworkPreset(cluster.DefaultNetwork("h100"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Parse("1x8", gpu, net)
	if err != nil {
		t.Fatal(err)
	}
	prof := &cluster.Profile{Notes: []string{"profile note"}, ForwardS: 0.001}
	copt := cluster.Options{Strategy: cluster.Auto, Mode: "train"}
	s := NewScaling("m.onnx", 4, c, net, copt, prof, nil, []string{"command's"}, []string{"w"})
	if s.GPU != "h100" || s.Network != net.Name || s.Mode != "train" || s.Batch != 4 || s.GPUsPerMachine != 8 || len(s.Warnings) != 1 {
		t.Errorf("%+v", s)
	}
	a := s.Assumptions
	if len(a) < 5 || a[0] != "command's" || !strings.HasPrefix(a[1], "machines of 8 h100 GPU(s)") ||
		!strings.HasPrefix(a[len(a)-2], "one-GPU training step from simulate on h100: forward 1.000 ms") ||
		!strings.HasPrefix(a[len(a)-1], "strategy auto:") || a[len(a)-3] != "profile note" {
		t.Errorf("assumptions %q", a)
	}
}
