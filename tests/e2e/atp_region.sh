#!/usr/bin/env bash
# End to end: an ATP job whose region changes under it, 100 times (docs/memory.md, ATP). Five
# hosts, one switch on their veth ports: app 1's workers h1..h4 (ports 0..3), its PS h5 (port
# 4); the shared range cut to 256 aggregators; 1 % drop, 1 % duplication and 1 % reordering in
# both directions of every port (inswitch fault injection). The workers (atp-worker: 2 threads,
# window 64, --repeat calls of 16 Ki int32, --check: every call's result against the sum of all
# four workers' tensors computed here, and the end-to-end check) run in batches against one PS
# while a changer gives the app region after region:
# 16, 32, 64, 128 aggregators and back down (grow and shrink), every third change the same size
# at another place (move), each as soon as the last one's old region drained, until 100 have
# drained. The first change moves the app out of the shared range. Passes when:
#   - every call of every batch is exact and verified, on every worker;
#   - 100 changes drained under the running jobs, none left under way;
#   - the workers followed them (region_moves) and results carried the region note (late
#     frames, which claim an aggregator after their seq's ACK, are what the tensor check is
#     for: small regions make them common; docs/atp.md);
#   - the budget holds only the app's last region and the shared range.
#   atp_region.sh BUILD_DIR        (ATP_REGION_CHANGES, ATP_REGION_REPEAT, ATP_REGION_FAULTS
#                                   ("drop 1 dup 1 reorder 1 depth 8"))
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
worker=$build/hosts/atp/atp-worker
isw_need_tools "$worker" "$build/hosts/atp/atp-ps"
trap isw_cleanup EXIT

CHANGES=${ATP_REGION_CHANGES:-100}
BATCHES=12
REPEAT=${ATP_REGION_REPEAT:-150}
FAULTS=${ATP_REGION_FAULTS:-drop 1 dup 1 reorder 1 depth 8}
COMMON="--threads 2 --window 64 --pool 256"

isw_topo_create 5
isw_switch_start "$build" --pipeline atp || isw_fail "switch did not start"
isw_ctl atp pool resize 256 >/dev/null
isw_ctl atp app add 1 workers 4 ports 0,1,2,3 ps 4 >/dev/null
for p in 0 1 2 3 4; do
	for d in rx tx; do
		# shellcheck disable=SC2086 # FAULTS: words
		isw_ctl port fault $p $d $FAULTS >/dev/null
	done
done
echo "switch on $ISW_DRIVER ports; $FAULTS on every port"
# shellcheck disable=SC2086 # COMMON: words
isw_atp_ps 5 --app 1 --workers 4 $COMMON || isw_fail "the PS did not start"

# The changer: a change of app 1's region each time the last one has drained, until CHANGES
# of them have.
app_state() {
	isw_ctl --json atp app show 1 |
		jq -r '.apps[0] | "\(.regions_drained) \(if .change == "-" then 1 else 0 end) \(.aggregators)"'
}
changer() {
	isw_region_changer app_state isw_ctl atp app region 1 size
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
		# shellcheck disable=SC2086 # COMMON: words
		isw_ns $((r + 1)) "$worker" --id $r --workers 4 --app 1 --dev eth0 $COMMON \
			--count 16Ki --repeat "$REPEAT" --check --json --quiet \
			>"$ISW_TMP/b$batches.$r.json" 2>"$ISW_TMP/b$batches.$r.err" &
		pids[r]=$!
	done
	for r in 0 1 2 3; do
		wait "${pids[$r]}" || isw_fail "batch $batches, worker $r: $(tail -n 3 "$ISW_TMP/b$batches.$r.err")"
		jq -e '.verified == true and .check == true' "$ISW_TMP/b$batches.$r.json" >/dev/null ||
			isw_fail "batch $batches, worker $r: not verified: $(cat "$ISW_TMP/b$batches.$r.json")"
	done
	m=$(jq .region_moves "$ISW_TMP/b$batches.0.json")
	moves=$((moves + m))
	echo "batch $batches: $REPEAT calls of 16 Ki int32 exact and verified on 4 workers;" \
		"worker 0 moved $m times (now $(jq -r '"\(.region_size) aggregators at \(.region_first), window \(.region_window)"' "$ISW_TMP/b$batches.0.json"));" \
		"$(cat "$ISW_TMP/changes") changes drained so far"
	kill -0 $CHANGER 2>/dev/null || break
done
wait $CHANGER || isw_fail "the changer failed: $(cat "$ISW_TMP/changer.err" 2>/dev/null)"

# the last change ends without workers (its time runs out), and drains
for ((k = 0; k < 100; k++)); do
	isw_ctl --json atp app show 1 | jq -e '.apps[0].change == "-"' >/dev/null && break
	sleep 0.1
done
show=$(isw_ctl --json atp app show 1)
gen=$(jq '.apps[0].region_gen' <<<"$show")
drained=$(jq '.apps[0].regions_drained' <<<"$show")
notes=$(jq '.counters[0].notes' <<<"$show")
outside=$(jq '.counters[0].outside' <<<"$show")
stale=$(jq '.counters[0].stale' <<<"$show")
echo "switch: generation $gen; $drained changes drained; $notes results carried the region" \
	"note; $outside frames for aggregators outside the app's region went to the PS; $stale" \
	"stale aggregations (a late frame's) taken over or released"
jq -e '.apps[0].change == "-"' <<<"$show" >/dev/null || isw_fail "a change is still under way"
[ "$drained" -ge "$CHANGES" ] || isw_fail "only $drained changes drained"
[ "$drained" = "$gen" ] || isw_fail "$drained changes drained, generation $gen"
if [ "$moves" -eq 0 ] || [ "$notes" -eq 0 ]; then
	isw_fail "the workers moved $moves times, $notes results carried the note"
fi
holders=$(isw_ctl --json budget show | jq -r '.pools[] | select(.pool | test("atp")) | .holders[].holder' | sort)
[ "$holders" = "$(printf 'atp app 1%s\natp apps (shared)' "$([ $((gen % 2)) = 1 ] && echo ' (region 1)')")" ] ||
	isw_fail "the budget holds: $holders"
echo "$drained region changes under $batches batches of jobs with loss, duplication and reordering: every" \
	"call exact; worker 0 moved $moves times"
echo PASS
