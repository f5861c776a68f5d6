# shellcheck shell=bash
# What the benchmark scripts share. Source it with ROOT (the checkout) and BUILD (a build tree,
# or empty) set.
#
#   bench_prepare NAME [root]  NAME's preamble: with root, refuse to run without root (the
#                       namespaces); cd to ROOT, install what the project needs
#                       (scripts/deps.sh), build unless BUILD names a build tree (BUILD is then
#                       ROOT/build), and make OUT, the output directory bench/out
#   bench_gnuplot       install gnuplot-nox for the plots if it is missing; a failure only
#                       says the report comes without its plot

bench_prepare() {
	if [ "${2:-}" = root ] && [ "$(id -u)" -ne 0 ]; then
		echo "bench/$1 needs root (namespaces)" >&2
		exit 1
	fi
	cd "$ROOT" || exit 1
	scripts/deps.sh
	if [ -z "$BUILD" ]; then
		scripts/build.sh >/dev/null
		BUILD=$ROOT/build
	fi
	OUT=$ROOT/bench/out
	mkdir -p "$OUT"
}

bench_gnuplot() {
	command -v gnuplot >/dev/null || {
		echo "bench: installing gnuplot-nox for the plot" >&2
		apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null 2>&1 ||
			echo "bench: no gnuplot: the report comes without its plot" >&2
	}
}
