package llm

// This file turns a predicted training step (LLMResult) into a layout plan
// a user launches from (`wolong optimize --cluster` with the LLM flags):
// which layers each pipeline stage (and each interleaved model chunk)
// holds, where every parallel group's ranks sit on the machines, and the
// equivalent Megatron-LM command-line arguments. It predicts nothing
// itself: the step time, MFU, memory and collectives are the result's.

import (
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cluster"
)

// LLMPlan is a training layout with its prediction. Its JSON form carries
// the result's fields at the top level (tp, pp, dp, ep, cp, ..., step_ms,
// mfu, tokens_per_s, memory_per_gpu, comm) and adds the architecture,
// stages, ranks and megatron_args.
type LLMPlan struct {
	*LLMResult
	Architecture *Transformer `json:"architecture"`
	Stages       []PlanStage  `json:"stages"`
	Ranks        RankMap      `json:"ranks"`
	// MegatronArgs are the Megatron-LM (pretrain_gpt.py) arguments of the
	// layout, model and batch; data, tokenizer and learning-rate arguments
	// are the user's.
	MegatronArgs string `json:"megatron_args"`
	// Notes say where the arguments cannot express the plan exactly.
	Notes []string `json:"notes,omitempty"`
}

// PlanStage is one pipeline rank's share of the model.
type PlanStage struct {
	Stage  int `json:"stage"`
	Layers int `json:"layers"`
	// Chunks are the stage's model chunks (one without interleaving),
	// each a run of consecutive layers.
	Chunks    []PlanChunk `json:"chunks"`
	Embedding bool        `json:"embedding"` // holds the token embedding
	Head      bool        `json:"head"`      // holds the final norm and LM head
	// FirstMachine..LastMachine are the machines the stage's GPUs are on.
	FirstMachine int `json:"first_machine"`
	LastMachine  int `json:"last_machine"`
}

// PlanChunk is a run of layers, numbered from 0. A chunk of no layers
// (FirstLayer and LastLayer -1) holds only the embedding (the first
// stage's first chunk) or only the output layer and loss (the last
// stage's last chunk): Llama 3's layout, where the embedding and the
// output layer each take a layer's slot in the pipeline split.
type PlanChunk struct {
	VirtualStage int `json:"virtual_stage"` // chunk index x pp + stage
	FirstLayer   int `json:"first_layer"`
	LastLayer    int `json:"last_layer"`
}

// Empty says whether the chunk holds no transformer layer.
func (c PlanChunk) Empty() bool { return c.FirstLayer < 0 }

// RankMap says where the ranks of each parallel group are: ranks are
// ordered tp, cp, dp, pp (tensor parallelism fastest) and filled into the
// machines in order. Groups lists the degrees above 1.
type RankMap struct {
	Order   string      `json:"order"`
	Formula string      `json:"formula"`
	Groups  []RankGroup `json:"groups"`
}

// RankGroup is one kind of communicator.
type RankGroup struct {
	Kind   string `json:"kind"` // tp, cp, dp, ep, pp
	Size   int    `json:"size"`
	Stride int    `json:"stride"` // rank distance between members
	Groups int    `json:"groups"` // communicators of this kind
	// Domains is how many NVLink domains (machines) one group spans.
	Domains int `json:"domains"`
	// First is the group holding rank 0 (at most 16 ranks shown).
	First []int  `json:"first"`
	Where string `json:"where"`
}

// maxShownRanks bounds RankGroup.First.
const maxShownRanks = 16

// NewLLMPlan builds the plan of result r, predicted for t on c with the
// framework fw (nil: megatron-core).
func NewLLMPlan(t *Transformer, c *cluster.Cluster, r *LLMResult, fw *Framework) *LLMPlan {
	if fw == nil {
		fw, _ = FrameworkPreset("")
	}
	tt := *t
	tt.Seq = r.Seq
	p := &LLMPlan{LLMResult: r, Architecture: &tt}
	p.Stages = planStages(&tt, c, r)
	p.Ranks = rankMap(c, r)
	p.MegatronArgs, p.Notes = megatronArgs(&tt, r, fw, p.Stages)
	return p
}

