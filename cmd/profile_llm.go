package cmd

// This file types `wolong profile --cluster`'s LLM flags (issue 13): the
// parallel layout of a decoder transformer's training step (--tp --pp
// --dp --ep --cp --vp --sp --zero --recompute --micro-batch
// --global-batch --seq --framework), the --strategy auto search over it,
// and serving (--serve --tp --batch --prompt --output). Any of them
// switches profile --cluster from the graph-level strategies (ps,
// allreduce, pipeline) to the planner of simulate/cluster; without them
// the --cluster path is unchanged.

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// LLMFlags are profile's LLM flags as given.
type LLMFlags struct {
	Preset                 string // --llm: a preset architecture instead of MODEL's
	TP, PP, DP, EP, CP, VP int
	SP                     bool
	ZeRO                   int
	Recompute              string
	MicroBatch             int
	GlobalBatch            int
	Seq                    int
	Framework              string
	TPOverlap              bool   // --tp-overlap
	GradReduce             string // --grad-reduce bf16|fp32
	Serve                  bool
	Prompt, Output         int
	Load                   ServeLoadFlags // --serve's request-level flags
}

// addLLMFlags registers the LLM flags of profile: the training layout's
// and serving's.
func addLLMFlags(c *cobra.Command, o *LLMFlags) {
	addLLMTrainFlags(c, o)
	f := c.Flags()
	f.BoolVar(&o.Serve, "serve", false, "LLM: predict serving (prefill + decode with a KV cache) with --tp, --batch, --prompt, --output")
	f.IntVar(&o.Prompt, "prompt", 0, "LLM --serve: prompt tokens per sequence (default 1024)")
	f.IntVar(&o.Output, "output", 0, "LLM --serve: generated tokens per sequence (default 256)")
	addServeLoadFlags(c, &o.Load)
}

// addLLMTrainFlags registers the flags of a training layout (optimize's
// LLM flags: its --output is the plan file, and it plans no serving).
func addLLMTrainFlags(c *cobra.Command, o *LLMFlags) {
	f := c.Flags()
	f.StringVar(&o.Preset, "llm", "", "with --cluster: plan the preset decoder transformer `NAME` ("+strings.Join(llm.TransformerNames(), ", ")+"), or the one a JSON config FILE.json describes (layers, hidden, heads, kv_heads, head_dim, ffn, gated, vocab, seq, experts, top_k, tied_embeddings, bias, rms_norm, learned_positions, dropout), instead of MODEL's")
	f.IntVar(&o.TP, "tp", 0, "LLM: tensor-parallel degree (default 1)")
	f.IntVar(&o.PP, "pp", 0, "LLM: pipeline-parallel degree (default 1)")
	f.IntVar(&o.DP, "dp", 0, "LLM: data-parallel degree (default: the GPUs / (tp x pp x cp))")
	f.IntVar(&o.EP, "ep", 0, "LLM: expert-parallel degree, over the dp x cp ranks (default 1)")
	f.IntVar(&o.CP, "cp", 0, "LLM: context-parallel degree (default 1)")
	f.IntVar(&o.VP, "vp", 0, "LLM: interleaved 1F1B model chunks per pipeline rank (default 1)")
	f.BoolVar(&o.SP, "sp", false, "LLM: sequence parallelism with tensor parallelism")
	f.IntVar(&o.ZeRO, "zero", 0, "LLM: ZeRO stage `0..3` over the data-parallel ranks (3: FSDP)")
	f.StringVar(&o.Recompute, "recompute", "none", "LLM: activation recomputation none|selective|full")
	f.IntVar(&o.MicroBatch, "micro-batch", 0, "LLM: sequences per micro-batch (default 1)")
	f.IntVar(&o.GlobalBatch, "global-batch", 0, "LLM: sequences per training step (default dp x micro-batch x 4 x pp; required by --strategy auto)")
	f.IntVar(&o.Seq, "seq", 0, "LLM: sequence length (default: the model's; with --serve, the prompt when --prompt is not given)")
	f.StringVar(&o.Framework, "framework", "megatron-core", "LLM: training framework "+strings.Join(llm.FrameworkNames(), "|"))
	f.BoolVar(&o.TPOverlap, "tp-overlap", false, "LLM: overlap tensor-parallel communication with the GEMMs (Transformer Engine userbuffers, Megatron --tp-comm-overlap)")
	f.StringVar(&o.GradReduce, "grad-reduce", "", "LLM: gradient reduction type bf16|fp32 (default: the framework's, fp32 main grads)")
	comp := func(vals ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp)
	}
	_ = c.RegisterFlagCompletionFunc("llm", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return llm.TransformerNames(), cobra.ShellCompDirectiveDefault // the presets, and files for a FILE.json config
	})
	_ = c.RegisterFlagCompletionFunc("framework", comp(llm.FrameworkNames()...))
	_ = c.RegisterFlagCompletionFunc("recompute", comp("none", "selective", "full"))
}

