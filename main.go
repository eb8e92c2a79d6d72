// Command wolong is a graph compiler and profiler for deep-learning
// models: it imports ONNX models, optimizes them (batching, fusion,
// RDMA-aware placement), and predicts their cost on GPU and RDMA hardware.
package main

import (
	"os"

	"github.com/wolong-dev/wolong/cmd"
)

func main() { os.Exit(cmd.Main(os.Args[1:], os.Stdout, os.Stderr)) }
