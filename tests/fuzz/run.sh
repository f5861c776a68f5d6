#!/usr/bin/env bash
# Builds one libFuzzer harness with clang (ASan, UBSan) and runs it for a bounded time. Skips
# (77) where clang's fuzzer runtime is missing.
#   run.sh SOURCE_ROOT BUILD_DIR SECONDS HARNESS
# HARNESS: cmd (the command parser and handlers), syncagtr, atp or ask (a pipeline's packet
# entry), netrpc-desc (NetRPC service descriptions).
set -euo pipefail
src=$1 out=$2/fuzz secs=${3:-20} name=${4:-cmd}
command -v clang >/dev/null || { echo "skipped: no clang"; exit 77; }
mkdir -p "$out/corpus-$name"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}\n' \
	>"$out/probe-$name.c"
clang -fsanitize=fuzzer "$out/probe-$name.c" -o "$out/probe-$name" 2>/dev/null ||
	{ echo "skipped: clang has no libFuzzer runtime (libclang-rt-14-dev)"; exit 77; }

# The daemon's core and the JSON library it links, as meson builds them (sources and generated
# ones, such as the embedded XDP program): the list is meson's, never a copy that could miss a
# file.
mapfile -t core < <(meson introspect "$2" --targets | jq -r '.[] |
	select(.name == "inswitch-core" or .name == "isw-json") | .target_sources[] |
	(.sources[], .generated_sources[])')
[ "${#core[@]}" -gt 10 ] || { echo "no inswitch-core sources in $2 (meson introspect)" >&2; exit 1; }
bin=$out/fuzz_$name
# shellcheck disable=SC2046
(cd "$src" && clang -std=c11 -D_GNU_SOURCE -DISW_VERSION='"fuzz"' -O1 -g \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	$(pkg-config --cflags libdpdk) -Idataplane -Icontrol -Ilib/json -Ipipelines -Ipipelines/syncagtr -Ipipelines/atp -Ipipelines/ask \
	-Ipipelines/netrpc -Itests/harness "tests/fuzz/fuzz_${name//-/_}.c" tests/harness/isw_test.c "${core[@]}" \
	$(pkg-config --libs libdpdk libbpf) -lrte_bus_vdev -o "$bin")

corpus=$out/corpus-$name
# A crash must fail the test: libFuzzer's own exit code for one is 77, which meson reads as
# "skipped".
opts=(-max_total_time="$secs" -print_final_stats=1 -error_exitcode=1 -timeout_exitcode=1)
case $name in
cmd)
	printf 'l2 add 02:00:00:00:00:01 1' >"$corpus/seed1"
	printf 'port fault 0 rx drop 10 dup 5 reorder 2 depth 3' >"$corpus/seed2"
	printf 'register read flowcount.flows 0 4' >"$corpus/seed3"
	printf 'mc group add 5 1 7' >"$corpus/seed4"
	printf 'syncagtr worker add 1 0 mac 02:00:00:00:00:01 ip 10.0.0.1 port auto' >"$corpus/seed5"
	printf 'syncagtr session add 1 ip 10.0.0.254 workers 4 slots 64' >"$corpus/seed6"
	printf 'ask task add 1 receiver 02:00:00:00:00:09,10.0.0.9,42405,1 channels 2 window 4 slots 4 key-bytes 8 op add aa-size 16' >"$corpus/seed7"
	printf 'pipeline enable ask' >"$corpus/seed8"
	printf 'syncagtr session add 2 ip 10.0.0.253 workers 2 slots 64 threads 4 worker-port 5000' >"$corpus/seed9"
	printf 'steer show' >"$corpus/seed10"
	printf 'port xdp' >"$corpus/seed11"
	opts+=(-max_len=512 -dict="$src/tests/fuzz/dict.txt")
	;;
netrpc-desc)
	printf 'service allreduce\nid 1\ntype array\ncells 4096\nvalues 64\nmembers 4\nop reduce addTo get cntfwd(members, all)\n' >"$corpus/seed1"
	printf 'service wc\nid 2\ntype map\ncells 65536\nkey-bytes 16\nmembers 8\nserver\nwindow 256\nop count addTo to drop\nop drain get clear # all\n' >"$corpus/seed2"
	printf 'service kv\nid 3\ntype map\ncells 1024\nvalues 4\nmembers 16\nserver\nop read get\nop write clear to server\nop fill modify(set)\n' >"$corpus/seed3"
	printf 'service q\nid 63\ntype integer\ncells 256\nmembers 5\nop vote cntfwd(3, sender)\nop next addTo get\n' >"$corpus/seed4"
	opts+=(-max_len=2048)
	;;
syncagtr | atp | ask)
	FUZZ_SEEDS=$corpus "$bin"
	opts+=(-max_len=1600)
	;;
*)
	echo "unknown harness $name" >&2
	exit 2
	;;
esac
# The EAL of the packet harness keeps its runtime files under this prefix.
trap 'rm -rf /var/run/dpdk/isw-fuzz-$name "${XDG_RUNTIME_DIR:-/tmp}/dpdk/isw-fuzz-$name"' EXIT
"$bin" "${opts[@]}" "$corpus" 2>&1 | tail -n 12
