package ir_test

// This file checks that the op table and the stages agree: every op in
// one registry (inference here, kernels in eval, cost functions in
// simulate/cost) is in the others, or listed in knownGaps with the
// reason it is not. The test logs the op x stage matrix.

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
)

// Stages an op may lack.
const (
	stageInfer = "infer"
	stageEval  = "eval"
	stageCost  = "cost"
	stageFuse  = "fuse" // an elementwise kernel the fuser treats as opaque
)

// knownGaps is the reviewed list of ops a stage lacks, with the reason.
// Ops are "Name" (ai.onnx) or "domain:Name". An entry that no longer
// describes a gap fails the test, so the list stays true.
var knownGaps = []struct {
	stage  string
	reason string
	ops    string
}{
	// The pattern kernels wolong's optimizer creates.
	{stageInfer, "a fused kernel infers through its body (ir.FusedBody)", fusedKernels},
	{stageEval, "a fused kernel runs its body", fusedKernels},
	{stageCost, "a fused kernel is costed as one kernel of its body's work (cost.Model.fused)", fusedKernels},

	// No inference function.
	{stageInfer, "costed for ONNX Runtime's 4-bit MatMul; no inference or kernel written yet", "com.microsoft:MatMulFpQ4"},

	// No kernel: run and verify refuse the model, constant folding leaves the node.
	{stageEval, "nondeterministic: verify cannot compare it and constant folding must not fold it",
		"Bernoulli Multinomial RandomNormal RandomNormalLike RandomUniform RandomUniformLike"},
	{stageEval, "old or experimental op, inferred for old files; no kernel written", "FC GRUUnit Scale ParametricSoftplus ScaledTanh MaxRoiPool"},
	{stageEval, "needs an image codec", "ImageDecoder"},
	{stageEval, "classical-ML op inferred for profiles; kernels exist for the tree ensembles, encoders and scalers only",
		"ai.onnx.ml:Cast ai.onnx.ml:CategoryMapper ai.onnx.ml:DictVectorizer ai.onnx.ml:Imputer ai.onnx.ml:LinearClassifier " +
			"ai.onnx.ml:LinearRegressor ai.onnx.ml:Normalizer ai.onnx.ml:SVMClassifier ai.onnx.ml:SVMRegressor ai.onnx.ml:ZipMap"},
	{stageEval, "differentiates a training graph; no reference kernel", "ai.onnx.preview.training:Gradient"},
	{stageEval, "ONNX Runtime's experimental window and STFT ops; the ai.onnx ops of these names have kernels", msExperimentalOps},
	{stageEval, "ONNX Runtime contrib op, inferred and costed for profiles of ORT-optimized models; no reference kernel (verify --ort runs it)",
		"com.microsoft:BiasAdd com.microsoft:BiasSoftmax com.microsoft:DynamicQuantizeLSTM com.microsoft:DynamicQuantizeMatMul " +
			"com.microsoft:MatMulFpQ4 com.microsoft:MatMulIntegerToFloat com.microsoft:NhwcConv com.microsoft:QGemm " +
			"com.microsoft:QLinearLeakyRelu com.microsoft:QLinearSigmoid"},
	{stageEval, "ONNX Runtime contrib op, inferred for profiles of ORT-optimized models; no reference kernel (verify --ort runs it)", msUncosted},

	// No cost function: the cost model's fallback prices the node as a
	// memory-bound copy of its inputs and outputs.
	{stageCost, "text op: host work the cost model does not model", "RegexFullMatch StringConcat StringNormalizer StringSplit TfIdfVectorizer"},
	{stageCost, "classical-ML or training op: no accelerator cost model",
		"ai.onnx.ml:ArrayFeatureExtractor ai.onnx.ml:Cast ai.onnx.ml:CategoryMapper ai.onnx.ml:DictVectorizer " +
			"ai.onnx.ml:FeatureVectorizer ai.onnx.ml:Imputer ai.onnx.ml:LabelEncoder ai.onnx.ml:LinearClassifier " +
			"ai.onnx.ml:LinearRegressor ai.onnx.ml:Normalizer ai.onnx.ml:OneHotEncoder ai.onnx.ml:SVMClassifier " +
			"ai.onnx.ml:SVMRegressor ai.onnx.ml:Scaler ai.onnx.ml:TreeEnsemble ai.onnx.ml:TreeEnsembleClassifier " +
			"ai.onnx.ml:TreeEnsembleRegressor ai.onnx.ml:ZipMap ai.onnx.preview.training:Gradient"},
	{stageCost, "old or experimental op: no cost function", "FC GRUUnit Scale"},
	{stageCost, "new op (opset 26+ or preview): no cost function yet",
		"CausalConvWithState LinearAttention ai.onnx.preview:FlexAttention ai.onnx.contrib:FastGelu"},
	{stageCost, "maps a body over a sequence: the body is not walked", "SequenceMap"},
	{stageCost, "ONNX Runtime's experimental window and STFT ops: no cost function", msExperimentalOps},
	{stageCost, "ONNX Runtime contrib op without a cost function", msUncosted + " com.microsoft:QLinearGlobalAveragePool"},

	// Elementwise kernels the fuser treats as opaque.
	{stageFuse, "experimental op of old files: left unfused", "Affine ImageScaler ParametricSoftplus ScaledTanh"},
	{stageFuse, "quantization boundary: the qdq pass owns it", "DequantizeLinear QuantizeLinear"},
	{stageFuse, "reads two halves of a row (not elementwise by index)", "RotaryEmbedding SwiGLU"},
	{stageFuse, "elementwise, not yet in the fuser's set (adding it changes fusion plans: a reviewed change)", "BitShift CastLike Shrink Swish"},
}

