package cmd

// This file implements 'wolong help environment': every environment
// variable wolong and its tests read, in one place (TestEnvironmentListed
// checks the list against the source).

import "github.com/spf13/cobra"

// environmentHelp is the topic's text.
const environmentHelp = `wolong reads these environment variables. Runtime settings that change the
whole process (the soft memory limit, the huge-page heap reservation, the
collector's pause during import) are made in one place, when a command loads
its model (cmd/process.go), from the variables below.

Output
  COLUMNS            width tables are fitted to (default: the terminal's; none
                     when stdout is not a terminal). --wide ignores it.

Memory and the Go runtime
  GOMEMLIMIT         the Go runtime's soft memory limit. When set, --max-memory
                     bounds the evaluator's live tensors only and leaves the
                     process limit to GOMEMLIMIT; when not, --max-memory is also
                     the process's soft limit while a command runs.
  GOGC               the Go collector's target (Go's own). wolong pauses the
                     collector while importing a model (the import builds what
                     stays live) and restores this setting after.
  GODEBUG            Go's runtime switches. disablethp=1 turns off transparent
                     huge pages for the Go heap and wolong's huge-page
                     reservation with it.
  WOLONG_PRETOUCH    0: do not pre-fault the huge-page reservation on a second
                     thread (the reservation backs the first model load's heap
                     with 2 MiB pages where the kernel's THP mode is "madvise";
                     docs/speed.md gives what it saves, measured with
                     go run ./bench/pagefault and bench/speed.sh).

Files
  XDG_CONFIG_HOME    where calibrate --host saves hardware files that --hw NAME
                     finds: $XDG_CONFIG_HOME/wolong/hw (default ~/.config on
                     Linux, ~/Library/Application Support on macOS).
  XDG_CACHE_HOME     where the ONNX Runtime harness (verify --ort, calibrate
                     --host, validate --measure) is installed:
                     $XDG_CACHE_HOME/wolong/ort-VERSION (default ~/.cache).
  WOLONG_MODELS      a folder calibrate searches for the models a measurement
                     names, after the measurement's own folder.

Set by wolong for the harness it runs (not read from the user)
  WOLONG_ORT_HOME, ONNXRUNTIME_NODE_INSTALL, ONNXRUNTIME_NODE_INSTALL_CUDA

Tests and benchmarks only (go test; docs/testing.md)
  WOLONG_ORT_MANIFEST        eval: write the ONNX Runtime agreement manifest
  WOLONG_ORT_HEAVY           eval: include the slowest models in the ORT check
  WOLONG_CONFORMANCE_VERBOSE eval: print every ONNX node test's outcome
  WOLONG_MODELS_PROBE        eval: probe every shared model's evaluation
  WOLONG_DUMP                eval: dump one node test's tensors
  WOLONG_WRITE_CORPUS        internal/hostile: rewrite the hostile-input corpus
  WOLONG_DOUBLING_NODES      pipeline: the doubling benchmarks' first size
                             (default 50000 nodes)
  WOLONG_DOUBLING_GC         pipeline: "run" times the doubling benchmark's stages
                             with the collector running (default: isolated)
  HOSTILE_DIR                internal/hostile: run the hostile inputs in a folder
  HOSTCAL_DIR, HOSTCAL_FIT   simulate/calibrate/host: the manual measuring and fitting
                             tests' folders
  HOSTCAL_ONLY               simulate/calibrate/host: measure only the suite models
                             whose names start with it (one thread)
  HOSTCAL_VARIANTS, HOSTCAL_OUT
                             simulate/calibrate/host: refit measured folders
                             (comma-separated) with other priors, into a folder
  WOLONG_TEST_SUBMAIN, WOLONG_TEST_SUBMAIN_RSS
                             cmd: run one command in a child test process and
                             record its peak memory`

// newHelpEnvironment builds the 'environment' help topic (a command with
// no run function: 'wolong help environment' prints it).
func newHelpEnvironment() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "Environment variables wolong reads",
		Long:  environmentHelp,
	}
}
