package report

// This file prints the runtime catalogue (wolong runtime list, and the
// runtimes section of wolong hw list).

import (
	"fmt"
	"io"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// WriteRuntimeList prints one row per runtime preset: its name, the
// hardware it runs on, its host costs, its load-time fusion and what it
// is. A cost the runtime leaves to the hardware reads "hardware's".
func WriteRuntimeList(w io.Writer, rs []*hw.Runtime) error {
	us := func(v *float64) string {
		if v == nil {
			return "hardware's"
		}
		return fmt.Sprintf("%g us", *v)
	}
	rows := make([][]string, len(rs))
	for i, r := range rs {
		name := r.Name
		if r.Default {
			name += " (default)"
		}
		level := "none"
		if r.OptLevel >= 0 {
			level = fmt.Sprintf("-O%d", r.OptLevel)
		}
		rows[i] = []string{name, r.Device, us(r.LaunchUs), us(r.DispatchUs), fmt.Sprintf("%g us", r.RunLaunchUs), level, r.Description}
	}
	return WriteTable(w, []string{"runtime", "device", "launch/kernel", "dispatch/node", "per run", "fusion", "what"}, rows)
}