// llmTrainFlags set the training layout; llmServeFlags serving; the
// others (llm, tp, seq) serve both.
var (
	llmTrainFlags = []string{"pp", "dp", "ep", "cp", "vp", "sp", "zero", "recompute", "micro-batch", "global-batch", "framework", "tp-overlap", "grad-reduce"}
	llmServeFlags = append([]string{"serve", "prompt", "output", "static"}, serveLoadFlags...)
	llmFlags      = append(append([]string{"llm", "tp", "seq"}, llmTrainFlags...), llmServeFlags...)
	// notWithLLM are the graph-level cluster and single-GPU flags the
	// planner does not read.
	notWithLLM = []string{"sweep", "plot", "transport", "bucket-mb", "allreduce", "schedule", "micro-batches", "stages", "trace", "trace-gpus",
		"opt-level", "streams", "mode", "by", "tf32", "trip", "conv-algo"}
)

// onlyTrace says --trace is the one graph-level flag given (what --serve
// draws its iterations with).
func onlyTrace(changed func(string) bool) bool {
	for _, n := range notWithLLM {
		if n != "trace" && changed(n) {
			return false
		}
	}
	return true
}

// firstChanged returns the first of names given on the command line.
func firstChanged(changed func(string) bool, names []string) string {
	for _, n := range names {
		if changed(n) {
			return n
		}
	}
	return ""
}

// LLMRun is profile's LLM planning, typed: a training step (Train), a
// search (Search), or serving (Serve).
type LLMRun struct {
	// Preset is --llm's architecture (nil: the transformer MODEL holds).
	Preset *llm.Transformer
	// Train is the training layout (also the search's fixed fields).
	Train llm.LLMOptions
	// Search is set by --strategy auto: the dimensions a flag fixed.
	Search *llm.SearchOptions
	// Serve is set by --serve; ServeSearch by --serve --strategy auto.
	Serve       *llm.ServeOptions
	ServeSearch bool
	// Assumptions are the defaults the LLM flags left to the command.
	Assumptions []string
}

// llmRun types the LLM flags; batch is --batch (serving's batch), dtype
// --dtype (Undefined: bfloat16), search whether --strategy auto was given
// and top the search's rows. It returns nil when no LLM flag is given.
func (o *LLMFlags) llmRun(changed func(string) bool, batch int64, dtype ir.DType, search bool, top int) (*LLMRun, error) {
	if firstChanged(changed, llmFlags) == "" {
		return nil, nil
	}
	if n := firstChanged(changed, notWithLLM); n != "" && !(o.Serve && onlyTrace(changed)) {
		return nil, Usagef("--%s does not apply to the LLM planner (--%s)", n, firstChanged(changed, llmFlags))
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"tp", o.TP}, {"pp", o.PP}, {"dp", o.DP}, {"ep", o.EP}, {"cp", o.CP}, {"vp", o.VP}, {"micro-batch", o.MicroBatch},
		{"global-batch", o.GlobalBatch}, {"seq", o.Seq}, {"prompt", o.Prompt}, {"output", o.Output}} {
		if v.n < 0 || v.n > 1<<24 {
			return nil, Usagef("--%s %d: want 1..%d", v.name, v.n, 1<<24)
		}
		if v.n == 0 && changed(v.name) {
			return nil, Usagef("--%s 0: want at least 1", v.name)
		}
	}
	if dtype != ir.Undefined && dtype != ir.BFloat16 && dtype != ir.Float16 && dtype != ir.Float8E4M3FN && !(dtype == ir.Float4E2M1 && o.Serve) {
		return nil, Usagef("--dtype %s: the LLM planner computes in bf16, fp16 or fp8 (bfloat16, float16, float8e4m3fn; --serve also fp4, float4e2m1)", dtype)
	}
	r := &LLMRun{}
	if o.Preset != "" {
		t, err := llm.Architecture(o.Preset)
		if err != nil {
			return nil, Usagef("--llm: %v", err)
		}
		r.Preset = t
	}
	if o.Serve {
		return o.serveRun(r, changed, batch, dtype, search)
	}
	return o.trainRun(r, changed, dtype, search, top)
}

