package cost

// This file implements the cost of recurrent ops (LSTM, GRU, RNN and the
// quantized contrib LSTM). For T steps, D directions, batch B, input I,
// hidden H and G gates (4, 3, 1):
//
//	FLOPs = D x [2 T B I G H          (input projection, one GEMM)
//	           + T (2 B H G H + 10 B G H)]  (recurrent GEMM + gate math)
//
// Kernels: per direction one input-projection GEMM and one kernel per step.
// The recurrent weights R are re-read from memory every step (no
// persistent-RNN kernel assumed).
//
// A CPU library (ONNX Runtime's DeepCPU LSTM/GRU) runs each direction as
// one call that loops over the steps: one kernel per direction (its fixed
// time, the op's fitted overhead, is paid per direction: in ORT 1.30's
// profiles a one-step bidirectional LSTM's kernel takes 1.6-1.95x the
// unidirectional one's), T+1 steps per call (the projection, then one per
// time step), the recurrent weights re-read every step.

import "fmt"

func registerRnn() {
	Register("", rnnCost(4), "LSTM")
	Register("", rnnCost(3), "GRU")
	Register("", rnnCost(1), "RNN")
	Register("com.microsoft", rnnCost(4), "DynamicQuantizeLSTM")
}

func rnnCost(gates float64) Func {
	return func(c *Ctx) (Cost, error) {
		x, err := c.InDims(0)
		if err != nil {
			return Cost{}, err
		}
		if len(x) != 3 {
			return Cost{}, fmt.Errorf("%s input X has rank %d, want 3", c.Node.Op, len(x))
		}
		t, b, in := float64(x[0]), float64(x[1]), float64(x[2])
		if c.Node.AttrInt("layout", 0) == 1 {
			t, b = b, t
		}
		h := float64(c.Node.AttrInt("hidden_size", 0))
		if h <= 0 {
			r, err := c.InDims(2)
			if err != nil || len(r) != 3 {
				return Cost{}, fmt.Errorf("%s: hidden_size unknown", c.Node.Op)
			}
			h = float64(r[2])
		}
		dirs := 1.0
		if c.Node.AttrString("direction", "forward") == "bidirectional" {
			dirs = 2
		}
		gh := gates * h
		proj := 2 * t * b * in * gh
		step := 2*b*h*gh + 10*b*gh
		cost, err := c.Simple(dirs * (proj + t*step))
		if err != nil {
			return Cost{}, err
		}
		rb, err := c.Bytes(c.Input(2))
		if err != nil {
			return Cost{}, err
		}
		cost.Kernels = int64(dirs * (t + 1))
		if t > 1 {
			cost.Bytes += rb * (t - 1)
		}
		if c.cpuLibrary() {
			// a CPU library runs each direction's sequence in one call:
			// the steps are loop iterations, not kernels
			cost.Kernels, cost.Steps = int64(dirs), int64(t+1)
		}
		cost.Work = []Work{
			{FLOPs: proj, Tiles: c.Tiles(1, t*b, gh), Count: dirs},
			{FLOPs: step, Tiles: c.Tiles(1, b, gh), Count: dirs * t},
		}
		cost.Note = "RNN ops: one kernel per time step and direction, recurrent weights re-read every step"
		if c.cpuLibrary() {
			cost.Note = "RNN ops on a CPU library: one call per direction looping over the time steps, recurrent weights re-read every step (from the cache when they fit there)"
		}
		return cost, nil
	}
}
