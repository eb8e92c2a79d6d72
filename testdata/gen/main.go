// Command gen writes the models the project generates for itself into
// testdata/ (run from the repository root: go run ./testdata/gen). The
// output is deterministic: running it twice gives byte-identical files,
// and a test checks that the committed samples match.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
)

func main() {
	out := flag.String("o", "testdata/models", "output folder")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for name, m := range modelgen.Samples() {
		p := filepath.Join(*out, name)
		if err := importer.WriteFile(m, p); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", p)
	}
}
