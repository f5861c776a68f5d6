#!/usr/bin/env bash
# End to end: a SyncAgtr job whose region changes under it, 100 times (docs/memory.md). Four
# hosts, one switch on their veth ports, session 1 split among 2 threads (2 x 8 slots to start);
# 1 % drop, 1 % duplication and reordering in both directions of every port (inswitch fault
# injection). The workers (syncagtr-worker --ctl: rank 0 resets the session, every worker reads
# the region it must start in; 2 threads, window 8, --repeat jobs of 16 Ki int32, --check: every
# job's result against the sum of all four ranks' tensors computed here, and the end-to-end
# check) run in batches, one after another, while a changer moves the session's region 100
# times: to 16, 32, 64, 128 slots and back down (grow and shrink), and every third change to the
# same size at another place (move), each as soon as the switch takes it (the last change
# drained and 50 ms passed), until 100 have drained under running jobs. Passes when:
#   - every job of every batch is exact and verified, on every rank;
#   - 100 changes drained by the workers' own flags under the running jobs (the changer asks
#     only while the workers are registered; one asked as a batch ends may end for want of
#     workers, or by the next batch's reset: counted apart), none left changing, and the
#     generation is every change made;
#   - the workers followed them (region_moves), the results carried the note, and packets for
#     a region a change had left were dropped as sa-gen, never summed;
#   - the budget holds only the session's last region.
#   region_change.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
worker=$build/hosts/syncagtr/syncagtr-worker
isw_need_tools "$worker"
trap isw_cleanup EXIT

CHANGES=100
BATCHES=12
REPEAT=${REGION_REPEAT:-150}

isw_topo_create 4
isw_switch_start "$build" --pipeline syncagtr || isw_fail "switch did not start"
isw_l2_static
isw_ctl syncagtr session add 1 ip 10.99.0.254 workers 4 slots 16 threads 2 >/dev/null
for p in 0 1 2 3; do
	for d in rx tx; do
		isw_ctl port fault $p $d drop 1 dup 1 reorder 1 depth 8 >/dev/null
	done
done
echo "switch on $ISW_DRIVER ports; 1% drop, duplication and reordering on every port"

# The changer: region changes of session 1 while its workers are registered (between batches
# a change would only end for want of workers), each retried until the switch takes it, until
# CHANGES of them have drained under the running jobs.
session_state() {
	isw_ctl --json syncagtr session show 1 |
		jq -r '.sessions[0] | "\(.changes_drained) \(if .registered == 4 and .changing == false then 1 else 0 end) \(.slots)"'
}
changer() {
	isw_region_changer session_state isw_ctl syncagtr session region 1 slots
}
echo 0 >"$ISW_TMP/changes"
changer &
CHANGER=$!
ISW_STOP_PIDS+=("$CHANGER")

moves=0
batches=0
while :; do
	batches=$((batches + 1))
	[ $batches -le $BATCHES ] ||
		isw_fail "$BATCHES batches ran and only $(cat "$ISW_TMP/changes") changes drained"
	pids=()
	for r in 0 1 2 3; do
		isw_ns $((r + 1)) "$worker" --rank $r --workers 4 --switch-ip 10.99.0.254 \
			--ctl "$ISW_CTL_SOCK" --session 1 --threads 2 --window 8 --count 16Ki \
			--repeat "$REPEAT" --check --timeout-ms 10 --first-timeout-ms 40 --guard-ms 10 --json \
			--quiet \
			>"$ISW_TMP/b$batches.$r.json" 2>"$ISW_TMP/b$batches.$r.err" &
		pids[r]=$!
	done
	for r in 0 1 2 3; do
		wait "${pids[$r]}" || isw_fail "batch $batches, rank $r: $(tail -n 3 "$ISW_TMP/b$batches.$r.err")"
		[ "$(jq -r .verified "$ISW_TMP/b$batches.$r.json")" = true ] ||
			isw_fail "batch $batches, rank $r: not verified: $(cat "$ISW_TMP/b$batches.$r.json")"
	done
	m=$(jq .region_moves "$ISW_TMP/b$batches.0.json")
	moves=$((moves + m))
	echo "batch $batches: $REPEAT jobs of 16 Ki int32 exact and verified on 4 ranks;" \
		"rank 0's threads moved $m times; $(cat "$ISW_TMP/changes") changes drained so far"
	kill -0 $CHANGER 2>/dev/null || break
done
wait $CHANGER || isw_fail "the changer failed: $(cat "$ISW_TMP/changer.err" 2>/dev/null)"

# the last change drains with no worker left (the tick), or did under the last batch
for ((k = 0; k < 50; k++)); do
	isw_ctl --json syncagtr session show 1 | jq -e '.sessions[0].changing == false' >/dev/null && break
	sleep 0.1
done
show=$(isw_ctl --json syncagtr session show 1)
gen=$(jq '.sessions[0].gen' <<<"$show")
drained=$(jq '.sessions[0].changes_drained' <<<"$show")
ended=$(jq '.sessions[0].changes_ended' <<<"$show")
notes=$(jq '.counters[0].region_notes' <<<"$show")
oldp=$(jq '.counters[0].old_region_pkts' <<<"$show")
dgen=$(jq '.counters[0].drop_gen' <<<"$show")
echo "switch: generation $gen; $drained changes drained under the jobs, $ended ended between" \
	"batches; $notes results carried the region note, $oldp packets went to a region being" \
	"left, $dgen late ones to a region already left were dropped (sa-gen)"
jq -e '.sessions[0].changing == false' <<<"$show" >/dev/null || isw_fail "still changing"
[ "$drained" -ge $CHANGES ] || isw_fail "only $drained changes drained under running jobs"
[ $((drained + ended)) = "$gen" ] || isw_fail "$drained + $ended changes ended, generation $gen"
if [ "$moves" -eq 0 ] || [ "$notes" -eq 0 ]; then
	isw_fail "the workers moved $moves times, $notes results carried the note"
fi
holders=$(isw_ctl --json budget show | jq -r '.pools[] | select(.pool | test("syncagtr")) | .holders[].holder')
[ "$(wc -l <<<"$holders")" = 1 ] || isw_fail "the budget holds more than one region: $holders"
echo "$drained region changes under $batches batches of jobs with loss, duplication and" \
	"reordering: every job exact; rank 0's threads moved $moves times"
echo PASS
