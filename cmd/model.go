package cmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/pipeline"
)

// modelFlags are the flags every command that reads a model shares, as
// given.
type modelFlags struct {
	dims      []string      // --dim name=value
	inputs    []string      // --input name=1x3x224x224
	maxMemory string        // --max-memory 4GiB
	timeout   time.Duration // --timeout (run and verify only, addTimeoutFlag): 0 none
	force     bool          // --force-input
}

// ModelOptions are the model flags, typed: the shapes given to the
// model's inputs, the memory bound and the time limit.
type ModelOptions struct {
	// Load holds --dim and --input (each labelled with its flag for
	// messages) and --force-input.
	Load      pipeline.LoadOptions
	MaxMemory int64         // --max-memory, bytes
	Timeout   time.Duration // --timeout: 0 none

	progress *progress // the command's progress line
	process  *process  // the process-wide settings (process.go); nil: from the environment
	deadline time.Time // start + Timeout, fixed by the first load
}

// addModelFlags registers --dim, --input, --force-input and --max-memory
// on c.
func addModelFlags(c *cobra.Command, f *modelFlags) {
	stringArrayVar(c.Flags(), &f.dims, "dim", "give a symbolic dim of the inputs a value: `name=value` (repeatable; a name no input has is refused)")
	stringArrayVar(c.Flags(), &f.inputs, "input", "set an input's shape: `name=1x3x224x224` or name=scalar (repeatable; symbolic dims allowed; must match the declared rank and fixed dims)")
	c.Flags().BoolVar(&f.force, "force-input", false, "let --input change dims the model declares as fixed (e.g. another image size; ONNX Runtime would refuse such an input)")
	c.Flags().StringVar(&f.maxMemory, "max-memory", "4GiB", "refuse work that would allocate more than this, or hold more than this in the evaluator's live tensors (`bytes`, with KiB/MiB/GiB suffix)")
}

// toOptions parses the model flags (usage errors name the flag); loading
// reports progress through env.
func (f *modelFlags) toOptions(env *Env) (ModelOptions, error) {
	dims, inputs, err := parseShapeFlags(f.dims, f.inputs)
	if err != nil {
		return ModelOptions{}, err
	}
	maxMem, err := parseBytes(f.maxMemory)
	if err != nil {
		return ModelOptions{}, Usagef("--max-memory: %v", err)
	}
	if f.timeout < 0 {
		return ModelOptions{}, Usagef("--timeout %s: want a duration >= 0", f.timeout)
	}
	return ModelOptions{Load: pipeline.LoadOptions{Dims: dims, Inputs: inputs, Force: f.force}, MaxMemory: maxMem, Timeout: f.timeout, progress: env.Progress, process: env.process}, nil
}

// loadHook, set by tests only, sees every model a command loads (the
// memory tests guard its weights' bytes with it).
var loadHook func(*ir.Model)

// load reads path with the given shapes checked against it (a shape the
// model cannot take is a usage error naming the flag), bounds the heap
// by --max-memory and starts the --timeout clock. Errors name the file.
func (o *ModelOptions) load(path string) (*pipeline.Loaded, error) {
	o.process.beforeLoad(path, o.MaxMemory)
	if o.Timeout > 0 && o.deadline.IsZero() {
		o.deadline = time.Now().Add(o.Timeout)
	}
	l, err := o.process.importPaused(func() (*pipeline.Loaded, error) { return pipeline.Load(path, o.loadOptions()) })
	if err != nil {
		return nil, shapeUsage(err)
	}
	if loadHook != nil {
		loadHook(l.Model)
	}
	return l, nil
}

// loadOptions are the load options with the progress line wired in.
func (o *ModelOptions) loadOptions() pipeline.LoadOptions {
	lo := o.Load
	if o.progress.active() {
		lo.Progress = func(line string) { o.progress.Printf("%s", line) }
	}
	return lo
}

// loadInferred loads path and infers its shapes once, with opt.
func (o *ModelOptions) loadInferred(path string, opt pipeline.InferOptions) (*pipeline.Inferred, error) {
	defer o.progress.Done()
	l, err := o.load(path)
	if err != nil {
		return nil, err
	}
	f, err := pipeline.Infer(l, opt)
	if err != nil {
		l.Close()
		return nil, shapeUsage(err)
	}
	return f, nil
}

// withRecorded returns o with the input shapes a measurement file
// recorded, for the inputs --input does not set; they are checked as
// --input is, except that a recorded input the model lacks is left to
// the measurement's matching to judge.
func (o ModelOptions) withRecorded(rec []pipeline.GivenInput) ModelOptions {
	o.Load.Inputs = append(append([]pipeline.GivenInput{}, o.Load.Inputs...), rec...)
	return o
}

// shapeUsage turns a shape the model cannot take into a usage error with
// the flags' hint (a shape a measurement file recorded stays a failure
// of that file).
func shapeUsage(err error) error {
	var se *pipeline.ShapeError
	if !errors.As(err, &se) {
		return err
	}
	msg := se.Error()
	switch {
	case se.NotTensor:
		msg += "; --input gives tensor shapes"
	case se.FixedDim == 0:
		msg += " (--batch N sets the batch where the command has it; --force-input analyzes the model at this shape anyway)"
	case se.FixedDim > 0:
		msg += " (--force-input analyzes the model at this shape anyway)"
	}
	if se.Recorded {
		return errors.New(msg)
	}
	return usageErr{errors.New(msg)}
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
