#!/usr/bin/env bash
# End to end: the "inswitch" torch.distributed backend (import inswitch.torch; the C++ process
# group inswitch._c10d) on four hosts in network namespaces, every worker started by torchrun
# (one per host: --nnodes 4 --node_rank i, static rendezvous at h1), configured by INSWITCH_*
# variables only.
#   - init_process_group("inswitch") without what it needs fails naming the variable
#     (INSWITCH_SWITCH_IP; INSWITCH_APP with INSWITCH_PROTOCOL=atp; a malformed INSWITCH_WINDOW).
#   - through SyncAgtr: tests/e2e/torch_backend_worker.py on every host (its header lists what it
#     asserts: dtypes, in place, non-contiguous, async, refused ops falling back to gloo, gloo's
#     collectives, counters); each refused kind warned about exactly once on stderr; then the
#     digits training script (hosts/python/examples/train_digits.py) under torchrun with gloo,
#     then with the backend's name "inswitch" and nothing else changed: compare.py --check
#     (accuracy within 1 point of gloo's, losses within 1e-3 at every step), one switch
#     all_reduce per step (DDP's one bucket), none to gloo, every one checked end to end, and
#     the switch completed every round rank 0 took a result of, with all four contributions.
#   - through ATP (INSWITCH_PROTOCOL=atp, the PS on h5): the same worker and the same training
#     against the same gloo run.
# Skipped only without root; a missing torch or an unbuilt extension fails.
#   torch_backend.sh BUILD_DIR          (TRAIN_EPOCHS, default 3)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
trap isw_cleanup EXIT

isw_python "$build" # the package and the library; no skip for a missing module:
"$py" -c 'import torch, sklearn' || isw_fail "$py cannot import torch or sklearn (scripts/deps.sh)"
ls "$build"/hosts/python/_c10d.cpython-*.so >/dev/null 2>&1 ||
	isw_fail "inswitch._c10d is not built: install libtorch-dev and pybind11-dev (scripts/deps.sh), then meson setup --reconfigure"
export GLOO_SOCKET_IFNAME=eth0
worker=$src/tests/e2e/torch_backend_worker.py
examples=$src/hosts/python/examples

N=4
isw_train_up "$build" $N # h5: ATP's parameter server

