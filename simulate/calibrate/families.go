package calibrate

// This file names the model family of every shared model (../shared/models)
// for the calibration protocol (docs/calibration-protocol.md): a check
// that holds models out of a fit holds out whole families, never one
// export of a model while another export of it is fitted on; and a
// validation reports the shared models (the development set: their errors
// guided changes to the cost model and the suite) apart from models of
// any other family (held out).

import (
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Family is a group of shared models that share an architecture or an
// origin (exports, versions or sizes of one model; one project's test
// cases of one op).
type Family struct {
	Name   string
	Models []string // paths relative to ../shared/models, with / separators
}

// SharedFamilies lists the family of each of the 61 shared models. A model
// added to ../shared/models must be added here (TestSharedFamiliesComplete).
var SharedFamilies = []Family{
	{"mnist", []string{"cnn/mnist_cntk_opset7.onnx", "cnn/opt-mnist_opset8.onnx", "cnn/mnist_torch_dynamo_opset18.onnx", "cnn/mnist-external/mnist.onnx"}},
	{"squeezenet", []string{"cnn/squeezenet1.0_fp16.onnx", "cnn/squeezenet_audio_speech_recog.onnx", "cnn/customvision_pcb_aoi_opset1.onnx"}},
	{"cifar_cnn", []string{"cnn/pytorch_image_classifier_opset10.onnx", "cnn/image_classifier32_resize.onnx"}},
	{"style_transfer", []string{"cnn/fns_candy_style_transfer_opset7.onnx"}},
	{"ultraface", []string{"cnn/ultraface_version-RFB-320.onnx", "cnn/ultraface_version-slim-320.onnx"}},
	{"fastestdet", []string{"cnn/fastestdet_yolo_like.onnx"}},
	{"picodet", []string{"cnn/picodet_xs_416_lcnet.onnx", "cnn/picodet_s_320_coco_unsimplified.onnx"}},
	{"super_resolution", []string{"cnn/pytorch_super_resolution.onnx"}},
	{"yolo_nms", []string{"cnn/yolov8_nms_postprocess.onnx"}},
	{"mobilenet_quant", []string{"quant/mobilenetv2-7-quantized_qlinear.onnx"}},
	{"matmulnbits", []string{"quant/tract_matmulnbits_2bit.onnx"}},
	{"gather_block_quant", []string{"quant/tract_gather_block_quantized.onnx"}},
	{"silero_vad", []string{"rnn/silero_vad_v6.2.onnx", "rnn/silero_vad_v5.onnx", "rnn/silero_vad_16k_op15.onnx", "rnn/silero_vad_half.onnx",
		"rnn/silero_vad_micro_2021.onnx", "rnn/silero_vad_mini_2021.onnx", "rnn/silero_vad_openvino_16k.onnx", "rnn/silero_vad_v3.1_transformer_lstm.onnx"}},
	{"dtln", []string{"rnn/dtln_model_1.onnx", "rnn/dtln_model_2.onnx"}},
	{"byte_bilstm", []string{"rnn/tract_byte_sb_bidi_lstm.onnx"}},
	{"kaldi_quant", []string{"rnn/tract_qlstm_3-2-3_T3_S1_scan.onnx", "rnn/tract_qtdnn_10x5_101_i32_biases.onnx"}},
	{"lstm_export", []string{"rnn/burn_lstm_bidirectional.onnx", "rnn/onnx2c_keras_lstm_k1_b1_r1.onnx"}},
	{"quant_lstm", []string{"rnn/kinference_dynamic_quantize_lstm_peepholes.onnx"}},
	{"pos_tagger", []string{"rnn/kinference_pos_tagger_lstm_loop.onnx"}},
	{"gru_bidi", []string{"rnn/nnfusion_gru_bidirectional.onnx"}},
	{"mel_stft", []string{"rnn/winml_mel_spectrogram_stft.onnx"}},
	{"gpt2_tiny", []string{"transformer/tiny-random-gpt2-fp32_past.onnx", "transformer/tiny-random-gpt2-fp16_past.onnx"}},
	{"llama_tiny", []string{"transformer/tiny-random-llama-fp16-extdata/model.onnx"}},
	{"qwen_tiny", []string{"transformer/tiny-qwen35_decoder_gqa_fp16.onnx"}},
	{"scatter_decoder", []string{"transformer/static_scatter_bias_decoder_opset24.onnx"}},
	{"attention_op", []string{"transformer/burn_attention_cache_opset23.onnx", "transformer/tract_gqa_decode_rope.onnx"}},
	{"qattention", []string{"transformer/kinference_qattention.onnx"}},
	{"burn_controlflow", []string{"controlflow/burn_nested_if_loop_if_scan.onnx", "controlflow/burn_loop_nested.onnx", "controlflow/burn_loop_scan_outputs.onnx",
		"controlflow/burn_scan_multi_state.onnx", "controlflow/burn_if_conv2d.onnx", "controlflow/burn_outer_scope_loop.onnx"}},
	{"if_castlike", []string{"controlflow/occ_test_subgraph_if_castlike.onnx"}},
	{"onnx2c_cast", []string{"misc/onnx2c_fp_float16_cast.onnx", "misc/onnx2c_fp_bfloat16_cast.onnx"}},
	{"ortx_customop", []string{"misc/ortx_fastgelu_f16_customop.onnx", "misc/ortx_gpt2_tokenizer_customop.onnx"}},
	{"sklearn_trees", []string{"misc/onnx2c_sklearn_treeensembleclassifier.onnx"}},
	{"coreml_ml_pipeline", []string{"misc/coreml_onehot_bikesharing_ml_opset1.onnx"}},
	{"keras_mlp", []string{"misc/tract_keras_tf2_mlp.onnx"}},
}

var sharedFamilyOf = func() map[string]string {
	m := map[string]string{}
	for _, f := range SharedFamilies {
		for _, p := range f.Models {
			m[p] = f.Name
		}
	}
	return m
}()

// sharedKey is model's path relative to ../shared/models when it names a
// shared model: the path itself, or its part from a cnn/, rnn/, ... folder
// of the shared set on.
func sharedKey(model string) (string, bool) {
	p := filepath.ToSlash(model)
	if _, ok := sharedFamilyOf[p]; ok {
		return p, true
	}
	for k := range sharedFamilyOf {
		if strings.HasSuffix(p, "/"+k) {
			return k, true
		}
	}
	return "", false
}

// ModelFamily is the family of model (a path, absolute or relative to the
// shared models' folder) and whether it is a shared model (the
// development set). A model outside the shared set belongs to the family
// its folder names (bench/cpu_heldout.sh lays models out as
// FAMILY/MODEL.onnx), or to its own file name when it sits in no folder.
func ModelFamily(model string) (family string, shared bool) {
	if k, ok := sharedKey(model); ok {
		return sharedFamilyOf[k], true
	}
	p := filepath.ToSlash(model)
	if dir := path.Base(path.Dir(p)); dir != "." && dir != "/" && dir != "" {
		return dir, false
	}
	return strings.TrimSuffix(path.Base(p), path.Ext(p)), false
}

// FamilyFolds splits the shared families into two folds, alternating
// along the families sorted by name: a check that fits on one fold and
// validates on the other never has a family on both sides.
func FamilyFolds() (a, b map[string]bool) {
	names := make([]string, 0, len(SharedFamilies))
	for _, f := range SharedFamilies {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	a, b = map[string]bool{}, map[string]bool{}
	for i, n := range names {
		if i%2 == 0 {
			a[n] = true
		} else {
			b[n] = true
		}
	}
	return a, b
}