// planStages assigns the layers: stage i's count is the planner's
// (stageLayers); under interleaving each stage's layers split into
// VirtualStages chunks and the chunks take consecutive layers in the
// order chunk x pp + stage (Megatron's interleaved schedule). A stage's
// larger chunks come first, except on the first stage, where they come
// last: its first chunk also runs the embedding, as the last stage's
// last chunk runs the output layer.
func planStages(t *Transformer, c *cluster.Cluster, r *LLMResult) []PlanStage {
	nl := stageLayers(t.Layers, r.PP)
	v := max(1, r.VirtualStages)
	sizes := make([][]int, r.PP) // [stage][chunk]
	for i, n := range nl {
		sizes[i] = make([]int, v)
		for j := range sizes[i] {
			k := j // chunk k takes one of the n % v extra layers when k < n % v
			if i == 0 && r.PP > 1 {
				k = v - 1 - j
			}
			sizes[i][j] = n / v
			if k < n%v {
				sizes[i][j]++
			}
		}
	}
	perStage := r.TP * r.CP * r.DP
	G := c.GPUsPerMachine
	out := make([]PlanStage, r.PP)
	for i := range out {
		out[i] = PlanStage{Stage: i, Layers: nl[i], Embedding: i == 0, Head: i == r.PP-1,
			FirstMachine: i * perStage / G, LastMachine: ((i+1)*perStage - 1) / G}
	}
	next := 0
	for j := 0; j < v; j++ {
		for i := range out {
			n := sizes[i][j]
			ch := PlanChunk{VirtualStage: j*r.PP + i, FirstLayer: next, LastLayer: next + n - 1}
			if n == 0 {
				ch.FirstLayer, ch.LastLayer = -1, -1
			}
			out[i].Chunks = append(out[i].Chunks, ch)
			next += n
		}
	}
	return out
}

// rankMap lists the communicators of r's layout on c.
func rankMap(c *cluster.Cluster, r *LLMResult) RankMap {
	G := c.GPUsPerMachine
	m := RankMap{Order: "tp-cp-dp-pp",
		Formula: fmt.Sprintf("rank = tp_rank + %d x (cp_rank + %d x (dp_rank + %d x pp_rank)); machine = rank / %d, local GPU = rank %% %d", r.TP, r.CP, r.DP, G, G)}
	add := func(kind string, size, stride int, where string) {
		if size <= 1 {
			return
		}
		g := c.Group(size, stride)
		first := make([]int, 0, min(size, maxShownRanks))
		for i := 0; i < size && i < maxShownRanks; i++ {
			first = append(first, i*stride)
		}
		dom := g.Domains()
		if dom == 1 {
			where += "; inside one NVLink domain"
		} else {
			where += fmt.Sprintf("; spans %d NVLink domains (crosses the network)", dom)
		}
		m.Groups = append(m.Groups, RankGroup{Kind: kind, Size: size, Stride: stride, Groups: r.GPUs / size, Domains: dom, First: first, Where: where})
	}
	add("tp", r.TP, 1, "tensor-parallel: every layer's all-reduces (reduce-scatter / all-gather under sequence parallelism)")
	add("cp", r.CP, r.TP, "context-parallel: the ring of key/value blocks")
	add("dp", r.DP, r.TP*r.CP, "data-parallel: gradients reduce (and ZeRO shards) over dp x cp")
	add("ep", r.EP, r.TP, "expert-parallel over the cp x dp ranks: the MoE all-to-alls")
	add("pp", r.PP, r.TP*r.CP*r.DP, "pipeline: activations sent stage to stage")
	return m
}

