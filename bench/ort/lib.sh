# Shell functions the bench scripts share; source it (it runs nothing by
# itself):
#
#   . "$root/bench/ort/lib.sh"
#
# ort_install installs ONNX Runtime 1.30 (onnxruntime-node, CPU binaries
# only: ONNXRUNTIME_NODE_INSTALL=skip) into bench/ort/node_modules unless it
# is there. It does not check for node; callers say what is missing.
#
# wolong_bin DEST puts a wolong binary at DEST: a copy of $WOLONG when set,
# else one built from this checkout. It returns non-zero if the build fails.
ort_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

ort_install() {
	[ -d "$ort_dir/node_modules/onnxruntime-node" ] ||
		(cd "$ort_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --no-save onnxruntime-node@1.30.0 >/dev/null)
}

wolong_bin() {
	if [ -n "${WOLONG:-}" ]; then
		cp "$WOLONG" "$1"
	else
		(cd "$ort_dir/../.." && go build -o "$1" .)
	fi
}
