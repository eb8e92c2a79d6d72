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
// Every output allocation is checked against Options.MaxMemory before it is
// made.
package eval
