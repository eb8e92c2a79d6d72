// Command html writes the generated model bench/html/open.sh opens as an
// explain page: a transformer encoder in primitive ops (modelgen) with as
// many layers as it takes to reach -nodes nodes (default 10000).
//
//	go run ./bench/html -o /tmp/t10k.onnx -nodes 10000
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
)

func main() {
	out := flag.String("o", "", "output `FILE` (.onnx)")
	nodes := flag.Int("nodes", 10000, "at least this many nodes")
	flag.Parse()
	if *out == "" || *nodes <= 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/html -o FILE.onnx [-nodes N]")
		os.Exit(2)
	}
	// Nodes per layer, measured on a one-layer model (the layers repeat).
	one := len(modelgen.Transformer(1, 1, 16, 64, 4, 128).Graph.Nodes)
	two := len(modelgen.Transformer(2, 1, 16, 64, 4, 128).Graph.Nodes)
	per := two - one
	layers := max(1, (*nodes-one+per-1)/per+1)
	m := modelgen.Transformer(layers, 1, 128, 256, 4, 1024)
	if err := importer.WriteFile(m, *out); err != nil {
		fmt.Fprintln(os.Stderr, "html:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d layers, %d nodes\n", *out, layers, len(m.Graph.Nodes))
}
