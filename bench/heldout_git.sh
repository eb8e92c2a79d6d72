# The setup of the held-out checks whose models come from GitHub
# repositories (bench/cpu_heldout3.sh to cpu_heldout5.sh), sourced by them
# with the script's arguments: the work folder ($1, else a temporary one)
# with models/ (held), lat/ (lat) and src/ (clones), the models fetched,
# and the wolong under test built into it (W). It reads two here-strings
# the script sets first: files (lines "OWNER/NAME COMMIT PATH
# FAMILY/NAME.onnx") and sums (sha256sum -c lines for ./FAMILY/NAME.onnx). Each repository is read from $MIRROR/OWNER+NAME/repo
# (a git directory, as the session tool leaves it) when MIRROR is set and
# the folder exists, else cloned bare from GitHub into src. A model whose
# bytes differ from the pinned ones stops the script.
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
held=$work/models lat=$work/lat src=$work/src
mkdir -p "$held" "$lat" "$src"
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
go build -o "$work/wolong" .
W=$work/wolong
