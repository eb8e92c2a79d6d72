# The measuring, fitting and reporting part of the held-out checks
# (bench/cpu_heldout.sh to cpu_heldout5.sh), sourced by them so that all
# sets are measured, fitted and reported by the same lines. It expects
# work (the work folder), held (the models, laid out as FAMILY/MODEL.onnx),
# lat (the latency folder) and W (the wolong binary) to be set, and a
# function inputs_for FILE that prints the model's inputs as JSON (a list
# of {name, dtype, shape}; nothing for a model it does not know, which
# stops the check); it writes the latency spec from them.
spec=$work/spec.json
{
	echo '{"models": ['
	first=1
	for f in "$held"/*/*.onnx; do
		in=$(inputs_for "$f")
		[ -n "$in" ] || {
			echo "no input shapes for $f" >&2
			exit 1
		}
		fam=$(basename "$(dirname "$f")")
		[ $first = 1 ] || echo ','
		first=0
		printf '{"model": "%s", "inputs": %s, "seed": 1, "out": "%s__%s.json"}' "$f" "$in" "$fam" "$(basename "${f%.onnx}")"
	done
	echo ']}'
} >"$spec"
# the machine's state (fixed workloads independent of wolong's code): the
# same VM has run ~1.5x slower on some evenings, and figures of two runs
# compare only where these agree
ref=$(go run ./bench/machineref)
echo "$ref" >&2
echo "== measuring $(ls "$held"/*/*.onnx | wc -l) held-out models (ONNX Runtime 1.30, 1 thread)" >&2
# the same estimator as calibrate --host's suite (host.Passes): twelve
# interleaved passes, each pass's outlying runs dropped, the runs of the
# fastest quarter of them pooled (the machine's own speed: a VM's other
# tenants only slow it down), more passes for a model not known to within
# 3% (the harness's --cache-probe is off: on this VM it did not tell the
# quiet passes from the others; docs/calibration-protocol.md, "The cache
# probe")
bench/ort/latency.sh "$lat" --passes 12 --max-seconds 3 --pass-min-runs 5 --ci-pct 3 --ci-passes 2 --ci-seconds 30 --spec "$spec" >&2
fits=A\ B
[ "${FITS:-2}" = 0 ] && fits=
for fit in $fits; do
	echo "== calibrate --host ($fit)" >&2
	/usr/bin/time -f "calibrate --host $fit: %e s wall" "$W" calibrate --host --no-save -o "$work/fit$fit.json" --keep "$work/suite$fit" >"$work/fit$fit.txt"
	grep -E "^fit:|machine noise" "$work/fit$fit.txt" >&2 || true
done
# cpu-1t is the variant fitted on the machine the records name, if the
# catalogue has one (cpu-1t-xeon on the Intel VM): the line says which
for h in ${fits:+"$work/fitA.json" "$work/fitB.json"} cpu-1t; do
	"$W" validate --hw "$h" --ort-latency "$lat" --models "$held" --format json >"$work/val_$(basename "$h" .json).json"
done
echo
echo "held-out records measured only while the core's L2 was shared (their cache probe): $(jq '[.models[]|select(.cache_shared)]|length' "$work/val_cpu-1t.json") of $(jq '.models|length' "$work/val_cpu-1t.json")"
for v in ${fits:+fitA fitB} cpu-1t; do
	jq -r --arg v "$v" '"\($v) (hardware \(.hardware)): \(.models|length) held-out models: MAPE \(.mape_pct*10|round/10)% (median \(.median_abs_error_pct*10|round/10)%), worst \(.max_ratio*100|round/100)x, \(.missed) not predicted; under 1 ms off by > 20%: \([.models[]|select(.measured_ms<1 and (.error_pct|fabs)>20)|.model|split("/")|last]|join(", "))"' "$work/val_$v.json"
	jq -r '.families[] | "   family \(.family): \(.models) models, MAPE \(.mape_pct*10|round/10)%, worst \(.max_ratio*100|round/100)x"' "$work/val_$v.json"
done
[ -z "$fits" ] || jq -s -r '[.[0].models, .[1].models] | transpose | map(select(.[0].predicted_ms > 0 and .[1].predicted_ms > 0)) | map({m: (.[0].model|split("/")|last), d: (100*((.[0].predicted_ms-.[1].predicted_ms)|fabs)/([.[0].predicted_ms,.[1].predicted_ms]|min))}) | sort_by(-.d) | "two fits: largest difference \(.[0].d*10|round/10)% (\(.[0].m)); \(map(select(.d>5))|length) of \(length) models differ by more than 5%"' "$work/val_fitA.json" "$work/val_fitB.json"
# per model: measured, and each hardware file's prediction (ms) and error
hws="${fits:+fit A | fit B | }cpu-1t"
jq -s -r --arg h "$hws" '"model | family | measured ms | \($h): predicted ms (error)", (.[0].models|keys[]) as $i | "\(.[0].models[$i].model|split("/")|last) | \(.[0].models[$i].family) | \(.[0].models[$i].measured_ms*1000|round/1000) | " + (map(.models[$i] | if .predicted_ms > 0 then "\(.predicted_ms*1000|round/1000) (\(if .error_pct > 0 then "+" else "" end)\(.error_pct*10|round/10)%)" else "not predicted: \(.error)" end)|join(" | "))' ${fits:+"$work/val_fitA.json" "$work/val_fitB.json"} "$work/val_cpu-1t.json"
echo "per-model rows: $work/val_*.json; fits: $work/fit{A,B}.json; their measured suites (refit with calibrate --host --from DIR): $work/suite{A,B}"
echo "before the measurements: $ref"
echo "after them:              $(go run ./bench/machineref)"
