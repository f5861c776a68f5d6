#!/usr/bin/env bash
# Builds the control-plane fuzz harness with clang (libFuzzer, ASan, UBSan) and runs it for a
# bounded time. Skips (77) where clang's fuzzer runtime is missing.
#   run.sh SOURCE_ROOT BUILD_DIR [SECONDS]
set -euo pipefail
src=$1 out=$2/fuzz secs=${3:-20}
command -v clang >/dev/null || { echo "skipped: no clang"; exit 77; }
mkdir -p "$out/corpus"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}\n' \
	>"$out/probe.c"
clang -fsanitize=fuzzer "$out/probe.c" -o "$out/probe" 2>/dev/null ||
	{ echo "skipped: clang has no libFuzzer runtime (libclang-rt-14-dev)"; exit 77; }

core=(dataplane/asic.c dataplane/budget.c dataplane/dp.c dataplane/drop.c dataplane/fault.c dataplane/pipeline.c
      dataplane/port.c dataplane/pre.c dataplane/stats.c dataplane/worker.c dataplane/dp_cmds.c
      control/args.c control/cmd.c control/json.c control/server.c control/telemetry.c
      pipelines/l2/l2.c pipelines/flowcount/flowcount.c
      pipelines/syncagtr/syncagtr_ctl.c pipelines/syncagtr/syncagtr_dp.c)
# shellcheck disable=SC2046
(cd "$src" && clang -std=c11 -D_GNU_SOURCE -DISW_VERSION='"fuzz"' -O1 -g \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	$(pkg-config --cflags libdpdk) -Idataplane -Icontrol -Ipipelines -Ipipelines/syncagtr \
	tests/fuzz/fuzz_cmd.c "${core[@]}" $(pkg-config --libs libdpdk) -o "$out/fuzz_cmd")
# Seeds: every line of the golden config and a few commands.
printf 'l2 add 02:00:00:00:00:01 1' >"$out/corpus/seed1"
printf 'port fault 0 rx drop 10 dup 5 reorder 2 depth 3' >"$out/corpus/seed2"
printf 'register read flowcount.flows 0 4' >"$out/corpus/seed3"
printf 'mc group add 5 1 7' >"$out/corpus/seed4"
"$out/fuzz_cmd" -max_total_time="$secs" -max_len=512 -dict="$src/tests/fuzz/dict.txt" \
	-print_final_stats=1 "$out/corpus" 2>&1 | tail -n 12