// serveRun types the serving flags into r (--serve): the batch, prompt
// and output, and the request-level load.
func (o *LLMFlags) serveRun(r *LLMRun, changed func(string) bool, batch int64, dtype ir.DType, search bool) (*LLMRun, error) {
	if n := firstChanged(changed, llmTrainFlags[1:]); n != "" { // all but pp
		return nil, Usagef("--%s is a training flag: --serve takes --tp, --pp, --batch, --prompt, --output, --seq and the request-level flags", n)
	}
	if changed("batch") && batch < 1 {
		return nil, Usagef("--batch %d: want 1..%d", batch, 1<<24)
	}
	if batch > 1<<24 {
		return nil, Usagef("--batch %d: want 1..%d", batch, 1<<24)
	}
	prompt := o.Prompt
	if prompt == 0 {
		prompt = o.Seq // --seq reads as the prompt when --prompt is not given
	}
	r.Serve = &llm.ServeOptions{TP: o.TP, Batch: int(batch), Prompt: prompt, Output: o.Output, DType: dtype}
	load, err := o.Load.serveLoad(changed, o.PP)
	if err != nil {
		return nil, err
	}
	if search && (load == nil || load.Rate <= 0 || (load.SLO.TTFTMs <= 0 && load.SLO.TPOTMs <= 0) || changed("tp") || changed("pp") || changed("disagg") || changed("max-batched-tokens")) {
		return nil, Usagef("--serve --strategy auto searches tp, pp, max batched tokens and the P:D split for goodput: give it --rate R and --slo ttft=MS,tpot=MS, and none of --tp, --pp, --disagg, --max-batched-tokens")
	}
	r.ServeSearch = search
	switch {
	case load != nil && o.Load.Static:
		return nil, Usagef("--static serves one static batch: the request-level flags (--%s) do not apply", firstChanged(changed, append(serveLoadFlags, "pp", "runtime")))
	case load == nil && !o.Load.Static:
		load = &llm.ServeLoad{} // the request-level simulator at its defaults: --rate max
		r.Assumptions = append(r.Assumptions, "no request-level flag: the in-flight-batching simulator at its defaults (--static for one static batch)")
	}
	if load != nil {
		r.Serve.Load = load
		r.Assumptions = append(r.Assumptions, load.Note())
	} else if dtype == ir.Float4E2M1 {
		return nil, Usagef("--dtype fp4 needs the request-level simulator: drop --static")
	}
	return r, nil
}

