#!/usr/bin/env bash
# bench/run.sh's report files (bench/README.md): one short run of the l2-308 case (with l2, its
# baseline) into a scratch --out: report.txt names both cases, report.json holds their runs and
# ratios, and report.png is a PNG image (gnuplot's, 1100x800). It checks the files, not the
# figures: this is not a timed test.
#   bench_report.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=${1:?usage: bench_report.sh SOURCE_DIR BUILD_DIR} build=${2:?}
out=$(mktemp -d -t inswitch-bench-report.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
command -v gnuplot >/dev/null || fail "no gnuplot (scripts/deps.sh installs gnuplot-nox)"
"$src/bench/run.sh" --only l2-308 --runs 1 --seconds 1 --warmup 0 --build "$build" \
	--out "$out" >"$out/stdout" 2>"$out/stderr" || fail "bench/run.sh: $(tail -5 "$out/stderr")"
for c in l2 l2-308; do
	grep -q "^$c " "$out/report.txt" || fail "report.txt has no $c line"
done
[ "$(jq -r '[.cases[].name] | join(",")' "$out/report.json")" = "l2,l2-308" ] ||
	fail "report.json: $(head -c 300 "$out/report.json")"
jq -e '.cases[] | select(.name == "l2-308") | .runs == 1 and .median_mpps > 0 and .ratio_to_baseline > 0' \
	"$out/report.json" >/dev/null || fail "report.json: no l2-308 figures"
[ "$(head -c 8 "$out/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "report.png is not a PNG"
dims=$(od -An -tu1 -j16 -N8 "$out/report.png" | xargs)
[ "$dims" = "0 0 4 76 0 0 3 32" ] || fail "report.png is not 1100x800 ($dims)"
echo "report.txt, report.json and report.png (1100x800) written: $(grep -c . "$out/report.txt") lines of report"
echo "PASS"
