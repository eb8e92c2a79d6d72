// Command controlflow writes the generated control-flow models
// (internal/modelgen.ControlFlowModels) into a folder, for the ONNX
// Runtime checks of bench/controlflow/check.sh.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
)

func main() {
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
