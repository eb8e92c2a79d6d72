package cmd

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// This file holds the argv-to-Options table tests: each command's
// arguments go through its flags-to-options step to a run-function hook
// (NewCmdX(env, runF)), and the typed options it gets, or the exit
// status of the usage error, are checked. Nothing is loaded or run.

// argvCase is one command line: the options it must build (want returns
// what is wrong with them, "" when nothing), or the exit status it must
// fail with (2: a usage error).
type argvCase[T any] struct {
	args []string
	code int
	want func(*T) string
}

// parseArgv runs args (after the command's name) through the command mk
// builds, with a hook that keeps the options instead of running them,
// and returns them and the exit status Main would give.
func parseArgv[T any](mk func(*Env, func(*T) error) *cobra.Command, args []string) (*T, int, error) {
	env := &Env{Out: io.Discard, Err: io.Discard, Progress: &progress{w: io.Discard}}
	var got *T
	c := mk(env, func(o *T) error { got = o; return nil })
	root := &cobra.Command{Use: "wolong", SilenceUsage: true, SilenceErrors: true}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageErr{err} })
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	root.AddCommand(c)
	root.SetArgs(append([]string{c.Name()}, args...))
	if err := root.Execute(); err != nil {
		return nil, exitStatus(err), err
	}
	if got == nil {
		return nil, 0, fmt.Errorf("the run-function hook was not called")
	}
	return got, 0, nil
}

func testArgv[T any](t *testing.T, mk func(*Env, func(*T) error) *cobra.Command, cases []argvCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got, code, err := parseArgv(mk, tc.args)
			if code != tc.code {
				t.Fatalf("exit %d (%v), want %d", code, err, tc.code)
			}
			if tc.code != 0 {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				t.Fatal("no check of the options")
			}
			if msg := tc.want(got); msg != "" {
				t.Errorf("%s (got %+v)", msg, *got)
			}
		})
	}
}

// check joins the descriptions of the conditions that fail.
func check(conds ...any) string {
	var bad []string
	for i := 0; i+1 < len(conds); i += 2 {
		if ok, _ := conds[i].(bool); !ok {
			bad = append(bad, fmt.Sprint(conds[i+1]))
		}
	}
	return strings.Join(bad, "; ")
}

// modelIs checks ModelOptions: the given dims ("N=4") and input shapes
// ("x=[1,3,8,8]") in order, and the memory bound in bytes.
func modelIs(mo ModelOptions, dims, inputs []string, maxMem int64) string {
	var d, in []string
	for _, g := range mo.Load.Dims {
		d = append(d, fmt.Sprintf("%s=%d", g.Name, g.Value))
	}
	for _, g := range mo.Load.Inputs {
		in = append(in, g.Name+"="+g.Shape.String())
	}
	return check(reflect.DeepEqual(d, dims), fmt.Sprintf("dims %v, want %v", d, dims),
		reflect.DeepEqual(in, inputs), fmt.Sprintf("inputs %v, want %v", in, inputs),
		mo.MaxMemory == maxMem, fmt.Sprintf("max memory %d, want %d", mo.MaxMemory, maxMem))
}

const defaultMaxMemory = 4 << 30

