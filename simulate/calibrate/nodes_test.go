package calibrate

import (
	"math"
	"testing"

	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestNodeTimeControlFlow: a control-flow node's predicted node time
// includes its bodies' host time (the runtime measures the bodies inside
// the node) but not its own dispatch; other nodes report device time only.
func TestNodeTimeControlFlow(t *testing.T) {
	h := &hw.Hardware{DispatchUs: 5}
	for _, c := range []struct {
		e    cost.Estimate
		want float64
	}{
		{cost.Estimate{Cost: cost.Cost{Class: cost.Control}, DeviceS: 1e-6, HostS: 25e-6}, 21e-6},
		{cost.Estimate{Cost: cost.Cost{Class: cost.Control}, DeviceS: 1e-6, HostS: 2e-6}, 1e-6},
		{cost.Estimate{Cost: cost.Cost{Class: cost.Conv}, DeviceS: 3e-6, HostS: 25e-6}, 3e-6},
	} {
		if got := NodeTimeS(c.e, h); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%s device %g host %g: %g s, want %g s", c.e.Class, c.e.DeviceS, c.e.HostS, got, c.want)
		}
	}
}
