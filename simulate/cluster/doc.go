// Package cluster extends wolong's single-GPU simulation to clusters: N
// machines of G GPUs (a GPU preset from simulate/hw, or p100 from this
// package), NVLink or PCIe inside a machine, NICs on a network preset
// between machines, and the transports and parallel strategies that move
// tensors across them.
//
// Presets (presets.json, embedded, with sources): networks ib-edr, ib-hdr,
// ib-ndr, roce-25, roce-100, tcp-25, tcp-100 (bandwidth, achievable
// fraction, latency, per-message CPU, RDMA and GPUDirect availability,
// kernel-TCP goodput, registered-memory limit); the host model (copy
// bandwidth and threads, RPC CPU, PCIe staging, NCCL step latencies); and
// extra GPUs in the simulate/hw schema (p100; h800, b200, gb200 (an
// NVL72 rack is a 72-GPU machine), mi300x).
//
// Transports (transport.go), costed per transfer: grpc-tcp (staging,
// serialize copy, kernel TCP, deserialize copy), grpc-rdma (staging, RPC
// buffer copies, RDMA) and rdma (static shape: one-sided zero-copy write
// into a preallocated buffer, latency + bytes/bandwidth; dynamic shape:
// shape message, then a one-sided read; staging without GPUDirect; a
// bounce copy past the registered-memory limit).
//
// Strategies: allreduce (ring or hierarchical, tensor fusion overlapped
// with backward in reverse op order), ps (sharded parameter servers, push
// as gradients are ready, pull in forward order), pipeline (dynamic
// program over the topological order balancing stage compute against
// activation bytes cut; GPipe / 1F1B micro-batches with their bubbles;
// declines a model too small to split) and auto (the highest predicted
// throughput: strategies differ in the samples one step processes).
//
// # API (what cmd and optimize wire)
//
//	gpu, _ := cluster.GPUPreset("p100")          // --hw: hw presets, p100, or a file
//	net, _ := cluster.NetworkPreset("ib-hdr")    // --net
//	c, _ := cluster.Parse("4x8", gpu, net)       // --cluster NxG
//	// model inferred at batch 64 (pipeline.Infer with Batch: 64)
//	prof, _ := cluster.NewProfile(model, gpu, cluster.ProfileOptions{Batch: 64, Sim: simOpts})
//	tr, _ := cluster.ParseTransport("rdma")      // --transport
//	st, _ := cluster.ParseStrategy("auto")       // --strategy
//	res, err := cluster.Simulate(prof, c, cluster.Options{Strategy: st, Transport: tr,
//		Mode: simulate.Train, BucketBytes: 0 /* 25 MiB */, MicroBatches: 0, Timeline: true})
//	// res.StepMs, ComputeMs, CommMs (exposed), BubbleMs, Efficiency, Throughput,
//	// res.Links (per-link utilization), res.Transports (step and speedup of
//	// every transport against grpc-tcp; machines > 1), res.Candidates (what
//	// auto compared, with the reason a strategy declined),
//	// res.Stages (pipeline), res.Timeline (one track per GPU "m0/gpu3" and
//	// per NIC "m0/nic"), res.Assumptions, res.Warnings. JSON tags: step_ms,
//	// compute_ms, comm_ms, bubble_ms, efficiency.
//	sizes, _ := cluster.ParseGPUList("gpus=1,2,4,8,16") // --sweep
//	pts, err := cluster.Sweep(prof, c, sizes, opts)     // scaling table / plot rows
//	plan, err := cluster.Place(prof, c, opts)           // plan.json: nodes -> devices,
//	// transfers with mechanism (rdma-write, rdma-metadata-read,
//	// rdma-bounce-copy, rpc-copy, peer-copy) and fallback reason, receive
//	// buffers (size, slots, registered, reused across steps), registered
//	// bytes per machine against the limit.
//
// Cluster fields the CLI may set after Parse: NICsPerMachine (default: the
// GPU's node preset, NodePreset: one per GPU on DGX / HGX machines; else 1),
// Intra ("nvlink" when the GPU preset has NVLink, else "pcie"), Host.
// Options zero values are the defaults: strategy auto, transport rdma,
// mode train, 25 MiB buckets with a 5 ms fusion cycle, stages = GPUs,
// micro-batches = 4 x stages (at most the batch: --batch, else the model's
// static dim 0), 1F1B, one parameter-server shard per machine, the network's registered-memory
// limit. NewProfile with a Batch re-infers the model's shapes in place (as
// simulate.Run does).
//
// A strategy that does not apply returns a *DeclineError (errors.As);
// Simulate with Strategy auto skips it and lists it in Candidates.
//
// The profile is one GPU's training step from simulate.Run (train mode).
// Weights that a model computes from constants (the ONNX "light" zoo
// models build them with ConstantOfShape) are found here as parameters and
// given a weight-gradient in backward as initializer weights get.
// Profile.Rescale changes op times without simulating again.
//
// # Collectives
//
// collective.go holds the one collectives model of the package: the
// graph strategies' bucketed all-reduce (AllReduce, through a Transport)
// and the NCCL collectives on rank groups (Group, AllReduceS,
// ReduceScatterS, AllToAllS, SendS) that the LLM planner
// (simulate/llm) costs its tensor, data, expert, context and pipeline
// traffic with; both share RingAllReduceS's ring terms.
package cluster
