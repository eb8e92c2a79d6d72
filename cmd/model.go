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
	// Force lets --input replace concrete dims the model declares
	// (--force-input).
	Force bool

	// recorded are the input shapes a measurement file recorded (see
	// withMeasuredInputs), checked like --input.
	recorded []inputFlag
	progress *progress // set by addModelFlags from the command's Env
	deadline time.Time // start + Timeout, fixed by the first loadModel
}

// addModelFlags registers --dim, --input and --max-memory on c, and lets
// loading report progress through env.
func addModelFlags(env *Env, c *cobra.Command, f *ModelFlags) {
	f.progress = env.Progress
	c.Flags().StringArrayVar(&f.Dims, "dim", nil, "give a symbolic dim of the inputs a value: `name=value` (repeatable; a name no input has is refused)")
	c.Flags().StringArrayVar(&f.Inputs, "input", nil, "set an input's shape: `name=1x3x224x224` or name=scalar (repeatable; symbolic dims allowed; must match the declared rank and fixed dims)")
	c.Flags().BoolVar(&f.Force, "force-input", false, "let --input change dims the model declares as fixed (e.g. another image size; ONNX Runtime would refuse such an input)")
	c.Flags().StringVar(&f.MaxMemory, "max-memory", "4GiB", "refuse work that would allocate more than this, or hold more than this in the evaluator's live tensors (`bytes`, with KiB/MiB/GiB suffix)")
}

// Loaded is a model read, verified and shape-inferred.
type Loaded struct {
	Model     *ir.Model
	Infer     *ir.InferResult
	Warnings  []string // import and inference warnings, in order
	MaxMemory int64
	// Opt are the inference options: --dim and --input, plus the values
	// --input gave to symbolic dims other inputs share, plus the defaults
	// DefaultDims set.
	Opt ir.InferOptions

	imported []string  // the import warnings (Warnings without inference's)
	Deadline time.Time // when evaluation must stop (zero: no limit), shared by all models of a command
}

// Close releases the model's file mappings.
func (l *Loaded) Close() { l.Model.Close() }

// Reinfer infers shapes again with opt (kept as l.Opt), replacing the
// inference warnings.
func (l *Loaded) Reinfer(opt ir.InferOptions) {
	l.Opt = opt
	l.Infer = ir.InferModel(l.Model, opt)
	l.Warnings = append(append([]string{}, l.imported...), l.Infer.Warnings()...)
}

// DefaultDims sets every symbolic or unnamed dim of the inputs that the
// flags leave open to 1 (see defaultSymbolicDims), infers again if it set
// any, and returns what it set.
func (l *Loaded) DefaultDims() []string {
	set := defaultSymbolicDims(l.Model.Graph, l.Opt)
	if len(set) > 0 {
		l.Reinfer(l.Opt)
	}
	return set
}

// loadHook, set by tests only, sees every model loadModel imports (the
// memory tests guard its weights' bytes with it).
var loadHook func(*ir.Model)

// loadModel imports path, verifies it, checks --dim and --input against
// its inputs (a usage error when the model cannot take them), and infers
// shapes with them. Errors name the file.
func (f *ModelFlags) loadModel(path string) (*Loaded, error) {
	sf, err := parseShapeFlags(f.Dims, f.Inputs)
	if err != nil {
		return nil, err
	}
	sf.inputs = append(sf.inputs, f.recorded...)
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
	m, err := importer.Load(path, importer.Options{Warn: func(s string) { l.imported = append(l.imported, s) }})
	if err != nil {
		return nil, err
	}
	f.progress.Printf("verifying %s (%d nodes)", path, len(m.Graph.Nodes))
	if err := ir.Verify(m); err != nil {
		m.Close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	derived, err := sf.check(m.Graph, f.Force)
	if err != nil {
		m.Close()
		return nil, err
	}
	opt := sf.options(m.Graph)
	for name, v := range derived {
		opt.Dims[name] = v
	}
	l.Model = m
	if loadHook != nil {
		loadHook(m)
	}
	f.progress.Printf("inferring shapes of %s (%d nodes)", path, len(m.Graph.Nodes))
	l.Reinfer(opt)
	return l, nil
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
