// Package hw is wolong's hardware catalogue, the one every command's --hw
// reads: the built-in device presets (GPUs and CPUs, presets.json), the
// standard machine of a GPU (node presets, nodes.json: NICs per GPU and
// their network), embedded with the datasheets and measurements they come
// from and parsed on first use; and user hardware files of the same
// schema (--hw path.json, or a name saved by wolong calibrate --host).
// A preset that has no measurement for part of what a prediction uses
// says so in Lacks.
//
// Every number a prediction rests on is a named field: peak FLOP/s per
// dtype, memory size and bandwidth, SM (core) count, per-kernel overheads
// and the per-op-class efficiency factors that a calibration (wolong
// calibrate) fits. Nothing here is computed; the cost model in
// simulate/cost reads these numbers.
package hw
