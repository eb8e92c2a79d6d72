package cmd

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/internal/hugeheap"
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
	deadline time.Time // start + Timeout, fixed by the first load
}

// addModelFlags registers --dim, --input, --force-input and --max-memory
// on c.
func addModelFlags(c *cobra.Command, f *modelFlags) {
	c.Flags().StringArrayVar(&f.dims, "dim", nil, "give a symbolic dim of the inputs a value: `name=value` (repeatable; a name no input has is refused)")
	c.Flags().StringArrayVar(&f.inputs, "input", nil, "set an input's shape: `name=1x3x224x224` or name=scalar (repeatable; symbolic dims allowed; must match the declared rank and fixed dims)")
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
	return ModelOptions{Load: pipeline.LoadOptions{Dims: dims, Inputs: inputs, Force: f.force}, MaxMemory: maxMem, Timeout: f.timeout, progress: env.Progress}, nil
}

// loadHook, set by tests only, sees every model a command loads (the
// memory tests guard its weights' bytes with it).
var loadHook func(*ir.Model)

// load reads path with the given shapes checked against it (a shape the
// model cannot take is a usage error naming the flag), bounds the heap
// by --max-memory and starts the --timeout clock. Errors name the file.
func (o *ModelOptions) load(path string) (*pipeline.Loaded, error) {
	limitHeap(o.MaxMemory)
	reserveHeap(path)
	if o.Timeout > 0 && o.deadline.IsZero() {
		o.deadline = time.Now().Add(o.Timeout)
	}
	l, err := o.importPaused(path)
	if err != nil {
		return nil, shapeUsage(err)
	}
	if loadHook != nil {
		loadHook(l.Model)
	}
	return l, nil
}

// importPaused runs pipeline.Load with the garbage collector paused: the
// import builds what stays live, so a collection during it frees next to
// nothing and only marks the model built so far (the Go compiler raises
// its starting heap goal for the same reason, base.AdjustStartingHeap).
// The soft memory limit (--max-memory) still holds while it is paused.
// The caller's setting is back when it returns.
func (o *ModelOptions) importPaused(path string) (*pipeline.Loaded, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	return pipeline.Load(path, o.loadOptions())
}

// heapPerFileByte is about the most heap a model's pipeline takes per
// byte of its .onnx file (~31 for a generated 100k-node graph: 5.5 MB,
// ~170 MB at the peak of optimize; weights in the file only lower it).
const heapPerFileByte = 64

var reserveOnce sync.Once

// reserveHeap backs the heap the first model load of the process will
// take with huge pages (hugeheap.Reserve: ~30% of optimize's wall on a
// 100k-node graph in a VM), sized from path's file size and kept under
// half the soft memory limit (--max-memory).
func reserveHeap(path string) {
	reserveOnce.Do(func() {
		st, err := os.Stat(path)
		if err != nil {
			return
		}
		hugeheap.Reserve(min(heapPerFileByte*st.Size(), debug.SetMemoryLimit(-1)/2))
	})
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
