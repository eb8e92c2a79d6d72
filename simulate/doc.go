// Package simulate turns an IR graph into a predicted timeline on one
// device: a discrete-event simulation of a host thread issuing kernels
// (launch + dispatch each) onto one or more device streams, with every
// kernel's duration from the cost model (simulate/cost) on a hardware
// description (simulate/hw).
//
// It reports the makespan, per-stream busy time and idle gaps (and why the
// stream was idle: waiting on the host or on a dependency), the critical
// path, FLOPs, bytes and kernels, and the peak memory from tensor
// liveness over the schedule. In training mode (Options.Mode = Train) it
// appends a backward pass (2x the forward cost for ops with weights, 1x
// otherwise, in reverse order, keeping activations alive until their
// gradient is computed) and one fused Adam optimizer update.
//
// The engine works on a task list with dependencies and resources (the
// host thread and the streams); it models one device and nothing else.
// Clusters do not extend this loop: simulate/cluster takes one GPU's
// training step from Run as a per-op profile and models the strategies
// (data parallel, parameter servers, pipeline) and transports across
// machines analytically, each with its own schedule of that profile's op
// times against link, NIC and host resources.
package simulate
