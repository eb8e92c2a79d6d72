#!/usr/bin/env bash
# The fifth held-out check of wolong issue 29 (docs/calibration-protocol.md,
# "Fifth held-out check"): real models of three families that no change to
# the cost model, the calibration suite or the fit was checked against,
# chosen by a fixed rule after the code was frozen (at the commit that
# added this script) and measured once with it.
#
#   bench/cpu_heldout5.sh [WORKDIR]      # ~8 min on a quiet 2-vCPU VM
#   MIRROR=DIR bench/cpu_heldout5.sh     # repositories already on disk as
#                                        # DIR/OWNER+NAME/repo (a git dir)
#
# From two of Kazuhito Takahashi's repositories on GitHub (Apache-2.0;
# commits pinned, files checked by sha256; they stay in WORKDIR, never in
# the repo): every model of Audio-Processing-Node-Editor and
# MOT-Tracking-by-Detection-Pipeline in the repository's history whose
# family is in neither ../shared/models, the suite, nor an earlier check,
# and is not a YOLO or silero VAD:
#   gtcrn     GTCRN speech enhancement, one streaming frame (257 bins)
#             with its three caches
#   nanodet   NanoDet-m detectors, 320x320 and 416x416
#   reid      OpenVINO person-reidentification-retail 0248, 0287, 0288,
#             256x128 NHWC
# then measures, fits and reports exactly as bench/cpu_heldout.sh does (the
# shared parts are bench/heldout_git.sh and bench/heldout_check.sh).
# FITS=0 skips the two calibrations.
set -euo pipefail
cd "$(dirname "$0")/.."
# repo commit path family/name
files='
Kazuhito00/Audio-Processing-Node-Editor f82bafe9d3e0050d9ca3d9b4ab0e5f9e70eaf01b node/audio_enhance_node/model/gtcrn_simple.onnx gtcrn/gtcrn_simple.onnx
Kazuhito00/MOT-Tracking-by-Detection-Pipeline e50a76b8b430b778276e7fd04fd4cafd5d45eab2 Detector/nanodet/model/nanodet_m_320.onnx nanodet/nanodet_m_320.onnx
Kazuhito00/MOT-Tracking-by-Detection-Pipeline e50a76b8b430b778276e7fd04fd4cafd5d45eab2 Detector/nanodet/model/nanodet_m_416.onnx nanodet/nanodet_m_416.onnx
Kazuhito00/MOT-Tracking-by-Detection-Pipeline e50a76b8b430b778276e7fd04fd4cafd5d45eab2 Tracker/person_reid/model/person-reidentification-retail-0248.onnx reid/person-reidentification-retail-0248.onnx
Kazuhito00/MOT-Tracking-by-Detection-Pipeline e50a76b8b430b778276e7fd04fd4cafd5d45eab2 Tracker/person_reid/model/person-reidentification-retail-0287.onnx reid/person-reidentification-retail-0287.onnx
Kazuhito00/MOT-Tracking-by-Detection-Pipeline e50a76b8b430b778276e7fd04fd4cafd5d45eab2 Tracker/person_reid/model/person-reidentification-retail-0288.onnx reid/person-reidentification-retail-0288.onnx
'
sums='
b4718df6228e7bdf1a8a435cf98f838636eb2fd331acabf86ba87c5192ebcb87  ./gtcrn/gtcrn_simple.onnx
88e9fb97a54bb0030127ad323a10f88b4531b6aa82617e7ef79e35ffcc9bb3e1  ./nanodet/nanodet_m_320.onnx
08b62b9ee4a7878e7a64d6ef4faf3074322c033a0252c83a20f41b86c76e8146  ./nanodet/nanodet_m_416.onnx
43891ce644ff6f4c70cce150028e44d6cf3d150cb5a3eb75bf69bfaef0ebe789  ./reid/person-reidentification-retail-0248.onnx
f35a22885b93aa0c249d665b4cf5510d08ded92f814694c3c2fec0112b0d3a56  ./reid/person-reidentification-retail-0287.onnx
f3966d905e7232026aa8b814c328231a7b45c5b6b4dd32f886894223c4441b80  ./reid/person-reidentification-retail-0288.onnx
'
. bench/heldout_git.sh
# inputs as the repositories' nodes feed them
inputs_for() {
	local f=$1 in
	case $(basename "$f") in
	gtcrn_simple.onnx) in='[{"name": "mix", "dtype": "float32", "shape": [1, 257, 1, 2]}, {"name": "conv_cache", "dtype": "float32", "shape": [2, 1, 16, 16, 33]}, {"name": "tra_cache", "dtype": "float32", "shape": [2, 3, 1, 1, 16]}, {"name": "inter_cache", "dtype": "float32", "shape": [2, 1, 33, 16]}]' ;;
	nanodet_m_320.onnx) in='[{"name": "input.1", "dtype": "float32", "shape": [1, 3, 320, 320]}]' ;;
	nanodet_m_416.onnx) in='[{"name": "input.1", "dtype": "float32", "shape": [1, 3, 416, 416]}]' ;;
	person-reidentification-retail-*.onnx) in='[{"name": "inputs:0", "dtype": "float32", "shape": [1, 256, 128, 3]}]' ;;
	esac
	echo "$in"
}
. bench/heldout_check.sh
