#!/usr/bin/env bash
# The fourth held-out check of wolong issue 29 (docs/calibration-protocol.md,
# "Fourth held-out check: seven families, blind"): real models of seven
# families that no change to the cost model, the calibration suite or the
# fit was checked against, chosen by a fixed rule after the code was frozen
# (at the commit that added this script) and measured once with it. Most
# of onnx-cv-graph's models are small: a check of the small-model target.
#
#   bench/cpu_heldout4.sh [WORKDIR]      # ~12 min on a quiet 2-vCPU VM
#   MIRROR=DIR bench/cpu_heldout4.sh     # repositories already on disk as
#                                        # DIR/OWNER+NAME/repo (a git dir)
#
# From two of Kazuhito Takahashi's repositories on GitHub (Apache-2.0;
# commits pinned, files checked by sha256; they stay in WORKDIR, never in
# the repo): without MIRROR the script clones them (bench/heldout_git.sh).
# Image-Processing-Node-Editor's deep-learning nodes, every family of it
# that is in neither ../shared/models, the suite, nor an earlier check, and
# not a YOLO (the YOLOX and YOLOv8 development models) or a model over
# 4 MB (not in the repository's history), at its smallest input size (SCI
# also its largest):
#   yunet     YuNet face detector (libfacedetection), 120x160
#   sci       SCI low-light enhancement, 180x320 and 480x640
#   tbefn     TBEFN low-light enhancement, 180x320
#   agllnet   AGLLNet low-light enhancement, 256x256
#   deeplab   DeepLab v3 (MobileNetV2, TFLite export), 257x257 NHWC
#   roadseg   OpenVINO road-segmentation-adas-0001, 512x896 NHWC
# and onnx-cv-graph (image processing written in ONNX operators, opset
# 17): the first model, in name order, of each of its ten categories, fed
# a 480x640 RGB image and fixed parameters:
#   cvgraph   auto_levels, channel_b, bg_normalize_3x3, blackhat_3x3,
#             affine, l1_norm, alpha_blend, adaptive_thresh_gaussian_3x3,
#             harris_corner_3x3, batch_squeeze_nchw
# then measures, fits and reports exactly as bench/cpu_heldout.sh does (the
# shared parts are bench/heldout_git.sh and bench/heldout_check.sh).
# FITS=0 skips the two calibrations.
set -euo pipefail
cd "$(dirname "$0")/.."
# repo commit path family/name
files='
Kazuhito00/Image-Processing-Node-Editor 46979d5b8eacb181abe970e4dd18e8f4cf0e750b node/deep_learning_node/face_detection/YuNet/model/face_detection_yunet_120x160.onnx yunet/yunet_120x160.onnx
Kazuhito00/Image-Processing-Node-Editor 46979d5b8eacb181abe970e4dd18e8f4cf0e750b node/deep_learning_node/low_light_image_enhancement/SCI/sci_180x320/sci_180x320.onnx sci/sci_180x320.onnx
Kazuhito00/Image-Processing-Node-Editor 46979d5b8eacb181abe970e4dd18e8f4cf0e750b node/deep_learning_node/low_light_image_enhancement/SCI/sci_480x640/sci_480x640.onnx sci/sci_480x640.onnx
Kazuhito00/Image-Processing-Node-Editor 46979d5b8eacb181abe970e4dd18e8f4cf0e750b node/deep_learning_node/low_light_image_enhancement/TBEFN/saved_model_180x320/model_float32.onnx tbefn/tbefn_180x320.onnx
Kazuhito00/Image-Processing-Node-Editor 46979d5b8eacb181abe970e4dd18e8f4cf0e750b node/deep_learning_node/low_light_image_enhancement/AGLLNet/saved_model_256x256/model_float32.onnx agllnet/agllnet_256x256.onnx
Kazuhito00/Image-Processing-Node-Editor 46979d5b8eacb181abe970e4dd18e8f4cf0e750b node/deep_learning_node/semantic_segmentation/deeplab_v3/model/deeplab_v3_1_default_1.onnx deeplab/deeplab_v3_257x257.onnx
Kazuhito00/Image-Processing-Node-Editor 46979d5b8eacb181abe970e4dd18e8f4cf0e750b node/deep_learning_node/semantic_segmentation/road_segmentation_adas_0001/saved_model/model_float32.onnx roadseg/road_segmentation_adas_0001.onnx
Kazuhito00/onnx-cv-graph fed6f8b451ab8a89b8ce210cd5d56c5c2ac5d3f6 models/01_elementwise/auto_levels.onnx cvgraph/auto_levels.onnx
Kazuhito00/onnx-cv-graph fed6f8b451ab8a89b8ce210cd5d56c5c2ac5d3f6 models/02_color_space/channel_b.onnx cvgraph/channel_b.onnx
Kazuhito00/onnx-cv-graph fed6f8b451ab8a89b8ce210cd5d56c5c2ac5d3f6 models/03_conv_filter/bg_normalize_3x3.onnx cvgraph/bg_normalize_3x3.onnx
Kazuhito00/onnx-cv-graph fed6f8b451ab8a89b8ce210cd5d56c5c2ac5d3f6 models/04_morphology/blackhat_3x3.onnx cvgraph/blackhat_3x3.onnx
Kazuhito00/onnx-cv-graph fed6f8b451ab8a89b8ce210cd5d56c5c2ac5d3f6 models/05_geometric/affine.onnx cvgraph/affine.onnx
Kazuhito00/onnx-cv-graph fed6f8b451ab8a89b8ce210cd5d56c5c2ac5d3f6 models/06_normalization/l1_norm.onnx cvgraph/l1_norm.onnx
Kazuhito00/onnx-cv-graph fed6f8b451ab8a89b8ce210cd5d56c5c2ac5d3f6 models/07_blend/alpha_blend.onnx cvgraph/alpha_blend.onnx
Kazuhito00/onnx-cv-graph fed6f8b451ab8a89b8ce210cd5d56c5c2ac5d3f6 models/08_threshold/adaptive_thresh_gaussian_3x3.onnx cvgraph/adaptive_thresh_gaussian_3x3.onnx
Kazuhito00/onnx-cv-graph fed6f8b451ab8a89b8ce210cd5d56c5c2ac5d3f6 models/09_feature/harris_corner_3x3.onnx cvgraph/harris_corner_3x3.onnx
Kazuhito00/onnx-cv-graph fed6f8b451ab8a89b8ce210cd5d56c5c2ac5d3f6 models/10_ml_preprocess/batch_squeeze_nchw.onnx cvgraph/batch_squeeze_nchw.onnx
'
sums='
784d3305734cb23078c6a6b46671fa8dbe98107a8ecc70b48b52cbede90bb35c  ./agllnet/agllnet_256x256.onnx
fcea3516ed9fbcc94b0ef06f1554f70a81be0f553f8eaa79821ed35a3be9ad9d  ./cvgraph/adaptive_thresh_gaussian_3x3.onnx
bcbcded1ee1de8cdd255f4b0d5481ff09daca019174677445ba922cd2917260b  ./cvgraph/affine.onnx
b40bf05c2571869c4d3d83d519856934e96b119e9aedab00c80325f9167e5cb8  ./cvgraph/alpha_blend.onnx
88da287068ccb95396ba2b81c03427f0e6409ba7b13dda9024d32fa601ea6c4f  ./cvgraph/auto_levels.onnx
284a5083aaa9e1d6ac7c4abfc4b44bf3dbbc1b817ea7f33d7dac974804f01f44  ./cvgraph/batch_squeeze_nchw.onnx
e7bdf16e789ab8090c8e3d0b72e35e8875efbc50232b22bd3cbd296a7a793d0a  ./cvgraph/bg_normalize_3x3.onnx
9076db8b5447430e905cfc1672879fe1f8da8d6fb7ee53bd86b03850b1c4624b  ./cvgraph/blackhat_3x3.onnx
f01d1d687e6dc177244339fa8a007ebb1cc28a78ef972079e6217c36ea879aad  ./cvgraph/channel_b.onnx
7bd7dbfae4cdce20fda204e2fc256ac360abff61d8544e0c9813d6fa47247644  ./cvgraph/harris_corner_3x3.onnx
65a22757855452db07579611cc71e53184170acdfb632eb3a90c008c99edceb6  ./cvgraph/l1_norm.onnx
48a46b346ca7e2e96760b8a10a302046a3b5a9ce55e59d4c659c36d9cbd44118  ./deeplab/deeplab_v3_257x257.onnx
931f80db4faa9eb37fafaaec35cdd6c7498a0b8afb45e335a535da028d27e50a  ./roadseg/road_segmentation_adas_0001.onnx
64305ce1e699d29f0e6d4d073745092b40aeece20bc587b55175f92470daaca7  ./sci/sci_180x320.onnx
de82017314c274f921d1853b0707549afb38488fd5aba58091123a8352a6a99e  ./sci/sci_480x640.onnx
f979014a3a422c31b2ba63774dec43ed009d011380763aa32170a5dc28a59a71  ./tbefn/tbefn_180x320.onnx
c89f94fc04a5db6f9ab39df6b1e4142007dd61781ef7e3a5b9b175bb0abb8c11  ./yunet/yunet_120x160.onnx
'
. bench/heldout_git.sh
# inputs as the repositories' nodes feed them; onnx-cv-graph's parameters
# fixed at usual values (an identity affine map, alpha 0.5, C 0.02 of the
# range, Harris k 0.04)
img='{"name": "input", "dtype": "float32", "shape": [1, 3, 480, 640]}'
par() { echo "{\"name\": \"$1\", \"dtype\": \"float32\", \"shape\": [1], \"fill\": $2}"; }
inputs_for() {
	local f=$1 in
	case $(basename "$f") in
	yunet_120x160.onnx) in='[{"name": "input", "dtype": "float32", "shape": [1, 3, 120, 160]}]' ;;
	sci_180x320.onnx) in='[{"name": "input", "dtype": "float32", "shape": [1, 3, 180, 320]}]' ;;
	sci_480x640.onnx) in='[{"name": "input", "dtype": "float32", "shape": [1, 3, 480, 640]}]' ;;
	tbefn_180x320.onnx) in='[{"name": "Placeholder", "dtype": "float32", "shape": [1, 3, 180, 320]}]' ;;
	agllnet_256x256.onnx) in='[{"name": "input_1", "dtype": "float32", "shape": [1, 3, 256, 256]}]' ;;
	deeplab_v3_257x257.onnx) in='[{"name": "sub_7", "dtype": "float32", "shape": [1, 257, 257, 3]}]' ;;
	road_segmentation_adas_0001.onnx) in='[{"name": "data", "dtype": "float32", "shape": [1, 512, 896, 3]}]' ;;
	auto_levels.onnx | channel_b.onnx | bg_normalize_3x3.onnx | blackhat_3x3.onnx | l1_norm.onnx | batch_squeeze_nchw.onnx) in="[$img]" ;;
	affine.onnx) in="[$img, $(par a 1), $(par b 0), $(par tx 0), $(par c 0), $(par d 1), $(par ty 0)]" ;;
	alpha_blend.onnx) in="[$img, {\"name\": \"input2\", \"dtype\": \"float32\", \"shape\": [1, 3, 480, 640]}, $(par alpha 0.5)]" ;;
	adaptive_thresh_gaussian_3x3.onnx) in="[$img, $(par C 0.02)]" ;;
	harris_corner_3x3.onnx) in="[$img, $(par k 0.04)]" ;;
	esac
	echo "$in"
}
. bench/heldout_check.sh
