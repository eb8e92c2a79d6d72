// Package mulberry is the mulberry32 pseudo-random generator (32-bit
// state, Tommy Ettinger's public-domain design): the stream wolong's
// evaluator, the calibration reader and the ONNX Runtime harness scripts
// (bench/ort/*.mjs, the same generator in JavaScript) all draw model
// inputs from, so a seed names the same values in each.
package mulberry

// Rand is a mulberry32 generator.
type Rand struct{ state uint32 }

// New seeds a generator.
func New(seed uint32) *Rand { return &Rand{state: seed} }

// Next returns the next 32-bit value.
func (r *Rand) Next() uint32 {
	r.state += 0x6D2B79F5
	t := r.state
	t = (t ^ t>>15) * (t | 1)
	t ^= t + (t^t>>7)*(t|61)
	return t ^ t>>14
}