// megatronArgs writes the layout as Megatron-LM arguments, with notes
// where they cannot say it exactly.
func megatronArgs(t *Transformer, r *LLMResult, fw *Framework, stages []PlanStage) (string, []string) {
	var a, notes []string
	arg := func(s ...string) { a = append(a, s...) }
	num := func(name string, v int) { arg(name, fmt.Sprint(v)) }
	num("--tensor-model-parallel-size", r.TP)
	num("--pipeline-model-parallel-size", r.PP)
	if r.VirtualStages > 1 {
		chunks := r.PP * r.VirtualStages
		switch {
		case t.Layers%chunks == 0:
			num("--num-layers-per-virtual-pipeline-stage", t.Layers/chunks)
		case (t.Layers+2)%chunks == 0 && stages[0].Layers == (t.Layers+2)/r.PP-1 && stages[r.PP-1].Layers == stages[0].Layers:
			// the embedding and the output layer each count as a layer
			num("--num-layers-per-virtual-pipeline-stage", (t.Layers+2)/chunks)
			arg("--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split")
		default:
			num("--num-virtual-stages-per-pipeline-rank", r.VirtualStages)
			notes = append(notes, fmt.Sprintf("%d layers do not split evenly into %d x %d chunks: Megatron-LM needs a layout file or uneven-stage arguments for the stages listed", t.Layers, r.PP, r.VirtualStages))
		}
	} else if r.PP > 1 && t.Layers%r.PP != 0 {
		first, last := stages[0].Layers, stages[r.PP-1].Layers
		num("--decoder-first-pipeline-num-layers", first)
		num("--decoder-last-pipeline-num-layers", last)
		if r.PP > 2 && (t.Layers-first-last)%(r.PP-2) != 0 {
			notes = append(notes, fmt.Sprintf("the middle stages hold unequal layer counts (%d layers on %d stages): Megatron-LM splits the middle stages evenly, so give it the stages listed with a pipeline layout", t.Layers, r.PP))
		}
	}
	if r.CP > 1 {
		num("--context-parallel-size", r.CP)
	}
	if r.EP > 1 {
		num("--expert-model-parallel-size", r.EP)
	}
	if r.SeqParallel {
		arg("--sequence-parallel")
	}
	switch r.ZeRO {
	case 1:
		arg("--use-distributed-optimizer")
	case 2, 3:
		strategy := map[int]string{2: "optim_grads", 3: "optim_grads_params"}[r.ZeRO]
		arg("--use-custom-fsdp", "--data-parallel-sharding-strategy", strategy)
	}
	switch r.Recompute {
	case RecomputeSelective:
		arg("--recompute-granularity", "selective")
	case RecomputeFull:
		arg("--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1")
	}
	num("--micro-batch-size", r.MicroBatch)
	num("--global-batch-size", r.GlobalBatch)
	num("--seq-length", r.Seq)
	num("--max-position-embeddings", max(r.Seq, t.Seq))
	a = append(a, megatronModelArgs(t)...)
	switch r.DType {
	case ir.Float16.String():
		arg("--fp16")
	case ir.Float8E4M3FN.String():
		arg("--bf16", "--fp8-format", "hybrid")
	default:
		arg("--bf16")
	}
	if fw.Attention == FlashAttention {
		arg("--use-flash-attn")
	}
	if fw.OverlapGradReduce {
		arg("--overlap-grad-reduce")
	}
	if fw.OverlapParamGather && r.ZeRO >= 1 {
		arg("--overlap-param-gather")
	}
	if fw.TPOverlap > 0 && r.TP > 1 {
		arg("--tp-comm-overlap")
	}
	if !strings.HasPrefix(fw.Name, "megatron") {
		notes = append(notes, fmt.Sprintf("the plan was predicted for framework %s: the Megatron-LM arguments are its equivalent layout", fw.Name))
	}
	return strings.Join(a, " "), notes
}

// megatronModelArgs are the architecture's Megatron-LM arguments.
func megatronModelArgs(t *Transformer) []string {
	a := []string{"--num-layers", fmt.Sprint(t.Layers), "--hidden-size", fmt.Sprint(t.Hidden), "--ffn-hidden-size", fmt.Sprint(t.FFN),
		"--num-attention-heads", fmt.Sprint(t.Heads)}
	if t.KVHeads > 0 && t.KVHeads != t.Heads {
		a = append(a, "--group-query-attention", "--num-query-groups", fmt.Sprint(t.KVHeads))
	}
	if t.HeadDim > 0 && t.HeadDim*t.Heads != t.Hidden {
		a = append(a, "--kv-channels", fmt.Sprint(t.HeadDim))
	}
	if t.Gated {
		a = append(a, "--swiglu")
	}
	if t.RMSNorm {
		a = append(a, "--normalization", "RMSNorm")
	}
	if t.LearnedPositions {
		a = append(a, "--position-embedding-type", "learned_absolute")
	} else {
		a = append(a, "--position-embedding-type", "rope")
	}
	if !t.Bias {
		a = append(a, "--disable-bias-linear")
	}
	if !t.TiedEmbeddings {
		a = append(a, "--untie-embeddings-and-output-weights")
	}
	if !t.Dropout {
		a = append(a, "--attention-dropout", "0", "--hidden-dropout", "0")
	}
	if t.MoE() {
		a = append(a, "--num-experts", fmt.Sprint(t.Experts), "--moe-router-topk", fmt.Sprint(t.TopK))
	}
	return a
}
