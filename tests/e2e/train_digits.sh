#!/usr/bin/env bash
# End to end: a model trained through the switch. Four workers in network namespaces train the
# digits MLP (hosts/python/examples/train_digits.py) with PyTorch DDP twice, with the same seeds
# and data: gradients averaged by gloo over TCP through inswitch's l2 path (the reference), then
# by SyncAgtr through the inswitch.ddp hook. compare.py --check asserts the inswitch run's test
# accuracy is within 1 point of gloo's and that its losses track gloo's at every step; this script
# then asserts from the switch's counters that every step's gradients went through it: as many
# hook calls as steps, every bucket checked end to end (the hook's default), and the session
# completed exactly the rounds the workers took results of (the checks' included, plus the start
# barrier's), each with all four workers' contributions. Then the same training
# through ATP (the switch's pipeline swapped, an app of the four hosts with its parameter server
# on h5), compared with the same gloo run: accuracy within 1 point, losses within the same
# bound, one hook call per step, the switch multicast an ACK for every result rank 0 took, and
# aggregated contributions in the switch.
#   train_digits.sh BUILD_DIR          (TRAIN_EPOCHS, default 3)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
trap isw_cleanup EXIT

isw_python "$build" numpy torch sklearn
export GLOO_SOCKET_IFNAME=eth0

N=4
isw_train_up "$build" $N # h5: ATP's parameter server
ns=$(seq -s, -f "${ISW_TAG}h%g" 1 $N)
"$py" "$src/hosts/python/examples/compare.py" --ns "$ns" --master 10.99.0.1 \
	--switch-ip 10.99.0.254 --ctl "$ISW_CTL_SOCK" --epochs "${TRAIN_EPOCHS:-3}" \
	--out "$ISW_TMP/train" --timeout 300 --check || isw_fail "training through inswitch"

r=$ISW_TMP/train/syncagtr.json
c=$(isw_ctl --json syncagtr session show 1 | jq -c '.counters[0]')
steps=$(jq .steps "$r")
calls=$(jq .hook_calls "$r")
results=$(jq .comm.results "$r")
barrier=$(jq '.comm_threads * .comm_window' "$r")
echo "switch: $(echo "$c" | jq -c '{pkts, contributions, completions, retransmits}');" \
	"rank 0: $steps steps, $calls buckets through the hook, $results results"
[ "$calls" = "$steps" ] || isw_fail "$calls hook calls for $steps steps"
# every bucket checked end to end (HookState's default for SyncAgtr), each check one more job
[ "$(jq .verified "$r")" = true ] && [ "$(jq .comm.verified "$r")" = "$calls" ] ||
	isw_fail "not every bucket was checked end to end: $(jq -c '{verified, comm}' "$r")"
isw_sa_rounds "$c" "$results" "$barrier" $N

# ---- ATP: the same job with its gradients through app 1, the PS on h5 (port 4)
W=100
isw_atp_swap $N $W 16777216
"$py" "$src/hosts/python/examples/compare.py" --ns "$ns" --master 10.99.0.1 \
	--backends atp --reference "$ISW_TMP/train/summary.json" --epochs "${TRAIN_EPOCHS:-3}" \
	--ctl "$ISW_CTL_SOCK" \
	--out "$ISW_TMP/train-atp" --timeout 300 --check --window $W --scale 16777216 ||
	isw_fail "training through ATP"
kill -TERM $ISW_PS_PID
wait $ISW_PS_PID || true
r=$ISW_TMP/train-atp/atp.json
c=$(isw_ctl --json atp app show 1 | jq -c '.counters[0]')
steps=$(jq .steps "$r")
calls=$(jq .hook_calls "$r")
results=$(jq .comm.results "$r")
echo "switch (ATP app 1): $(echo "$c" | jq -c '{pkts, aggregated, completions, collisions, resends, acks}');" \
	"rank 0: $steps steps, $calls buckets through the hook, $results results"
[ "$calls" = "$steps" ] || isw_fail "ATP: $calls hook calls for $steps steps"
[ "$(echo "$c" | jq .acks)" -ge "$results" ] ||
	isw_fail "ATP: the switch multicast fewer ACKs than rank 0 took results"
[ "$(echo "$c" | jq .aggregated)" -gt 0 ] || isw_fail "ATP: the switch aggregated nothing"
echo "PASS"
