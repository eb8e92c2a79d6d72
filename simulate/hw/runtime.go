package hw

// This file holds the runtime catalogue: which runtime runs the model on
// the hardware (an eager framework, ONNX Runtime's CUDA or CPU provider,
// CUDA graph replay, a TensorRT-style engine). A runtime sets the host
// costs of a run (launch per kernel, dispatch per node, one launch per
// run) and the fusions it performs when it loads the model (a wolong -O
// level). The catalogue is embedded JSON with sources, parsed on first
// use (start-up time matters), and every runtime is for GPUs or CPUs.

import (
	"bytes"
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/wolong-dev/wolong/internal/strictjson"
)

// Runtime is one runtime preset. Host costs left out (nil) are the
// hardware's own (a fitted CPU file's, say).
type Runtime struct {
	Name        string `json:"name"`
	Device      string `json:"device"` // "gpu" or "cpu": the hardware kind it runs on
	Default     bool   `json:"default,omitempty"`
	Description string `json:"description"`
	// LaunchUs is host time per kernel launched, DispatchUs per node the
	// runtime executes, RunLaunchUs per run (a graph launch, an engine
	// enqueue), all µs; nil keeps the hardware's.
	LaunchUs    *float64 `json:"launch_us,omitempty"`
	DispatchUs  *float64 `json:"dispatch_us,omitempty"`
	RunLaunchUs float64  `json:"run_launch_us,omitempty"`
	// OptLevel is the wolong -O level that does what the runtime fuses
	// when it loads the model (-1: none, the model as it is).
	OptLevel    int      `json:"opt_level"`
	Fusions     string   `json:"fusions"`
	Sources     []string `json:"sources"`
	Assumptions []string `json:"assumptions"`
}

//go:embed runtimes.json
var runtimesJSON []byte

var (
	runtimesOnce sync.Once
	runtimes     []*Runtime
	runtimesErr  error
)

// Runtimes lists the runtime presets in catalogue order (parsed and
// checked on the first call).
func Runtimes() []*Runtime {
	runtimesOnce.Do(func() {
		var list []*Runtime
		if err := strictjson.Decode(bytes.NewReader(runtimesJSON), int64(len(runtimesJSON)), &list); err != nil {
			panic("hw: embedded runtimes: " + err.Error())
		}
		for _, r := range list {
			if err := r.validate(); err != nil {
				panic("hw: embedded runtime " + r.Name + ": " + err.Error())
			}
		}
		runtimes = list
	})
	return runtimes
}

func (r *Runtime) validate() error {
	switch {
	case r.Name == "" || r.Description == "":
		return fmt.Errorf("no name or description")
	case r.Device != "gpu" && r.Device != "cpu":
		return fmt.Errorf("device %q: want gpu or cpu", r.Device)
	case len(r.Sources) == 0:
		return fmt.Errorf("no sources")
	case r.OptLevel < -1 || r.OptLevel > 3:
		return fmt.Errorf("opt_level %d: want -1..3", r.OptLevel)
	case r.RunLaunchUs < 0 || (r.LaunchUs != nil && *r.LaunchUs < 0) || (r.DispatchUs != nil && *r.DispatchUs < 0):
		return fmt.Errorf("a negative host cost")
	}
	return nil
}

// RuntimeNames lists the runtime presets' names.
func RuntimeNames() []string {
	var out []string
	for _, r := range Runtimes() {
		out = append(out, r.Name)
	}
	return out
}

// LookupRuntime returns the runtime preset name, or an error listing them.
func LookupRuntime(name string) (*Runtime, error) {
	for _, r := range Runtimes() {
		if r.Name == name {
			return r, nil
		}
	}
	names := RuntimeNames()
	sort.Strings(names)
	return nil, fmt.Errorf("unknown runtime %q (runtimes: %s)", name, strings.Join(names, ", "))
}

// DefaultRuntime is the runtime a prediction on hardware of kind ("gpu"
// or "cpu") assumes when none is given.
func DefaultRuntime(kind string) *Runtime {
	for _, r := range Runtimes() {
		if r.Default && r.Device == kind {
			return r
		}
	}
	return nil
}

// WithRuntime returns a copy of h with r's host costs, r recorded as the
// runtime (Hardware.Runtime). r must run on h's kind.
func (h *Hardware) WithRuntime(r *Runtime) (*Hardware, error) {
	if r.Device != h.Kind {
		var fit []string
		for _, x := range Runtimes() {
			if x.Device == h.Kind {
				fit = append(fit, x.Name)
			}
		}
		return nil, fmt.Errorf("runtime %s runs on %s hardware, and %s is a %s (%s runtimes: %s)", r.Name, strings.ToUpper(r.Device), h.Name, strings.ToUpper(h.Kind), h.Kind, strings.Join(fit, ", "))
	}
	c := h.Clone()
	if r.LaunchUs != nil {
		c.LaunchUs = *r.LaunchUs
	}
	if r.DispatchUs != nil {
		c.DispatchUs = *r.DispatchUs
	}
	c.RunOverheadUs += r.RunLaunchUs
	c.Runtime = r
	return c, nil
}

// RuntimeOrDefault is the runtime h's predictions assume: the one set by
// WithRuntime, else the default of h's kind (nil when there is none).
func (h *Hardware) RuntimeOrDefault() *Runtime {
	if h.Runtime != nil {
		return h.Runtime
	}
	return DefaultRuntime(h.Kind)
}

// Describe states the runtime in one line, as assumptions print it
// (the host costs are on the line after it); chosen says --runtime gave
// it.
func (r *Runtime) Describe(chosen bool) string {
	how := "--runtime " + r.Name
	if !chosen {
		how = "default on " + strings.ToUpper(r.Device) + "s; others: wolong runtime list"
	}
	return fmt.Sprintf("runtime %s (%s): %s; fusion at load: %s", r.Name, how, r.Description, r.Fusions)
}