# ---- configuration errors: one process, world size 1, on h1
# config_error WANT [VAR=VALUE...]: init_process_group fails, its error naming WANT
config_error() {
	local want=$1 out
	shift
	if out=$(isw_ns 1 env -u INSWITCH_SWITCH_IP "$@" "$py" -c '
import torch.distributed as dist, inswitch.torch
dist.init_process_group("inswitch", init_method="tcp://10.99.0.1:29400", rank=0, world_size=1)' 2>&1); then
		isw_fail "init_process_group succeeded without $want"
	fi
	echo "$out" | grep -q "$want" || isw_fail "the error does not name $want: $out"
	echo "config error: $(echo "$out" | grep "$want" | tail -n 1)"
}
config_error "needs INSWITCH_SWITCH_IP"
config_error "needs INSWITCH_APP" INSWITCH_PROTOCOL=atp INSWITCH_DEV=eth0
config_error "INSWITCH_WINDOW='many': not an integer" INSWITCH_SWITCH_IP=10.99.0.254 INSWITCH_WINDOW=many

# torchrun_all TAG PORT SCRIPT ARGS...: SCRIPT under torchrun on h1..hN; stdout of host i in
# $ISW_TMP/TAG.i.out, stderr in TAG.i.err; fails showing the stderr of any that failed.
# $torchrun: Debian 12's torchrun (torch 1.13 on Python 3.11) cannot parse its own default
# --redirects/--tee "0" (Std.from_str returns None: 3.11's IntFlag iteration skips NONE), so they
# are given as mappings for a local rank that does not run (docs/training.md).
torchrun=("$py" -m torch.distributed.run --redirects 9:1 --tee 9:1)
torchrun_all() {
	local tag=$1 port=$2 i rc=0 pids=()
	shift 2
	for ((i = 1; i <= N; i++)); do
		isw_ns $i "${torchrun[@]}" --nnodes $N --node_rank $((i - 1)) \
			--nproc_per_node 1 --master_addr 10.99.0.1 --master_port "$port" "$@" \
			>"$ISW_TMP/$tag.$i.out" 2>"$ISW_TMP/$tag.$i.err" &
		pids+=($!)
	done
	for ((i = 1; i <= N; i++)); do
		if ! wait "${pids[$((i - 1))]}"; then
			echo "--- $tag, host $i:" >&2
			# the worker's own traceback (torchrun's report follows it)
			awk '/^Traceback/ { p = 1 } p { print } p && /^[A-Za-z_.]*(Error|Exception)/ { exit }' \
				"$ISW_TMP/$tag.$i.err" | head -n 40 >&2
			rc=1
		fi
	done
	[ $rc = 0 ] || isw_fail "$tag: a worker failed"
}

# check_worker TAG: the worker's figures, and each refused kind warned about once per process
check_worker() {
	local tag=$1 i kind n
	echo "$1: $(jq -c '{protocol, switch_calls, fallbacks, float32_max_err, stats: (.stats | {jobs, verified, copied, fallbacks})}' "$ISW_TMP/$tag.1.out")"
	for ((i = 1; i <= N; i++)); do
		for kind in "ReduceOp MAX runs on gloo" "ReduceOp MIN runs on gloo" \
			"ReduceOp PRODUCT runs on gloo" "of Double tensors runs on gloo" \
			"of Long tensors runs on gloo" "of Half tensors runs on gloo"; do
			n=$(grep -c "$kind" "$ISW_TMP/$tag.$i.err" || true)
			[ "$n" = 1 ] || isw_fail "$tag host $i: '$kind' said $n times, not once"
		done
		# its members (ranks 0 and 1) create new_group([0, 1]), and are told
		[ $i -gt 2 ] || grep -q "the group of ranks \[0, 1\] runs on gloo" "$ISW_TMP/$tag.$i.err" ||
			isw_fail "$tag host $i: no word that new_group's group runs on gloo"
	done
	grep -m1 "ReduceOp MAX" "$ISW_TMP/$tag.1.err"
}

# check_training DIR: one switch all_reduce per step, none to gloo, all checked end to end
check_training() {
	local r=$1/inswitch.json steps
	steps=$(jq .steps "$r")
	echo "rank 0 ($(jq -r .protocol "$r")): $steps steps," \
		"$(jq -c '.comm | {switch_calls, fallbacks, jobs, verified, results}' "$r")"
	[ "$(jq .comm.switch_calls "$r")" = "$steps" ] && [ "$(jq .comm.jobs "$r")" = "$steps" ] ||
		isw_fail "not one switch all_reduce per step: $(jq -c .comm "$r")"
	[ "$(jq .comm.fallbacks "$r")" = 0 ] || isw_fail "DDP's all_reduces went to gloo"
	[ "$(jq .comm.verified "$r")" = "$steps" ] || isw_fail "not every all_reduce checked"
}

# ---- SyncAgtr
export INSWITCH_SWITCH_IP=10.99.0.254 INSWITCH_CTL=$ISW_CTL_SOCK INSWITCH_THREADS=1 \
	INSWITCH_WINDOW=64
torchrun_all sa 29500 "$worker"
check_worker sa

# the session's counters before the training (the worker's jobs ran in the same session)
c0=$(isw_ctl --json syncagtr session show 1 | jq -c '.counters[0]')
"$py" "$examples/compare.py" --torchrun --ns "$(seq -s, -f "${ISW_TAG}h%g" 1 $N)" \
	--master 10.99.0.1 --backends gloo,inswitch --epochs "${TRAIN_EPOCHS:-3}" \
	--out "$ISW_TMP/train" --timeout 300 --check || isw_fail "training on the inswitch backend"
check_training "$ISW_TMP/train"
r=$ISW_TMP/train/inswitch.json
c=$(isw_ctl --json syncagtr session show 1 | jq -c --argjson a "$c0" '.counters[0] |
	{pkts: (.pkts - $a.pkts), contributions: (.contributions - $a.contributions),
	 completions: (.completions - $a.completions), retransmits: (.retransmits - $a.retransmits)}')
results=$(jq .comm.results "$r")
barrier=64 # the start barrier: one round per slot (threads * window)
echo "switch, during the training: $c"
isw_sa_rounds "$c" "$results" "$barrier" $N

# ---- ATP: app 1 of h1..h4, its PS on h5 (port 4)
W=100
isw_atp_swap $N $W 16777216
unset INSWITCH_SWITCH_IP INSWITCH_CTL
export INSWITCH_PROTOCOL=atp INSWITCH_APP=1 INSWITCH_DEV=eth0 INSWITCH_WINDOW=$W \
	INSWITCH_SCALE=16777216
torchrun_all atp 29510 "$worker"
check_worker atp
"$py" "$examples/compare.py" --torchrun --ns "$(seq -s, -f "${ISW_TAG}h%g" 1 $N)" \
	--master 10.99.0.1 --backends inswitch --reference "$ISW_TMP/train/gloo.json" \
	--epochs "${TRAIN_EPOCHS:-3}" --out "$ISW_TMP/train-atp" --timeout 300 --check ||
	isw_fail "training on the inswitch backend through ATP"
check_training "$ISW_TMP/train-atp"
c=$(isw_ctl --json atp app show 1 | jq -c '.counters[0]')
echo "switch (ATP app 1): $(echo "$c" | jq -c '{pkts, aggregated, completions, collisions, resends, acks}')"
[ "$(echo "$c" | jq .aggregated)" -gt 0 ] || isw_fail "ATP: the switch aggregated nothing"
echo "PASS"
