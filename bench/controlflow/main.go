// Command controlflow writes the generated control-flow models
// (internal/modelgen.ControlFlowModels) into a folder, for the ONNX
// Runtime checks of bench/controlflow/check.sh; "controlflow count
// FILE..." prints each model's node count in its main graph and its
// If/Loop/Scan bodies together (local functions, the bodies of wolong's
// fused kernels, not counted: a call is one kernel).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "count" {
		for _, p := range os.Args[2:] {
			m, err := importer.Load(p, importer.Options{})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			n := 0
			m.Graph.Walk(func(g *ir.Graph) bool {
				if g.ParentNode != nil && ir.IsFused(g.ParentNode) {
					return false
				}
				n += len(g.Nodes)
				return true
			})
			fmt.Printf("%s\t%d\n", p, n)
		}
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: controlflow OUT_DIR")
		os.Exit(2)
	}
	ms := modelgen.ControlFlowModels()
	var names []string
	for n := range ms {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(os.Args[1], n+".onnx")
		if err := importer.WriteFile(ms[n], p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(p)
	}
}
