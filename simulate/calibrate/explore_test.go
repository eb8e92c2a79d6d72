package calibrate

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func TestExplore(t *testing.T) {
	dir := os.Getenv("EXPLORE")
	if dir == "" {
		t.Skip()
	}
	files, _ := filepath.Glob(dir + "/*.json")
	base, _ := hw.Preset("cpu")
	cm := cost.New(base, nil, cost.Options{})
	type row struct {
		model, label, op string
		flops, bytes, us, ai float64
		effC, effM float64
	}
	var rows []row
	for _, f := range files {
		data, _ := os.ReadFile(f)
		p, err := ParseORT(f, data)
		if err != nil {
			continue
		}
		m, err := importer.Load("../../../shared/models/"+p.Model, importer.Options{})
		if err != nil {
			continue
		}
		opt := ir.InferOptions{Inputs: map[string]ir.Shape{}}
		for _, in := range p.Inputs {
			opt.Inputs[in.Name] = ir.ShapeOf(in.Shape...)
		}
		ir.InferModel(m, opt)
		pairs, err := Match(m, p)
		if err != nil {
			continue
		}
		for _, o := range Observations(base, m, pairs) {
			if string(o.Cost.Class) != os.Getenv("CLASS") {
				continue
			}
			e := cm.Time(o.Cost)
			_ = e
			rows = append(rows, row{p.Model, o.Label, o.Op, o.Cost.FLOPs, o.Cost.Bytes, o.Us, o.Cost.FLOPs / o.Cost.Bytes, o.Cost.FLOPs / (268e9 * o.Us * 1e-6), o.Cost.Bytes / (27.6e9 * o.Us * 1e-6)})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].us > rows[j].us })
	for i, r := range rows {
		if i > 40 {
			break
		}
		fmt.Printf("%-40.40s %-20.20s %-8s %10.0f us  GF %.3f  MB %.2f AI %.1f effC %.3f effM %.3f\n", r.model, r.label, r.op, r.us, r.flops/1e9, r.bytes/1e6, r.ai, r.effC, r.effM)
	}
}
