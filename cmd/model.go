package cmd

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// ModelFlags are the flags every command that reads a model shares.
type ModelFlags struct {
	Dims      []string      // --dim name=value
	Inputs    []string      // --input name=1x3x224x224
	MaxMemory string        // --max-memory 4GiB
	Timeout   time.Duration // --timeout (run and verify only, addTimeoutFlag): 0 none

	progress *progress // set by addModelFlags from the command's Env
	deadline time.Time // start + Timeout, fixed by the first loadModel
}

// addModelFlags registers --dim, --input and --max-memory on c, and lets
// loading report progress through env.
func addModelFlags(env *Env, c *cobra.Command, f *ModelFlags) {
	f.progress = env.Progress
	c.Flags().StringArrayVar(&f.Dims, "dim", nil, "give a symbolic dim a value: `name=value` (repeatable)")
	c.Flags().StringArrayVar(&f.Inputs, "input", nil, "override an input's shape: `name=1x3x224x224` (repeatable; symbolic dims allowed)")
	c.Flags().StringVar(&f.MaxMemory, "max-memory", "4GiB", "refuse work that would allocate more than this, or hold more than this in the evaluator's live tensors (`bytes`, with KiB/MiB/GiB suffix)")
}

// Loaded is a model read, verified and shape-inferred.
type Loaded struct {
	Model     *ir.Model
	Infer     *ir.InferResult
	Warnings  []string // import and inference warnings, in order
	MaxMemory int64
	Deadline  time.Time // when evaluation must stop (zero: no limit), shared by all models of a command
}

// Close releases the model's file mappings.
func (l *Loaded) Close() { l.Model.Close() }

// loadModel imports path, verifies it, and infers shapes with the flags'
// dims and input shapes. Errors name the file.
// loadHook, set by tests only, sees every model loadModel imports (the
// memory tests guard its weights' bytes with it).
var loadHook func(*ir.Model)

func (f *ModelFlags) loadModel(path string) (*Loaded, error) {
	opt, err := f.inferOptions()
	if err != nil {
		return nil, err
	}
	maxMem, err := parseBytes(f.MaxMemory)
	if err != nil {
		return nil, Usagef("--max-memory: %v", err)
	}
	limitHeap(maxMem)
	deadline, err := f.evalDeadline()
	if err != nil {
		return nil, err
	}
	l := &Loaded{MaxMemory: maxMem, Deadline: deadline}
	defer f.progress.Done()
	f.progress.Printf("importing %s", path)
	m, err := importer.Load(path, importer.Options{Warn: func(s string) { l.Warnings = append(l.Warnings, s) }})
	if err != nil {
		return nil, err
	}
	f.progress.Printf("verifying %s (%d nodes)", path, len(m.Graph.Nodes))
	if err := ir.Verify(m); err != nil {
		m.Close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	l.Model = m
	if loadHook != nil {
		loadHook(m)
	}
	f.progress.Printf("inferring shapes of %s (%d nodes)", path, len(m.Graph.Nodes))
	l.Infer = ir.InferModel(m, opt)
	l.Warnings = append(l.Warnings, l.Infer.Warnings()...)
	return l, nil
}

func (f *ModelFlags) inferOptions() (ir.InferOptions, error) {
	opt := ir.InferOptions{Dims: map[string]int64{}, Inputs: map[string]ir.Shape{}}
	for _, d := range f.Dims {
		name, val, ok := strings.Cut(d, "=")
		v, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if !ok || name == "" || err != nil || v < 0 {
			return opt, Usagef("--dim %q: want name=value with a value >= 0", d)
		}
		opt.Dims[strings.TrimSpace(name)] = v
	}
	for _, in := range f.Inputs {
		name, spec, ok := strings.Cut(in, "=")
		if !ok || name == "" {
			return opt, Usagef("--input %q: want name=1x3x224x224", in)
		}
		s, err := parseShape(spec)
		if err != nil {
			return opt, Usagef("--input %q: %v", in, err)
		}
		opt.Inputs[name] = s
	}
	return opt, nil
}

// parseShape reads "1x3x224x224" (dims may be names: "Nx3x224x224";
// "" or "scalar" is a scalar).
func parseShape(spec string) (ir.Shape, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "scalar" {
		return ir.Shape{Known: true}, nil
	}
	var dims []ir.Dim
	for _, p := range strings.Split(spec, "x") {
		p = strings.TrimSpace(p)
		if v, err := strconv.ParseInt(p, 10, 64); err == nil {
			if v < 0 {
				return ir.Shape{}, fmt.Errorf("negative dim %d", v)
			}
			dims = append(dims, ir.D(v))
			continue
		}
		if p == "" || p == "?" {
			return ir.Shape{}, fmt.Errorf("empty dim in %q", spec)
		}
		dims = append(dims, ir.S(p))
	}
	return ir.DimsShape(dims...), nil
}

// parseBytes reads a size such as "4GiB", "512MiB", "1e9" or "1024".
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(v * float64(mult)), nil
}
