package report

// This file is what optimize --emit-onnx and run say of the files they
// write.

import (
	"fmt"
	"io"
	"strings"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/pipeline"
)

// ExternalNotes say where optimize --emit-onnx put the weights when it
// wrote external data (none when every weight is inside the model).
func ExternalNotes(w *importer.Written) []string {
	var out []string
	if w.Copied > 0 {
		out = append(out, fmt.Sprintf("--emit-onnx: %d weight(s), %s, written as external data to %s", w.Copied, Bytes(w.CopiedBytes), w.DataFile))
	}
	if w.Referenced > 0 {
		out = append(out, fmt.Sprintf("--emit-onnx: %d weight(s), %s, left in %s and referenced from the written model (keep it beside the model)", w.Referenced, Bytes(w.ReferencedBytes), strings.Join(w.ReferencedFiles, ", ")))
	}
	return out
}

// WriteRunFiles lists the output files `wolong run` wrote: path, name and
// type, one a line.
func WriteRunFiles(w io.Writer, files []pipeline.PBFile) {
	for _, f := range files {
		fmt.Fprintf(w, "%s  %s  %s\n", f.Path, f.Name, pipeline.TypeText(f.Value))
	}
}
