# Shell functions the bench scripts share; source it (it runs nothing by
# itself):
#
#   . "$root/bench/ort/lib.sh"
#
# ort_install installs ONNX Runtime 1.30 (onnxruntime-node, CPU binaries
# only: ONNXRUNTIME_NODE_INSTALL=skip) into bench/ort/node_modules unless it
# is there. It does not check for node; callers say what is missing.
#
# ort_run NAME SCRIPT OUTDIR [ARGS...] prints the calling script's header
# for -h/--help in OUTDIR's place and exits 2 for any other flag there;
# it checks that node is there (else says so as NAME and exits 2), runs ort_install, and replaces the shell
# with node SCRIPT OUTDIR ARGS run in bench/ort (a relative OUTDIR is taken
# from the caller's folder).
#
# ort_setup runs ort_install, makes a scratch folder $work and puts a
# wolong binary in it ($work/wolong, as wolong_bin); it exits 1 when the
# build fails.
#
# ort_models lists the shared models and the light ONNX node-test models,
# sorted, as paths relative to $repo/.. (shared/models/...).
#
# wolong_bin DEST puts a wolong binary at DEST: a copy of $WOLONG when set,
# else one built from this checkout. It returns non-zero if the build fails.
ort_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$ort_dir/../.." && pwd)

ort_install() {
	[ -d "$ort_dir/node_modules/onnxruntime-node" ] ||
		(cd "$ort_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --no-save onnxruntime-node@1.30.0 >/dev/null)
}

ort_run() {
	local name=$1 script=$2 out=$3
	shift 3
	# A flag in OUTDIR's place is help or a usage error, never a folder
	# (a run once wrote its records into ./--help).
	case "$out" in
	-h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
	-*) echo "$name: the output folder comes first, got the flag $out (see $name --help)" >&2; exit 2 ;;
	esac
	command -v node >/dev/null || { echo "$name: node is not installed (ONNX Runtime runs under node)" >&2; exit 2; }
	ort_install
	case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
	cd "$ort_dir"
	exec node "$script" "$out" "$@"
}

ort_setup() {
	ort_install
	work=$(mktemp -d)
	wolong_bin "$work/wolong" || exit 1
}

ort_models() {
	(cd "$repo/.." && find shared/models shared/onnx-node-tests/light -name '*.onnx' | sort)
}

wolong_bin() {
	if [ -n "${WOLONG:-}" ]; then
		cp "$WOLONG" "$1"
	else
		(cd "$repo" && go build -o "$1" .)
	fi
}
