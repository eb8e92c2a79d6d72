# The model-fetching part of the held-out checks whose models come from
# GitHub repositories (bench/cpu_heldout3.sh, bench/cpu_heldout4.sh),
# sourced by them. It expects held (the models folder) and src (a folder
# for clones) to be set, and reads two here-strings: files (lines "OWNER/NAME
# COMMIT PATH FAMILY/NAME.onnx") and sums (sha256sum -c lines for
# ./FAMILY/NAME.onnx). Each repository is read from $MIRROR/OWNER+NAME/repo
# (a git directory, as the session tool leaves it) when MIRROR is set and
# the folder exists, else cloned bare from GitHub into src. A model whose
# bytes differ from the pinned ones stops the script.
gitdir() {
	local repo=$1 d
	d=${MIRROR:-}/${repo/\//+}/repo
	if [ -n "${MIRROR:-}" ] && [ -d "$d" ]; then
		[ -d "$d/.git" ] && d=$d/.git
		echo "$d"
		return
	fi
	d=$src/${repo/\//+}.git
	[ -d "$d" ] || git clone -q --bare "https://github.com/$repo" "$d"
	echo "$d"
}
while read -r repo commit path out; do
	[ -n "$repo" ] || continue
	mkdir -p "$held/$(dirname "$out")"
	[ -s "$held/$out" ] || git --git-dir="$(gitdir "$repo")" show "$commit:$path" >"$held/$out"
done <<<"$files"
(cd "$held" && sha256sum -c --quiet <<<"$(sed '/^$/d' <<<"$sums")") || {
	echo "$(basename "$0"): a model's bytes differ from the pinned ones" >&2
	exit 1
}
(cd "$held" && sha256sum ./*/*.onnx) >"$work/models.sha256"
