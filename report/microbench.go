package report

// This file implements the table of `wolong microbench`: a model's
// distinct ops, most frequent first.

import (
	"fmt"
	"io"
	"strings"

	"github.com/wolong-dev/wolong/simulate/calibrate"
)

// WriteMicrobench prints one row per distinct op, then the skipped nodes.
func WriteMicrobench(w io.Writer, ops []calibrate.Op, skipped []string) error {
	ew := &errWriter{w: w}
	rows := make([][]string, len(ops))
	for i, o := range ops {
		op := o.Op
		if o.Domain != "" {
			op = o.Domain + ":" + o.Op
		}
		rows[i] = []string{fmt.Sprint(o.Count), op, o.DType, o.Inputs, o.Attributes, o.Class}
	}
	fmt.Fprintf(ew, "%s:\n", Count(len(ops), "distinct op"))
	ew.check(WriteTable(ew, []string{"nodes", "op", "dtype", "input shapes", "attributes", "class"}, rows))
	if len(skipped) > 0 {
		fmt.Fprintf(ew, "\nskipped (shapes not static, or graph attributes): %s\n", strings.Join(skipped, ", "))
	}
	return ew.err
}
