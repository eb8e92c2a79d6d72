// Package llm plans the training and serving of decoder-only
// transformers on a cluster (simulate/cluster's Cluster, Network and GPU
// presets, and its collectives).
//
// Decoder-only transformers are planned from their architecture rather
// than from a one-GPU profile: a Transformer (TransformerPreset: GPT-3,
// Llama 2/3, Mixtral; TransformerOf: read from an ONNX graph) is costed
// layer by layer with simulate/cost's kernels on the sharded shapes, under
// tensor (with or without sequence parallelism), pipeline (1F1B or
// interleaved), data (ZeRO 0-3), expert and context parallelism and
// recomputation none / selective / full, with the overlaps a Framework
// preset performs; memory per GPU by part, with a verdict.
//
//	t, _ := llm.TransformerPreset("llama3-405b")           // or TransformerOf(model)
//	c, _ := cluster.New(2048, 8, gpu, net) // --cluster 2048x8: 8 NICs (the h100 node preset)
//	fw, _ := llm.FrameworkPreset("megatron-core")          // --framework
//	rc, _ := llm.ParseRecompute("selective")               // --recompute
//	res, err := llm.SimulateLLM(t, c, llm.LLMOptions{TP: 8, PP: 16, DP: 128,
//		VirtualStages: 2, SequenceParallel: true, ZeRO: 1, Recompute: rc,
//		MicroBatch: 1, GlobalBatch: 2048, Framework: fw})
//	// res.StepMs, ComputeMs, CommMs, BubbleMs, OptimizerMs, Comm (by kind),
//	// TokensPerS(PerGPU), MFU, HFU, Peak (the dense peak they are against),
//	// Memory (weights, gradients, optimizer, activations, comm buffers,
//	// runtime, total, capacity, fits), Assumptions, Warnings
//	s, err := llm.SearchLLM(t, c, llm.SearchOptions{Base: llm.LLMOptions{GlobalBatch: 2048},
//		TP: []int{8} /* a flag given with --strategy auto fixes it */})
//	// s.Best (fastest fitting first), s.Smallest (when none fits), Evaluated, Fitting
//	sv, err := llm.SimulateServe(t, c, llm.ServeOptions{TP: 8, Batch: 32, Prompt: 2048, Output: 256})
//	// sv.TTFTMs, TPOTMs, TokensPerSPerGPU, MaxBatch, Memory (with the KV cache)
//
// The one fitted figure is Framework.KernelEfficiency (0.85, from the
// Megatron-LM SC21 table); the other published runs in runs_test.go
// are held out.
package llm
