# The measuring and predicting tail of bench/gemmstream.sh and
# bench/bigweights.sh, sourced by them: it measures the models of a latency
# spec with ONNX Runtime 1.30 as calibrate --host measures its suite (one
# thread, optimizations disabled, twelve interleaved passes, the runs of
# the fastest quarter pooled, more passes until a median is known to 3%),
# then prints, per hardware file, the MAPE, the worst ratio and each
# model's measurement, prediction and error. It expects work (the work
# folder, with wolong built in it, the models under work/models and the
# latencies going to work/lat) and spec (the latency spec); the hardware
# files are the positional parameters (cpu-1t when none).
go run ./bench/machineref >&2
bench/ort/latency.sh "$work/lat" --passes 12 --max-seconds 3 --pass-min-runs 5 --ci-pct 3 --ci-passes 2 --ci-seconds 30 --spec "$spec" >&2
[ $# -gt 0 ] || set -- cpu-1t
for h in "$@"; do
	echo "== --hw $h"
	"$work/wolong" validate --hw "$h" --ort-latency "$work/lat" --models "$work/models" --format json |
		jq -r '"MAPE \(.mape_pct*10|round/10)%, worst \(.max_ratio*100|round/100)x", (.models[] | "\(.model|split("/")|last) | \(.measured_ms*1000|round/1000) ms measured | \(.predicted_ms*1000|round/1000) ms predicted | \(if .error_pct > 0 then "+" else "" end)\(.error_pct*10|round/10)%")'
done