const (
	fusedKernels      = "wolong:Attention wolong:Gelu wolong:LayerNorm wolong:RMSNorm wolong:SiLU"
	msExperimentalOps = "com.microsoft.experimental:BlackmanWindow com.microsoft.experimental:HammingWindow " +
		"com.microsoft.experimental:HannWindow com.microsoft.experimental:MelWeightMatrix com.microsoft.experimental:STFT"
	// msUncosted are the com.microsoft ops with inference only.
	msUncosted = "com.microsoft:BiasDropout com.microsoft:BiasSplitGelu com.microsoft:CDist com.microsoft:Crop " +
		"com.microsoft:DecoderMaskedMultiHeadAttention com.microsoft:DecoderMaskedSelfAttention com.microsoft:DequantizeLinear " +
		"com.microsoft:GemmFastGelu com.microsoft:GroupNorm com.microsoft:Inverse com.microsoft:MatMulBnb4 " +
		"com.microsoft:MatMulInteger16 com.microsoft:MaxpoolWithMask com.microsoft:NhwcMaxPool com.microsoft:PackedAttention " +
		"com.microsoft:PackedMultiHeadAttention com.microsoft:QLinearAveragePool com.microsoft:QLinearConcat " +
		"com.microsoft:QLinearConv com.microsoft:QLinearSoftmax com.microsoft:QuantizeLinear com.microsoft:SkipGroupNorm " +
		"com.microsoft:TransposeMatMul"
)

func TestOpCoverage(t *testing.T) {
	gaps := map[string]map[string]bool{} // stage -> op -> listed
	for _, g := range knownGaps {
		if gaps[g.stage] == nil {
			gaps[g.stage] = map[string]bool{}
		}
		for _, op := range strings.Fields(g.ops) {
			if ir.Info(ir.ParseKey(op)) == nil {
				t.Errorf("knownGaps lists %s, which ir's op table does not declare", op)
			}
			gaps[g.stage][op] = false
		}
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "op\tinfer\teval\tcost\tclass\tfusion\texec")
	mark := func(ok bool) string {
		if ok {
			return "x"
		}
		return "-"
	}
	counts := map[string]int{}
	for _, o := range ir.Ops() {
		k := o.Key
		has := map[string]bool{
			stageInfer: ir.InferFuncOf(k) != nil,
			stageEval:  eval.Supported(k.Domain, k.Name),
			stageCost:  cost.Registered(k.Domain, k.Name),
		}
		any := has[stageInfer] || has[stageEval] || has[stageCost]
		missing := map[string]bool{}
		for _, s := range []string{stageInfer, stageEval, stageCost} {
			if has[s] {
				counts[s]++
			} else if any || k.Domain == ir.FusedDomain {
				missing[s] = true
			}
		}
		if o.Exec == ir.ExecKernel && o.Class() == ir.CostElementwise && o.Pattern == ir.Opaque && k.Domain == "" {
			missing[stageFuse] = true
		}
		for s := range missing {
			if _, listed := gaps[s][k.String()]; !listed {
				t.Errorf("%s: no %s, and knownGaps gives no reason", k, s)
				continue
			}
			gaps[s][k.String()] = true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k, mark(has[stageInfer]), mark(has[stageEval]), mark(has[stageCost]),
			o.Class(), o.Pattern, execNames[o.Exec])
	}
	tw.Flush()
	for s, ops := range gaps {
		var stale []string
		for op, used := range ops {
			if !used {
				stale = append(stale, op)
			}
		}
		sort.Strings(stale)
		if len(stale) > 0 {
			t.Errorf("knownGaps lists %s as lacking %s, but it does not (remove it)", strings.Join(stale, " "), s)
		}
	}
	t.Logf("%d ops: %d with inference, %d with kernels, %d with cost functions\n%s",
		len(ir.Ops()), counts[stageInfer], counts[stageEval], counts[stageCost], b.String())
}

var execNames = map[ir.Exec]string{ir.ExecKernel: "kernel", ir.ExecView: "view", ir.ExecMeta: "meta", ir.ExecControl: "control"}
