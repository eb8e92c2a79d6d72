package llm

import (
	"math"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cluster"
)

// publishedRun is a large training run with its published throughput.
type publishedRun struct {
	name, source string
	model        Transformer
	gpu, net     string
	gpus, nics   int // GPUs; NICs per 8-GPU machine
	opts         LLMOptions
	framework    string
	// want is the published TFLOP/s per GPU; hardware says it counts the
	// recomputed forward (Megatron's and DeepSpeed's convention), else it
	// counts the model's FLOPs only (MFU x peak).
	want     float64
	hardware bool
}

// TestPublishedRuns: training runs other than the SC21 table (held out:
// the framework's kernel efficiency is fitted to SC21 only), each within
// 15% of its published TFLOP/s per GPU, and fitting in memory.
//
// Llama 3 405B runs as the paper describes it (section 3.3.2): FSDP
// sharding optimizer states and gradients (weights not resharded after
// the forward: ZeRO-2's memory), gradients reduce-scattered in fp32 (its
// "numerical stability" paragraph), an interleaved schedule whose first
// chunk on the first stage holds only the embedding and whose last chunk
// on the last stage holds only the output layer (126 layers + 2 in 16 x 8
// one-layer chunks), 8K sequences without activation checkpointing; the
// 128K run (context parallelism 16) with full recomputation, which the
// paper does not state (it says 8K trained without checkpointing; with
// none at 128K the prediction is 44% above the published figure, see
// TestLlama3Memory for the memory).
//
// MT-NLG 530B on DeepSpeed (Smith et al., arXiv:2201.11990, section 2.4:
// 2,240 to 3,360 A100s, 126 / 121 / 113 TFLOP/s per GPU) calibrates the
// DeepSpeed pipeline engine's host time per micro-batch on its 2,240-GPU
// run (deepspeedMicroBatchOverheadMs); its other two runs and BLOOM are
// held out.
func TestPublishedRuns(t *testing.T) {
	l405, _ := TransformerPreset("llama3-405b")
	bloom := Transformer{Name: "bloom-176b", Layers: 70, Hidden: 14336, Heads: 112, KVHeads: 112, FFN: 4 * 14336, Vocab: 250880, Seq: 2048,
		TiedEmbeddings: true, Bias: true}
	gpt530 := Transformer{Name: "mt-nlg-530b", Layers: 105, Hidden: 20480, Heads: 128, KVHeads: 128, FFN: 4 * 20480, Vocab: 50272, Seq: 2048,
		TiedEmbeddings: true, Bias: true, LearnedPositions: true, Dropout: true}
	const (
		srcLlama = "Llama Team, AI @ Meta, 'The Llama 3 Herd of Models', arXiv:2407.21783 (2024), Table 4: Llama 3 405B on H100s (RoCE, 400 Gb/s per GPU), bf16, 16M tokens per batch; TFLOP/s per GPU = BF16 MFU x 989; layout from section 3.3.2 (FSDP sharding optimizer states and gradients, one-layer interleaved chunks with the embedding and output layer in chunks of their own, 8K without activation checkpointing, fp32 reduce-scatter)"
		srcBloom = "BigScience, 'BLOOM: A 176B-Parameter Open-Access Multilingual Language Model', arXiv:2211.05100, section 3.4, and the BigScience 176B training notes: 48 x 8 A100 80 GB on Jean Zay (4 Omni-Path 100 Gb/s links per node), Megatron-DeepSpeed, TP 4, PP 12, DP 8, ZeRO-1, bf16, global batch 2048 x 2048, micro-batch 2, activation checkpointing: about 150 TFLOP/s per GPU"
		srcMTNLG = "Smith et al., 'Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B', arXiv:2201.11990 (2022), section 2.4: 280 / 350 / 420 DGX A100 (HDR InfiniBand, 8 x 200 Gb/s per node), TP 8, PP 35, DP 8 / 10 / 12, global batch 1920 of 2048 tokens, micro-batch 1, fp16, full activation checkpointing, DeepSpeed's pipeline engine: 126 / 121 / 113 TFLOP/s per GPU (the 2,240-GPU figure calibrates the DeepSpeed preset)"
		srcNemo  = "NVIDIA, 'Nemotron-4 340B Technical Report', arXiv:2406.11704 (2024), section 2.3 and Table 2: 96 layers, hidden 18432, 96 heads (8 kv), squared-ReLU FFN 73728, vocab 256000, seq 4096; DGX H100 (8 x 400 Gb/s InfiniBand per node), TP 8, PP 12 with interleaving, DP 16 / 32 / 64 (1536 / 3072 / 6144 GPUs), distributed optimizer, batch 768 / 1536 / 2304: MFU 42.4% / 42.3% / 41.0% (x 989.4 TFLOP/s); one-layer chunks (vp 8) and selective recomputation assumed (not stated)"
		srcKorth = "Korthikanti et al., 'Reducing Activation Recomputation in Large Transformer Models', MLSys 2023 (arXiv:2205.05198), abstract: the 530B GPT-3 style model (105 layers, hidden 20480, 128 heads) on 2240 A100s reaches 54.2% MFU with sequence parallelism and selective recomputation, 42.1% with full recomputation; TP 8, PP 35 as in its Table 3; global batch 2240 (its 280-GPU batch of 280 x 8 data-parallel replicas) and 3 virtual stages (SC21's 530B run) assumed; MFU x 312 TFLOP/s"
	)
	llama := func(gpus, cp, seq int, want float64) publishedRun {
		rc := RecomputeNone
		if seq > 8192 {
			rc = RecomputeFull
		}
		return publishedRun{name: "llama3-405b", source: srcLlama, model: *l405, gpu: "h100", net: "roce-400", gpus: gpus, nics: 8,
			opts: LLMOptions{TP: 8, PP: 16, CP: cp, VirtualStages: 8, SequenceParallel: true, ZeRO: 2, Recompute: rc,
				MicroBatch: 1, GlobalBatch: 16 << 20 / seq, Seq: seq, DType: ir.BFloat16},
			framework: "fsdp", want: want}
	}
	korth := func(selective bool, want float64) publishedRun {
		o := LLMOptions{TP: 8, PP: 35, VirtualStages: 3, Recompute: RecomputeFull, MicroBatch: 1, GlobalBatch: 2240, DType: ir.Float16}
		if selective {
			o.SequenceParallel, o.Recompute = true, RecomputeSelective
		}
		return publishedRun{name: "gpt-530b", source: srcKorth, model: gpt530, gpu: "a100", net: "ib-hdr", gpus: 2240, nics: 8,
			opts: o, framework: "megatron-2021", want: want}
	}
	mtnlg := func(gpus int, want float64) publishedRun {
		return publishedRun{name: "mt-nlg-530b", source: srcMTNLG, model: gpt530, gpu: "a100", net: "ib-hdr", gpus: gpus, nics: 8,
			opts:      LLMOptions{TP: 8, PP: 35, ZeRO: 1, Recompute: RecomputeFull, MicroBatch: 1, GlobalBatch: 1920, DType: ir.Float16},
			framework: "deepspeed", want: want, hardware: true}
	}
	nemo := Transformer{Name: "nemotron-4-340b", Layers: 96, Hidden: 18432, Heads: 96, KVHeads: 8, FFN: 73728, Vocab: 256000, Seq: 4096}
	nemotron := func(dp, batch int, mfu float64) publishedRun {
		return publishedRun{name: "nemotron-4-340b", source: srcNemo, model: nemo, gpu: "h100", net: "ib-ndr", gpus: 96 * dp, nics: 8,
			opts: LLMOptions{TP: 8, PP: 12, VirtualStages: 8, SequenceParallel: true, ZeRO: 1, Recompute: RecomputeSelective,
				MicroBatch: 1, GlobalBatch: batch, DType: ir.BFloat16},
			framework: "megatron-core", want: mfu * 989.4}
	}
	runs := []publishedRun{
		llama(8192, 1, 8192, 430),
		llama(16384, 1, 8192, 400),
		llama(16384, 16, 131072, 380),
		{name: "bloom-176b", source: srcBloom, model: bloom, gpu: "a100", net: "ib-edr", gpus: 384, nics: 4,
			opts:      LLMOptions{TP: 4, PP: 12, ZeRO: 1, Recompute: RecomputeFull, MicroBatch: 2, GlobalBatch: 2048, DType: ir.BFloat16},
			framework: "deepspeed", want: 150, hardware: true},
		korth(true, 0.542*312), korth(false, 0.421*312),
		mtnlg(2240, 126), mtnlg(2800, 121), mtnlg(3360, 113),
		nemotron(16, 768, 0.424), nemotron(32, 1536, 0.423), nemotron(64, 2304, 0.410),
	}
	for _, r := range runs {
		gpu, err := cluster.GPUPreset(r.gpu)
		if err != nil {
			t.Fatal(err)
		}
		net, err := cluster.NetworkPreset(r.net)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cluster.New(r.gpus/8, 8, gpu, net)
		if err != nil {
			t.Fatal(err)
		}
		c.NICsPerMachine = r.nics
		o := r.opts
		if o.Framework, err = FrameworkPreset(r.framework); err != nil {
			t.Fatal(err)
		}
		res, err := SimulateLLM(&r.model, c, o)
		if err != nil {
			t.Fatalf("%s on %d GPUs: %v", r.name, r.gpus, err)
		}
		got := res.ModelTFLOPSPerGPU
		if r.hardware {
			got = res.HardwareTFLOPSPerGPU
		}
		t.Logf("%s on %d %s (%s): %.0f TFLOP/s per GPU, published %.0f (%+.1f%%); step %.1f s (compute %.1f, comm %.1f, framework %.1f, bubble %.1f); MFU %.1f%%; %s",
			r.name, r.gpus, r.gpu, res.Layout(), got, r.want, 100*(got/r.want-1), res.StepMs/1e3, res.ComputeMs/1e3, res.CommMs/1e3, res.OverheadMs/1e3, res.BubbleMs/1e3, 100*res.MFU, res.Memory)
		if math.Abs(got/r.want-1) > 0.15 {
			t.Errorf("%s on %d GPUs: %.0f TFLOP/s per GPU, published %.0f (%s)", r.name, r.gpus, got, r.want, r.source)
		}
		if !res.Memory.Fits {
			t.Errorf("%s on %d GPUs: the published layout does not fit: %s", r.name, r.gpus, res.Memory)
		}
	}
}