// trainRun types the training layout's flags into r, and the search's
// with --strategy auto.
func (o *LLMFlags) trainRun(r *LLMRun, changed func(string) bool, dtype ir.DType, search bool, top int) (*LLMRun, error) {
	if n := firstChanged(changed, []string{"prompt", "output", "batch"}); n != "" {
		return nil, Usagef("--%s is a serving flag: add --serve (training takes --micro-batch and --global-batch)", n)
	}
	if o.ZeRO < 0 || o.ZeRO > 3 {
		return nil, Usagef("--zero %d: want 0..3", o.ZeRO)
	}
	rc, err := llm.ParseRecompute(o.Recompute)
	if err != nil {
		return nil, Usagef("--recompute: %v", err)
	}
	fwName := o.Framework
	if name, note := llm.DefaultFramework(o.ZeRO, o.PP > 1 || search); !changed("framework") && note != "" {
		fwName = name
		r.Assumptions = append(r.Assumptions, note)
	}
	fw, err := llm.FrameworkPreset(fwName)
	if err != nil {
		return nil, Usagef("--framework: %v", err)
	}
	if err := applyTrainPrecision(fw, o, changed); err != nil {
		return nil, err
	}
	r.Train = llm.LLMOptions{TP: o.TP, PP: o.PP, DP: o.DP, EP: o.EP, CP: o.CP, VirtualStages: o.VP, SequenceParallel: o.SP,
		ZeRO: o.ZeRO, Recompute: rc, MicroBatch: o.MicroBatch, GlobalBatch: o.GlobalBatch, Seq: o.Seq, DType: dtype, Framework: fw}
	if search {
		if r.Search, err = o.search(changed, r.Train, top); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// search types --strategy auto: each parallel flag given fixes its
// dimension. --dp cannot be fixed (it is what the others leave of the
// cluster) and the global batch is required (the search compares layouts
// of one step).
func (o *LLMFlags) search(changed func(string) bool, base llm.LLMOptions, top int) (*llm.SearchOptions, error) {
	if changed("dp") {
		return nil, Usagef("--dp with --strategy auto: dp is the GPUs the other degrees leave; fix --tp, --pp, --cp or --ep instead")
	}
	if o.GlobalBatch == 0 {
		return nil, Usagef("--strategy auto needs --global-batch N (sequences per step) to compare layouts")
	}
	s := &llm.SearchOptions{Base: base, Top: top}
	fix := func(name string, v int, dst *[]int) {
		if changed(name) {
			*dst = []int{v}
		}
	}
	fix("tp", o.TP, &s.TP)
	fix("pp", o.PP, &s.PP)
	fix("cp", o.CP, &s.CP)
	fix("ep", o.EP, &s.EP)
	fix("vp", o.VP, &s.VirtualStages)
	fix("zero", o.ZeRO, &s.ZeRO)
	fix("micro-batch", o.MicroBatch, &s.MicroBatch)
	if changed("recompute") {
		s.Recompute = []llm.Recompute{base.Recompute}
	}
	if changed("sp") {
		s.SequenceParallel = []bool{o.SP}
	}
	return s, nil
}

// llmRun types the LLM flags of profile (nil when none is given) and
// checks MODEL against --llm: exactly one names the model.
func (f *profileFlags) llmRun(args []string, dt ir.DType, changed func(string) bool) (*LLMRun, error) {
	top := 5
	if changed("top") {
		top = max(1, f.top)
	}
	return commandLLMRun("profile", &f.llm, &f.cluster, args, f.batch, dt, top, changed)
}

// commandLLMRun types command's LLM flags (nil when none is given): they
// need --cluster, --strategy auto or a layout, and MODEL or --llm PRESET,
// not both; batch is serving's --batch.
func commandLLMRun(command string, llm *LLMFlags, cl *ClusterFlags, args []string, batch int64, dt ir.DType, top int, changed func(string) bool) (*LLMRun, error) {
	search := changed("strategy") && strings.EqualFold(cl.Strategy, "auto")
	lr, err := llm.llmRun(changed, batch, dt, search, top)
	switch {
	case err != nil:
		return nil, err
	case lr == nil && len(args) == 0:
		return nil, Usagef("%s needs MODEL (an .onnx file), or --llm PRESET with --cluster NxG", command)
	case lr == nil:
		return nil, nil
	case cl.Cluster == "":
		return nil, Usagef("--%s needs --cluster NxG", firstChanged(changed, llmFlags))
	case changed("strategy") && !search:
		return nil, Usagef("--strategy %s is a graph-level strategy: with the LLM flags give --strategy auto or a layout (--tp, --pp, ...)", cl.Strategy)
	case lr.Preset != nil && len(args) > 0:
		return nil, Usagef("give MODEL or --llm PRESET, not both")
	case lr.Preset == nil && len(args) == 0:
		return nil, Usagef("%s needs MODEL (an .onnx file) or --llm PRESET", command)
	}
	return lr, nil
}
