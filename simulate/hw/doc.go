// Package hw is wolong's hardware catalogue: the built-in presets (GPUs and
// a CPU, embedded as JSON with the datasheets they come from) and user
// hardware files of the same schema (--hw path.json).
//
// Every number a prediction rests on is a named field: peak FLOP/s per
// dtype, memory size and bandwidth, SM (core) count, per-kernel overheads
// and the per-op-class efficiency factors that a calibration (wolong
// calibrate) fits. Nothing here is computed; the cost model in
// simulate/cost reads these numbers.
package hw