// TestLlama3Memory: Llama 3 405B's 8K-sequence layout on 8,192 H100s fits
// only because FSDP shards the gradients too (Megatron's distributed
// optimizer, ZeRO-1, keeps 12 GB of fp32 gradients per GPU and does not
// fit without recomputation), and the embedding's chunk of its own is
// what lets one-layer chunks cover 126 layers on 16 stages.
func TestLlama3Memory(t *testing.T) {
	l405, _ := TransformerPreset("llama3-405b")
	gpu, _ := cluster.GPUPreset("h100")
	net, _ := cluster.NetworkPreset("roce-400")
	c, err := cluster.New(1024, 8, gpu, net)
	if err != nil {
		t.Fatal(err)
	}
	c.NICsPerMachine = 8
	run := func(zero int, fw string, rc Recompute) Memory {
		o := LLMOptions{TP: 8, PP: 16, VirtualStages: 8, SequenceParallel: true, ZeRO: zero, Recompute: rc, GlobalBatch: 2048, Seq: 8192, Framework: mustFramework(t, fw)}
		res, err := SimulateLLM(l405, c, o)
		if err != nil {
			t.Fatalf("zero %d %s recompute %s: %v", zero, fw, rc, err)
		}
		t.Logf("zero %d %s recompute %s: %s", zero, fw, rc, res.Memory)
		return res.Memory
	}
	if m := run(2, "fsdp", RecomputeNone); !m.Fits {
		t.Errorf("the paper's layout (gradients sharded, no checkpointing) does not fit: %s", m)
	}
	if m := run(1, "megatron-core", RecomputeNone); m.Fits {
		t.Errorf("without gradient sharding and without recomputation: fits (%s), want not", m)
	}
	if m := run(1, "megatron-core", RecomputeFull); !m.Fits {
		t.Errorf("ZeRO-1 with full recomputation does not fit: %s", m)
	}
	if _, err := SimulateLLM(l405, c, LLMOptions{TP: 8, PP: 16, VirtualStages: 9, GlobalBatch: 2048}); err == nil || !strings.Contains(err.Error(), "more chunks") {
		t.Errorf("16 x 9 chunks for 126 layers: %v", err)
	}
}
