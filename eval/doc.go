// Package eval is wolong's CPU reference evaluator: it executes an ir.Graph
// node by node, in topological order, on dense in-memory tensors.
//
// It aims to be straightforward and correct rather than fast. Float16,
// bfloat16 and the 8-bit floats are computed in float32 (or float64) and
// rounded to their storage type after every node. Kernels are registered by
// (domain, op) from one file per op family (elementwise.go, reduce.go,
// nn.go, matmul.go, shape.go, gather.go, control.go, rnn.go, ...).
//
// An op the evaluator does not implement fails with an *UnsupportedError,
// never with a wrong answer. Model-local functions run through their body;
// a node of domain "wolong" with a GRAPH attribute "body" (a fused op made
// by the optimizer) runs as that subgraph, its inputs bound positionally,
// so a fusion is checkable by construction.
//
// Memory: each value leaves its scope after the last node that reads it
// (a node reads what its subgraphs capture from outer scopes; graph
// outputs stay for the caller, the parent node or the next loop
// iteration); the order of release is planned once per graph, like its
// topological order. Options.MaxMemory bounds the live set, the bytes of
// the tensors held in the scopes of the main graph and of the subgraphs
// and function bodies running inside it (shared storage counted once,
// constants not counted), as well as every single output allocation, which
// is checked before it is made. Exceeding it fails with one line naming
// the node and the limit. Evaluator.PeakLiveBytes reports a run's peak.
//
// Bad input (a missing graph input, a wrong dtype, rank or dim, an
// index out of range) gives an error naming the node; a kernel panic is
// recovered into an error. An Evaluator caches converted initializers and
// is not safe for concurrent use.
//
// Runtime values are *Tensor, *Sequence and *Optional. Value files (the
// ONNX test-data .pb format: TensorProto, SequenceProto, OptionalProto)
// are read with ReadValueFile and written atomically with WriteValueFile;
// Compare checks values with relative and absolute tolerances.
//
// Conformance: go test -run TestConformance -v ./eval runs every ONNX
// backend test in ../shared/onnx-node-tests and prints the pass rate per
// suite and per op. TestORTReference checks the evaluator against ONNX
// Runtime's outputs of the shared models, recorded by bench/ort.
package eval