func TestArgvInspect(t *testing.T) {
	testArgv(t, NewCmdInspect, []argvCase[InspectOptions]{
		{args: []string{"m.onnx"}, want: func(o *InspectOptions) string {
			return check(o.Path == "m.onnx", "path", o.Format == report.Table, "format", !o.Nodes && !o.IR, "nodes/ir",
				modelIs(o.Model, nil, nil, defaultMaxMemory) == "", modelIs(o.Model, nil, nil, defaultMaxMemory))
		}},
		{args: []string{"m.onnx", "--format", "csv"}, want: func(o *InspectOptions) string {
			return check(o.Format == report.CSV, "format csv", o.Nodes, "csv implies --nodes")
		}},
		{args: []string{"m.onnx", "--ir", "--dim", "N=4", "--input", "x=1x3x8x8", "--max-memory", "512MiB"}, want: func(o *InspectOptions) string {
			return check(o.IR, "--ir", modelIs(o.Model, []string{"N=4"}, []string{"x=[1,3,8,8]"}, 512<<20) == "", modelIs(o.Model, []string{"N=4"}, []string{"x=[1,3,8,8]"}, 512<<20))
		}},
		{args: []string{"m.onnx", "--format", "xml"}, code: 2},
		{args: []string{"m.onnx", "--dim", "N"}, code: 2},
		{args: []string{"m.onnx", "--input", "x=1xbad!"}, code: 2},
		{args: []string{"m.onnx", "--max-memory", "lots"}, code: 2},
		{args: []string{"m.onnx", "--no-such-flag"}, code: 2},
		{args: nil, code: 2},
	})
}

