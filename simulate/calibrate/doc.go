// Package calibrate fits a hardware file's efficiency parameters
// (simulate/hw) to measured kernel times and checks predictions against
// measured runs. It backs `wolong calibrate`, `wolong validate` and
// `wolong microbench`.
//
// # Inputs
//
// Three measurement formats are read into a Profile (a list of Samples: op,
// dtype, input shapes, attributes, measured µs):
//
//   - ONNX Runtime's profiling output (ParseORT): the Chrome-trace JSON array
//     ORT writes with profiling enabled. Every "Node" event named
//     "<node>_kernel_time" is one node execution (args.op_name, args
//     input_type_shape); repeated runs are reduced to the median per node, and
//     the "model_run" events to the median end-to-end time.
//     bench/ort/profile.mjs writes such files (already reduced) with a
//     "wolong_profile" metadata event naming the model and its input shapes.
//   - PyTorch profiler Chrome traces (ParseTorch): top-level aten operators
//     that map to an ONNX op (aten::mm -> MatMul, aten::conv2d -> Conv, ...),
//     timed by the CUDA kernels they launched when the trace has any, else
//     by their CPU duration. Convolution stride, padding, dilation and groups
//     come from "Concrete Inputs" when recorded (else stride 1, same padding).
//   - wolong's own CSV table (ParseTable), described below.
//
// # The table format
//
// A CSV file with a header row; lines starting with # are comments. Columns
// (any order; the first five are required):
//
//	op           ONNX op type, e.g. Conv (a domain may prefix it: com.microsoft:Attention)
//	dtype        element type of the op's data inputs: float32, float16, bfloat16, ...
//	input_shapes the inputs, separated by ';': each DIMS[:DTYPE][=VALUES], where DIMS
//	             is 1x3x224x224, "scalar" for rank 0, or "-" for an omitted input;
//	             DTYPE overrides the dtype column (int64 for a Reshape's shape);
//	             VALUES gives a constant input's contents, comma separated
//	             (4:int64=1,3,-1,224)
//	attributes   name=value pairs separated by ';': ints 1 or lists 1,2,3; floats
//	             always with a '.' or exponent (1.0, 1e-05); strings in single
//	             quotes ('NOTSET'); empty for none
//	measured_us  measured time of one execution, microseconds (median)
//	domain       optional: the op's domain (default ai.onnx)
//	name         optional: the model node the row measures (validate matches
//	             rows to nodes by name when present, else by op, dtype,
//	             shapes and attributes)
//
// Example:
//
//	op,dtype,input_shapes,attributes,measured_us
//	MatMul,float32,64x256;256x512,,41.5
//	Conv,float32,1x3x224x224;64x3x7x7;64,kernel_shape=7,7;pads=3,3,3,3;strides=2,2,1803
//
// (CSV quoting applies: a field holding commas is written in double quotes.)
//
// # Matching and refusal
//
// Match pairs a profile's samples with a model's nodes by node name
// (samples without names, by op and input shapes). A profile naming nodes
// the model does not have, with an op type that differs from the node's, or
// missing nodes that launch kernels in the model, is refused with an error
// naming them: it was taken on another model.
//
// # The fit
//
// Fit minimises, per op class, a sum of squared residuals over the class's
// compute and memory efficiency and its fixed overhead. A kernel measured
// inside a run (an ONNX Runtime profile with its model_run) contributes its
// error as a share of that run's measured time (so every model weighs the
// same however long it runs, and a kernel weighs what it adds to its
// model's time) plus a light pull on log(predicted/measured); a kernel
// measured on its own (table, trace) contributes its log ratio, weighted by
// sqrt(measured µs). Levenberg-Marquardt (normal equations solved with
// gonum/mat) starts from the preset and from a fixed grid of points (the
// max of compute and memory time makes the loss piecewise) and keeps the
// best. The parameters are reparametrised so none can leave its range: the
// compute fraction through a logistic function (always in (0, 1)), memory
// efficiency and overheads through exp (always > 0). A class whose kernels
// sustain more than the preset's bandwidth raises memory_bandwidth_gbs (and
// cache_bandwidth_gbs by the same factor), and every class's memory
// fraction is divided by that factor, so fractions stay in (0, 1] and
// predictions are unchanged; the file states it. A weak pull toward the
// preset keeps fractions the data do not determine where they were.
// Classes with fewer than MinClassKernels kernels keep the preset's values.
//
// When profiles carry end-to-end times and the hardware is a CPU, the host
// parameters are then fitted to the runs on relative error: dispatch per
// executed node, overhead per run, time per MB of outputs allocated and
// time per node without a kernel (the predicted run time is linear in
// them). Runs whose prediction rests on an assumed loop trip count or on
// unknown costs are left out. ORT profiles taken with graph optimizations
// disabled are predicted with cost.Options.NoFold: the runtime ran every
// node, so nothing is folded at load time. Results are rounded to 4
// significant digits: the same input gives the same file byte for byte.
package calibrate