func TestArgvOptimize(t *testing.T) {
	testArgv(t, NewCmdOptimize, []argvCase[OptimizeOptions]{
		{args: []string{"m.onnx"}, want: func(o *OptimizeOptions) string {
			op := o.Optimize
			return check(o.Path == "m.onnx", "path", o.HW.Name == "h100", "hw h100", o.Format == report.Table, "format",
				op.Level == 3, "level 3", op.Target == optimize.TargetONNX, "target onnx", op.Predict && op.HW == o.HW, "predicts on --hw",
				op.Cluster == nil, "no cluster", o.Batch == 0, "batch", o.External == importer.ExternalAuto, "external auto",
				o.Plan == "" && o.EmitONNX == "", "outputs")
		}},
		{args: []string{"m.onnx", "-O1", "--hw", "cpu-1t", "--target", "ort", "--batch", "8", "--format", "json", "--tf32", "--verify-each",
			"--emit-onnx", "o.onnx", "-o", "plan.json", "--disable-pass", "late_cse,fuse", "--external-data", "always"}, want: func(o *OptimizeOptions) string {
			op := o.Optimize
			return check(o.HW.Name == "cpu-1t" && op.HW == o.HW, "hw cpu-1t", op.Level == 1, "level 1", op.Target == optimize.TargetORT, "target ort",
				o.Batch == 8, "batch 8", o.Format == report.JSON, "format json", op.Cost.TF32 && op.VerifyEach, "tf32, verify-each",
				o.EmitONNX == "o.onnx" && o.Plan == "plan.json", "outputs", reflect.DeepEqual(op.Disable, []string{"late_cse", "fuse"}), "disabled passes",
				o.External == importer.ExternalAlways, "external always")
		}},
		{args: []string{"m.onnx", "--passes", "fuse", "--cluster", "2x4"}, want: func(o *OptimizeOptions) string {
			cl := o.Optimize.Cluster
			return check(reflect.DeepEqual(o.Optimize.Only, []string{"fuse"}), "--passes",
				cl != nil && cl.Cluster.Machines == 2 && cl.Cluster.GPUsPerMachine == 4, "cluster 2x4")
		}},
		{args: []string{"m.onnx", "-O7"}, code: 2},
		{args: []string{"m.onnx", "--passes", "nope"}, code: 2},
		{args: []string{"m.onnx", "--target", "tvm"}, code: 2},
		{args: []string{"m.onnx", "--batch", "-1"}, code: 2},
		{args: []string{"m.onnx", "--hw", "no-such-hw"}, code: 2},
		{args: []string{"m.onnx", "--format", "csv"}, code: 2},
		{args: []string{"m.onnx", "--external-data", "sometimes"}, code: 2},
		{args: []string{"m.onnx", "--cluster", "2by4"}, code: 2},
		{args: nil, code: 2},
		// the LLM planner's training-layout flags: a plan
		{args: []string{"--llm", "llama3-70b", "--cluster", "8x8", "--hw", "h200", "--tp", "8", "--pp", "2", "--vp", "2", "--sp", "--zero", "1", "--recompute", "full",
			"--micro-batch", "2", "--global-batch", "64", "--seq", "4096", "--framework", "fsdp", "-o", "plan.json", "--format", "json", "--dtype", "float16"}, want: func(o *OptimizeOptions) string {
			if o.LLM == nil || o.LLM.LLM == nil {
				return "no LLM plan"
			}
			l, tr := o.LLM.LLM, o.LLM.LLM.Train
			return check(o.Path == "" && l.Preset != nil && l.Preset.Name == "llama3-70b", "the preset, no MODEL", l.Search == nil && l.Serve == nil, "a given layout",
				tr.TP == 8 && tr.PP == 2 && tr.DP == 0 && tr.VirtualStages == 2 && tr.SequenceParallel && tr.ZeRO == 1, "degrees",
				tr.Recompute == llm.RecomputeFull && tr.MicroBatch == 2 && tr.GlobalBatch == 64 && tr.Seq == 4096, "recompute, batches, seq",
				tr.Framework.Name == "fsdp", "framework", o.Plan == "plan.json" && o.Format == report.JSON, "-o is the plan file, json", tr.DType == ir.Float16, "dtype",
				o.LLM.Cluster.GPUs() == 64 && o.LLM.Cluster.GPU.Name == "h200", "cluster")
		}},
		// zero 2 with pipelines and no --framework: fsdp, said
		{args: []string{"--llm", "llama3-70b", "--cluster", "8x8", "--tp", "8", "--pp", "2", "--zero", "2", "--global-batch", "64"}, want: func(o *OptimizeOptions) string {
			if o.LLM == nil || o.LLM.LLM == nil {
				return "no LLM plan"
			}
			l := o.LLM.LLM
			return check(l.Train.Framework.Name == "fsdp", "framework fsdp", len(l.Assumptions) == 1 && strings.Contains(l.Assumptions[0], "--framework not given: fsdp"), "the assumption")
		}},
		{args: []string{"--llm", "llama3-70b", "--cluster", "8x8", "--tp", "8", "--pp", "2", "--zero", "1", "--global-batch", "64"}, want: func(o *OptimizeOptions) string {
			l := o.LLM.LLM
			return check(l.Train.Framework.Name == "megatron-core" && len(l.Assumptions) == 0, "zero 1: megatron-core, nothing assumed")
		}},
		{args: []string{"m.onnx", "--cluster", "2x8", "--strategy", "auto", "--global-batch", "128", "--tp", "4"}, want: func(o *OptimizeOptions) string {
			if o.LLM == nil || o.LLM.LLM == nil || o.LLM.LLM.Search == nil {
				return "no search"
			}
			s := o.LLM.LLM.Search
			return check(o.Path == "m.onnx" && o.LLM.LLM.Preset == nil, "MODEL", len(s.TP) == 1 && s.TP[0] == 4 && s.PP == nil, "--tp fixes tp, pp searched",
				s.Base.GlobalBatch == 128, "global batch", o.Plan == "", "no plan file")
		}},
		{args: []string{"m.onnx", "--tp", "2"}, code: 2},                                                     // needs --cluster
		{args: []string{"--cluster", "1x8", "--tp", "2"}, code: 2},                                           // no MODEL nor --llm
		{args: []string{"m.onnx", "--llm", "gpt3-1.3b", "--cluster", "1x8"}, code: 2},                        // both
		{args: []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--passes", "fuse"}, code: 2},              // a graph pass flag
		{args: []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--emit-onnx", "o.onnx"}, code: 2},         // no graph to emit
		{args: []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--batch", "4"}, code: 2},                  // the graph's batch
		{args: []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--transport", "grpc-tcp"}, code: 2},       // graph-level cluster flag
		{args: []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--serve"}, code: 2},                       // serving is profile's
		{args: []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--tp", "2", "--strategy", "ps"}, code: 2}, // graph-level strategy
		{args: []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--strategy", "auto"}, code: 2},            // no --global-batch
		{args: []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--hw", "cpu-1t"}, code: 2},                // not a GPU
		{args: []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--dtype", "int8"}, code: 2},               // not a float type
		{args: []string{"m.onnx", "--dtype", "float16"}, code: 2},                                            // the LLM planner's only
	})
}

func TestArgvExplain(t *testing.T) {
	testArgv(t, NewCmdExplain, []argvCase[ExplainOptions]{
		{args: []string{"m.onnx"}, want: func(o *ExplainOptions) string {
			return check(o.Path == "m.onnx", "path", o.Optimize.Level == 3 && o.Optimize.Predict, "level 3, predicted", o.Pass == "", "pass", !o.Diff && o.Dot == "", "diff, dot")
		}},
		{args: []string{"m.onnx", "--pass", "Late-CSE", "--diff", "--dot", "out", "-O2", "--hw", "a100"}, want: func(o *ExplainOptions) string {
			return check(o.Pass == "late_cse", "--pass canonical: "+o.Pass, o.Diff && o.Dot == "out", "diff, dot", o.Optimize.Level == 2, "level 2", o.HW.Name == "a100", "hw a100")
		}},
		{args: []string{"m.onnx", "--pass", "nope"}, code: 2},
		{args: []string{"m.onnx", "--format", "csv"}, code: 2},
	})
}

func TestArgvProfile(t *testing.T) {
	testArgv(t, NewCmdProfile, []argvCase[ProfileOptions]{
		{args: []string{"m.onnx"}, want: func(o *ProfileOptions) string {
			s := o.Sim
			return check(o.Path == "m.onnx", "path", s.HW.Name == "h100", "hw", s.Streams == 1, "streams", s.Mode == simulate.Inference, "mode",
				s.Cost.Trip == cost.DefaultTrip, "trip", s.Cost.Branch == cost.BranchAuto, "if-branch", s.Cost.DType == ir.DType(0), "dtype", o.By == "node" && o.Top == 20, "by, top",
				o.Level == -1, "no optimization", o.Cluster == nil, "no cluster", o.Batch == 0, "batch", o.Format == report.Table, "format")
		}},
		{args: []string{"m.onnx", "--hw", "a100", "--mode", "train", "--streams", "4", "--dtype", "float16", "--trip", "7", "--conv-algo", "direct",
			"--by", "op", "--top", "5", "-O2", "--batch", "16", "--format", "csv", "--tf32", "--trace", "t.json", "--if-branch", "max"}, want: func(o *ProfileOptions) string {
			s := o.Sim
			return check(s.HW.Name == "a100" && !s.HW.ConvWinograd, "hw a100, direct convs", s.Mode == simulate.Train, "train", s.Streams == 4, "streams",
				s.Cost.DType == ir.Float16, "dtype", s.Cost.Trip == 7, "trip", s.Cost.Branch == cost.BranchMax, "if-branch max", s.Cost.TF32, "tf32", o.By == "op" && o.Top == 5, "by, top",
				o.Level == 2, "level", o.Batch == 16, "batch", o.Format == report.CSV, "csv", o.Trace == "t.json", "trace")
		}},
		{args: []string{"m.onnx", "--hw", "cpu-1t", "--winograd"}, want: func(o *ProfileOptions) string {
			return check(o.Sim.HW.Name == "cpu-1t" && o.Sim.HW.ConvWinograd, "winograd on cpu-1t")
		}},
		{args: []string{"m.onnx", "--cluster", "2x4"}, want: func(o *ProfileOptions) string {
			cr := o.Cluster
			return check(cr != nil && cr.Cluster.Machines == 2 && cr.Cluster.GPUsPerMachine == 4, "cluster 2x4",
				o.Sim.Mode == simulate.Train, "--mode defaults to train with --cluster")
		}},
		{args: []string{"m.onnx", "--by", "layer"}, code: 2},
		{args: []string{"m.onnx", "--mode", "serve"}, code: 2},
		{args: []string{"m.onnx", "--streams", "0"}, code: 2},
		{args: []string{"m.onnx", "--dtype", "int8"}, code: 2},
		{args: []string{"m.onnx", "--conv-algo", "fft"}, code: 2},
		{args: []string{"m.onnx", "--if-branch", "then"}, code: 2},
		{args: []string{"m.onnx", "-O9"}, code: 2},
		{args: []string{"m.onnx", "--top", "-1"}, code: 2},
		{args: []string{"m.onnx", "--hw", "no-such-hw"}, code: 2},
		{args: []string{"m.onnx", "--cluster", "2x4", "--format", "csv"}, code: 2},
		// the LLM planner's flags
		{args: []string{"m.onnx", "--cluster", "2x8", "--tp", "4", "--pp", "2", "--ep", "2", "--cp", "1", "--vp", "2", "--sp", "--zero", "1", "--recompute", "selective",
			"--micro-batch", "2", "--global-batch", "64", "--seq", "4096", "--framework", "deepspeed", "--dtype", "float16"}, want: func(o *ProfileOptions) string {
			l := o.Cluster.LLM
			if l == nil {
				return "no LLM run"
			}
			tr := l.Train
			return check(l.Preset == nil && l.Search == nil && l.Serve == nil, "a training step of MODEL", tr.TP == 4 && tr.PP == 2 && tr.DP == 0 && tr.EP == 2 && tr.CP == 1, "degrees (dp left to the planner)",
				tr.VirtualStages == 2 && tr.SequenceParallel && tr.ZeRO == 1, "vp, sp, zero", tr.Recompute == llm.RecomputeSelective, "recompute",
				tr.MicroBatch == 2 && tr.GlobalBatch == 64 && tr.Seq == 4096, "batches, seq", tr.Framework.Name == "deepspeed", "framework", tr.DType == ir.Float16, "dtype",
				o.Cluster.Cluster.GPUs() == 16, "cluster", o.Batch == 0, "no input batch")
		}},
		{args: []string{"--llm", "llama3-405b", "--cluster", "16x8", "--strategy", "auto", "--global-batch", "512", "--pp", "8", "--recompute", "full", "--top", "3"}, want: func(o *ProfileOptions) string {
			l := o.Cluster.LLM
			if l == nil || l.Search == nil || l.Preset == nil {
				return "no search of the preset"
			}
			s := l.Search
			return check(o.Path == "", "no MODEL", l.Preset.Name == "llama3-405b", "preset", s.Base.GlobalBatch == 512, "global batch",
				len(s.PP) == 1 && s.PP[0] == 8, "--pp fixes pp", s.TP == nil && s.CP == nil && s.ZeRO == nil, "the others searched",
				len(s.Recompute) == 1 && s.Recompute[0] == llm.RecomputeFull, "--recompute fixes recompute", s.Top == 3, "--top")
		}},
		{args: []string{"m.onnx", "--cluster", "1x8", "--serve", "--tp", "8", "--batch", "32", "--prompt", "2048", "--output", "128"}, want: func(o *ProfileOptions) string {
			l := o.Cluster.LLM
			if l == nil || l.Serve == nil {
				return "no serving run"
			}
			s := l.Serve
			return check(s.TP == 8 && s.Batch == 32 && s.Prompt == 2048 && s.Output == 128, "serve options", o.Batch == 0, "--batch is the serving batch")
		}},
		{args: []string{"m.onnx", "--tp", "2"}, code: 2},                                                                  // needs --cluster
		{args: []string{"--cluster", "1x8", "--tp", "2"}, code: 2},                                                        // no MODEL nor --llm
		{args: []string{"m.onnx", "--llm", "gpt3-1.3b", "--cluster", "1x8"}, code: 2},                                     // both
		{args: []string{"--llm", "no-such", "--cluster", "1x8"}, code: 2},                                                 // unknown preset
		{args: []string{"m.onnx", "--cluster", "1x8", "--tp", "-1"}, code: 2},                                             // negative
		{args: []string{"m.onnx", "--cluster", "1x8", "--pp", "0"}, code: 2},                                              // zero given
		{args: []string{"m.onnx", "--cluster", "1x8", "--zero", "4"}, code: 2},                                            // stage
		{args: []string{"m.onnx", "--cluster", "1x8", "--recompute", "some"}, code: 2},                                    // policy
		{args: []string{"m.onnx", "--cluster", "1x8", "--framework", "jax"}, code: 2},                                     // framework
		{args: []string{"m.onnx", "--cluster", "1x8", "--tp", "2", "--dtype", "float32"}, code: 2},                        // dtype
		{args: []string{"m.onnx", "--cluster", "1x8", "--tp", "2", "--strategy", "ps"}, code: 2},                          // graph-level strategy
		{args: []string{"m.onnx", "--cluster", "1x8", "--tp", "2", "--stages", "2"}, code: 2},                             // graph-level flag
		{args: []string{"m.onnx", "--cluster", "1x8", "--strategy", "auto", "--tp", "2"}, code: 2},                        // no --global-batch
		{args: []string{"m.onnx", "--cluster", "1x8", "--strategy", "auto", "--dp", "2", "--global-batch", "8"}, code: 2}, // dp fixed
		{args: []string{"m.onnx", "--cluster", "1x8", "--serve", "--zero", "1"}, code: 2},                                 // training flag with --serve
		{args: []string{"m.onnx", "--cluster", "1x8", "--tp", "2", "--batch", "4"}, code: 2},                              // serving flag without --serve
		{args: []string{"m.onnx", "--cluster", "1x8", "--serve", "--strategy", "auto"}, code: 2},                          // search of serving
	})
}

func TestArgvHw(t *testing.T) {
	testArgv(t, NewCmdHwList, []argvCase[HwListOptions]{
		{args: nil, want: func(o *HwListOptions) string { return check(o.Format == report.Table && !o.Networks, "table, all") }},
		{args: []string{"--networks", "--format", "csv"}, want: func(o *HwListOptions) string {
			return check(o.Format == report.CSV && o.Networks, "csv, networks")
		}},
		{args: []string{"--format", "xml"}, code: 2},
	})
	testArgv(t, NewCmdHwShow, []argvCase[HwShowOptions]{
		{args: []string{"h100", "--format", "json"}, want: func(o *HwShowOptions) string {
			return check(o.Name == "h100" && o.Format == report.JSON, "h100 json")
		}},
		{args: []string{"h100", "--format", "csv"}, code: 2},
		{args: nil, code: 2},
	})
}

func TestArgvVerify(t *testing.T) {
	testArgv(t, NewCmdVerify, []argvCase[VerifyOptions]{
		{args: []string{"a.onnx", "b.onnx"}, want: func(o *VerifyOptions) string {
			return check(reflect.DeepEqual(o.Paths, []string{"a.onnx", "b.onnx"}), "paths", o.Tolerance == eval.DefaultTolerance, "tolerance",
				!o.ORT && len(o.Fill) == 0, "ort, fill", o.Format == report.Table, "format")
		}},
		{args: []string{"a.onnx", "b.onnx", "--rtol", "0.1", "--atol", "0.01", "--seed", "7", "--fill", "sr=16000", "--ort", "--timeout", "5s"}, want: func(o *VerifyOptions) string {
			return check(o.Tolerance == eval.Tolerance{RTol: 0.1, ATol: 0.01}, "tolerance", o.Seed == 7, "seed", o.ORT, "ort",
				len(o.Fill) == 1 && o.Fill[0].Name == "sr" && o.Fill[0].Value == "16000", "fill", o.Model.Timeout == 5*time.Second, "timeout")
		}},
		{args: []string{"a.onnx", "--inputs", "d"}, want: func(o *VerifyOptions) string { return check(o.Inputs == "d", "inputs") }},
		{args: []string{"a.onnx"}, code: 2},
		{args: []string{"a.onnx", "--inputs", "d", "--ort"}, code: 2},
		{args: []string{"a.onnx", "b.onnx", "--rtol", "-1"}, code: 2},
		{args: []string{"a.onnx", "b.onnx", "--fill", "sr"}, code: 2},
		{args: []string{"a.onnx", "b.onnx", "--timeout", "-1s"}, code: 2},
	})
}

func TestArgvRun(t *testing.T) {
	testArgv(t, NewCmdRun, []argvCase[RunOptions]{
		{args: []string{"m.onnx", "-o", "out"}, want: func(o *RunOptions) string {
			return check(o.Path == "m.onnx" && o.Out == "out", "path, out", !o.Save && o.Inputs == "", "save, inputs", o.Model.Timeout == 0, "timeout")
		}},
		{args: []string{"m.onnx", "-o", "out", "--save-inputs", "--seed", "3", "--dim", "N=2", "--fill", "sr=8000", "--timeout", "2m"}, want: func(o *RunOptions) string {
			return check(o.Save && o.Seed == 3, "save, seed", modelIs(o.Model, []string{"N=2"}, nil, defaultMaxMemory) == "", "dims",
				len(o.Fill) == 1 && o.Fill[0].Value == "8000", "fill", o.Model.Timeout == 2*time.Minute, "timeout")
		}},
		{args: []string{"m.onnx"}, code: 2},
		{args: []string{"m.onnx", "-o", "out", "--fill", "=3"}, code: 2},
		{args: []string{"m.onnx", "-o", "out", "--dim", "N=x"}, code: 2},
	})
}

func TestArgvCalibrate(t *testing.T) {
	testArgv(t, NewCmdCalibrate, []argvCase[CalibrateOptions]{
		{args: []string{"--ort-profile", "p.json", "-o", "fit.json"}, want: func(o *CalibrateOptions) string {
			return check(reflect.DeepEqual(o.ORT, []string{"p.json"}) && o.Out == "fit.json", "profile, out", o.Base != nil && o.Base.Name == "cpu", "base cpu",
				!o.Joint, "direct fit", o.Host == nil, "not --host", o.Format == report.Table, "format")
		}},
		{args: []string{"--table", "t.csv", "--torch-trace", "tr.json", "--base", "cpu-1t", "--fit", "joint", "--name", "mine", "-o", "fit.json", "--dim", "N=1"}, want: func(o *CalibrateOptions) string {
			return check(o.Base.Name == "cpu-1t", "base cpu-1t", o.Joint, "joint", o.Name == "mine", "name", len(o.Tables) == 1 && len(o.Torch) == 1, "measurements",
				modelIs(o.Model, []string{"N=1"}, nil, defaultMaxMemory) == "", "dims")
		}},
		{args: []string{"--host", "--threads", "2,1", "--no-save", "-o", "x.json", "--max-seconds", "0.5", "--keep", "k"}, want: func(o *CalibrateOptions) string {
			h := o.Host
			return check(h != nil && reflect.DeepEqual(h.Threads, []int{1, 2}), "threads 1,2", h != nil && h.NoSave && h.MaxSeconds == 0.5 && h.Keep == "k", "host flags",
				o.Name == "local", "name defaults to local")
		}},
		{args: []string{"-o", "fit.json"}, code: 2},
		{args: []string{"--ort-profile", "p.json"}, code: 2},
		{args: []string{"--ort-profile", "p.json", "-o", "fit.json", "--fit", "magic"}, code: 2},
		{args: []string{"--ort-profile", "p.json", "-o", "fit.json", "--base", "no-such-hw"}, code: 2},
		{args: []string{"--ort-profile", "p.json", "-o", "fit.json", "--from", "d"}, code: 2},
		{args: []string{"--host", "--dim", "N=1"}, code: 2},
		{args: []string{"--host", "--threads", "2"}, code: 2},
		{args: []string{"--host", "--name", "h100"}, code: 2},
		{args: []string{"--host", "--name", "bad/name"}, code: 2},
		{args: []string{"--host", "--no-save"}, code: 2},
		{args: []string{"--host", "--ort-profile", "p.json"}, code: 2},
	})
}

func TestArgvValidate(t *testing.T) {
	dir := t.TempDir()
	testArgv(t, NewCmdValidate, []argvCase[ValidateOptions]{
		{args: []string{"m.onnx", "--ort-profile", "p.json"}, want: func(o *ValidateOptions) string {
			return check(o.Path == "m.onnx" && o.ORT == "p.json", "path, profile", o.HW.Name == "cpu", "hw cpu", o.Format == report.Table, "format")
		}},
		{args: []string{"m.onnx", "--table", "t.csv", "--ort-latency", "l.json", "--hw", "cpu-1t", "--top", "3", "--format", "json"}, want: func(o *ValidateOptions) string {
			return check(o.Table == "t.csv" && o.Latency == "l.json", "table, latency", o.HW.Name == "cpu-1t", "hw", o.Top == 3, "top", o.Format == report.JSON, "json")
		}},
		{args: []string{"m.onnx", "--optimized", "o.onnx"}, want: func(o *ValidateOptions) string {
			return check(o.Optimized == "o.onnx", "optimized", o.HW.Name == "cpu-1t", "--optimized defaults to cpu-1t")
		}},
		{args: []string{"--ort-latency", dir, "--models", "ms"}, want: func(o *ValidateOptions) string {
			return check(o.Path == "" && o.Latency == dir && o.Models == "ms", "a folder of records")
		}},
		{args: []string{"m.onnx"}, code: 2},
		{args: []string{"m.onnx", "--ort-profile", "p.json", "--table", "t.csv"}, code: 2},
		{args: []string{"m.onnx", "--ort-profile", "p.json", "--top", "-2"}, code: 2},
		{args: []string{"m.onnx", "--optimized", "o.onnx", "--table", "t.csv"}, code: 2},
		{args: []string{"--optimized", "o.onnx"}, code: 2},
		{args: []string{"--ort-latency", "no-such-dir"}, code: 2},
		{args: []string{"m.onnx", "--ort-profile", "p.json", "--hw", "no-such-hw"}, code: 2},
	})
}

func TestArgvMicrobench(t *testing.T) {
	testArgv(t, NewCmdMicrobench, []argvCase[MicrobenchOptions]{
		{args: []string{"m.onnx", "--out", "ops.json", "--format", "json", "--input", "x=2x3"}, want: func(o *MicrobenchOptions) string {
			return check(o.Path == "m.onnx" && o.Out == "ops.json", "path, out", o.Format == report.JSON, "json",
				modelIs(o.Model, nil, []string{"x=[2,3]"}, defaultMaxMemory) == "", "inputs")
		}},
		{args: []string{"m.onnx", "--format", "csv"}, code: 2},
	})
}

func TestArgvPlanShow(t *testing.T) {
	testArgv(t, NewCmdPlanShow, []argvCase[PlanShowOptions]{
		{args: []string{"plan.json"}, want: func(o *PlanShowOptions) string {
			return check(o.Path == "plan.json" && o.Top == 20 && o.Format == report.Table, "defaults")
		}},
		{args: []string{"plan.json", "--top", "0", "--format", "json"}, want: func(o *PlanShowOptions) string {
			return check(o.Top == 0 && o.Format == report.JSON, "top 0, json")
		}},
		{args: []string{"plan.json", "--top", "-1"}, code: 2},
	})
}

func TestArgvVersion(t *testing.T) {
	testArgv(t, NewCmdVersion, []argvCase[VersionOptions]{
		{args: nil, want: func(o *VersionOptions) string { return check(o.Format == report.Table, "table") }},
		{args: []string{"--format", "json"}, want: func(o *VersionOptions) string { return check(o.Format == report.JSON, "json") }},
		{args: []string{"--format", "csv"}, code: 2},
		{args: []string{"extra"}, code: 2},
	})
}
