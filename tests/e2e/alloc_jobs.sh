#!/usr/bin/env bash
# End to end: three SyncAgtr jobs sharing a small pool under the allocator (docs/memory.md).
# Six hosts, one switch: job a on h1, h2 (session 1), b on h3, h4 (session 2), c on h5, h6
# (session 3), each session of 1 thread and 8 slots to start; 1 % drop, duplication and
# reordering on every port (ALLOC_FAULTS=0: none). The allocator (policy ALLOC_POLICY, default
# edf; capacity ALLOC_CAPACITY slots, default 192,
# below the three jobs' peak needs of 245 each) has c as a best-effort job and a and b with
# deadlines (ALLOC_DEADLINES "A B" seconds from their start, default "20 30"), registered
# through the Python package (inswitch.alloc). Each job runs ALLOC_BATCHES (4) batches of
# ALLOC_REPEAT (5) iterations (syncagtr-worker --ctl --repeat, ALLOC_COUNT Ki int32 a worker and
# iteration, default 64, --check: every result against the sum computed here); after each batch
# its driver reports the iterations done and the round trip measured (Allocator.update: the
# one that gives the batch's goodput with the session's slots), and the next batch's workers
# join the session's region as it is then. c starts first, a and b a second later. The workers
# keep 10 ms between two packets on a slot (--guard-ms 10, as syncagtr_hosts.sh's lossy cases):
# edf gives the deadline jobs regions of a slot or two, which reuse each slot every round trip,
# and with the default 3 ms a copy held back by fault injection on a loaded CPU was summed into
# the next round (the workers' end-to-end check caught it: the job failed, it did not go wrong).
# Passes when:
#   - every iteration of every job is exact and verified;
#   - under edf: in some sample of 'alloc show' while all three run, a and b are on time with at
#     least the units their deadlines need and no change under way, and c holds no more than
#     the capacity they leave it (edf: deadline jobs first, the rest to best effort);
#   - the regions moved under the running jobs (the sessions' changes drained).
# With ALLOC_TSV=FILE (bench/alloc-jobs.sh) it also appends one line per job: policy, job,
# seconds from its start to its end, its deadline, whether it met it.
#   alloc_jobs.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
worker=$build/hosts/syncagtr/syncagtr-worker
isw_need_tools "$worker"
isw_python "$build" numpy
trap isw_cleanup EXIT

POLICY=${ALLOC_POLICY:-edf}
read -r DL_A DL_B <<<"${ALLOC_DEADLINES:-20 30}"
BATCHES=${ALLOC_BATCHES:-4}
REPEAT=${ALLOC_REPEAT:-5}
CAPACITY=${ALLOC_CAPACITY:-192}
JOBS=${ALLOC_JOBS:-a b c}
FAULTS=${ALLOC_FAULTS:-1}
COUNT=${ALLOC_COUNT:-64}  # Ki int32 a worker and iteration
ITERS=$((BATCHES * REPEAT))
MODEL_MB=$(awk -v k="$COUNT" 'BEGIN { printf "%.6f", k * 4096 / 1e6 }')

isw_topo_create 6
isw_switch_start "$build" --pipeline syncagtr || isw_fail "switch did not start"
isw_l2_static
for s in 1 2 3; do
	isw_ctl syncagtr session add $s ip 10.99.0.25$s workers 2 slots 8 threads 1 >/dev/null
done
if [ "$FAULTS" = 1 ]; then
	for p in 0 1 2 3 4 5; do
		for d in rx tx; do
			isw_ctl port fault $p $d drop 1 dup 1 reorder 1 depth 8 >/dev/null
		done
	done
fi
isw_ctl alloc policy "$POLICY" >/dev/null
isw_ctl alloc capacity syncagtr "$CAPACITY" >/dev/null
isw_ctl alloc period "${ALLOC_PERIOD:-1000}" >/dev/null
echo "switch on $ISW_DRIVER ports; allocator $POLICY, capacity $CAPACITY slots"

# the allocator through the Python package
alloc_py() {
	"$py" -c "import sys; from inswitch.alloc import Allocator
a = Allocator(sys.argv[1]); $1" "$ISW_CTL_SOCK"
}

# job NAME SESSION FIRST_HOST [DEADLINE]: its batches, one after another, and its reports
job() {
	local name=$1 sess=$2 h0=$3 dl=${4:-} b r pids=() start end
	start=$(date +%s.%N)
	alloc_py "a.add('$name', 'syncagtr', $sess, iters=$ITERS, model_mb=$MODEL_MB${dl:+, deadline_s=$dl})"
	for ((b = 1; b <= BATCHES; b++)); do
		pids=()
		for r in 0 1; do
			isw_ns $((h0 + r)) "$worker" --rank $r --workers 2 --switch-ip 10.99.0.25$sess \
				--ctl "$ISW_CTL_SOCK" --session "$sess" --threads 1 --window 8 \
				--count "${COUNT}Ki" --repeat "$REPEAT" --check --timeout-ms 10 \
				--first-timeout-ms 40 --guard-ms 10 --json --quiet \
				>"$ISW_TMP/$name.$b.$r.json" 2>"$ISW_TMP/$name.$b.$r.err" &
			pids[r]=$!
		done
		for r in 0 1; do
			if ! wait "${pids[$r]}" ||
				[ "$(jq -r .verified "$ISW_TMP/$name.$b.$r.json")" != true ]; then
				echo "job $name batch $b rank $r: $(grep -v 'result verified' \
					"$ISW_TMP/$name.$b.$r.err" | tail -n 5)" \
					"$(cat "$ISW_TMP/$name.$b.$r.json" 2>/dev/null)" \
					"$(isw_ctl --json syncagtr session show "$sess")" >"$ISW_TMP/$name.failed"
				return 1
			fi
		done
		# the progress, and the round trip measured: the one that gives the goodput the
		# batch had with the slots the session had at its end (guard and CPUs included)
		rtt=$(isw_ctl --json syncagtr session show "$sess" | jq --slurpfile w \
			"$ISW_TMP/$name.$b.0.json" '.sessions[0].slots * 1024 * 8 /
			($w[0].goodput_gbps * 1e3) | if . > 0 and . < 1e7 then . else 4000 end')
		alloc_py "a.update('$name', done=$((b * REPEAT)), rtt_us=$rtt)"
	done
	end=$(date +%s.%N)
	echo "$name $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')" \
		>"$ISW_TMP/$name.done"
}

# the jobs of JOBS (a bench runs one alone): c first, a and b a second later
ja=0 jb=0 jc=0
if [[ " $JOBS " == *" c "* ]]; then
	job c 3 5 &
	jc=$!
	sleep 1
fi
if [[ " $JOBS " == *" a "* ]]; then
	job a 1 1 "$DL_A" &
	ja=$!
fi
if [[ " $JOBS " == *" b "* ]]; then
	job b 2 3 "$DL_B" &
	jb=$!
fi
for j in $ja $jb $jc; do
	[ "$j" = 0 ] || ISW_STOP_PIDS+=("$j") # (0 would be the process group)
done

# watch the plan while all three run
followed=0
samples=0
running() { [ "$1" != 0 ] && kill -0 "$1" 2>/dev/null; }
while running $ja || running $jb || running $jc; do
	show=$(isw_ctl --json alloc show 2>/dev/null) || break
	if [ "$(jq '.jobs | length' <<<"$show")" = 3 ]; then
		samples=$((samples + 1))
		jq -e --argjson cap "$CAPACITY" '
			(.jobs | map({(.job): .}) | add) as $j
			| $j.a.class == "on-time" and $j.b.class == "on-time"
			and $j.a.units >= $j.a.need and $j.b.units >= $j.b.need
			and ($j.a.changing | not) and ($j.b.changing | not)
			and $j.c.units <= $cap - $j.a.units - $j.b.units' <<<"$show" >/dev/null &&
			followed=$((followed + 1))
		echo "$show" >"$ISW_TMP/last_show.json"
	fi
	sleep 0.5
done
for j in $ja $jb $jc; do
	[ "$j" = 0 ] || wait "$j" || true
done
for n in $JOBS; do
	[ -f "$ISW_TMP/$n.done" ] || isw_fail "job $n failed: $(cat "$ISW_TMP/$n.failed" 2>/dev/null)"
done
echo "jobs $JOBS, $ITERS iterations each, every iteration exact and verified; a and b on" \
	"time with their need in $followed of $samples samples of 'alloc show'"
for s in 1 2 3; do
	isw_ctl --json syncagtr session show $s |
		jq -r '.sessions[0] | "session \(.session): generation \(.gen), \(.changes_drained) changes drained under its jobs, \(.changes_ended) ended between batches, \(.slots) slots at the end"'
done
drained=0
for s in 1 2 3; do
	drained=$((drained + $(isw_ctl --json syncagtr session show $s | jq '.sessions[0].changes_drained')))
done

if [ -n "${ALLOC_TSV:-}" ]; then
	for n in $JOBS; do
		read -r _ secs <"$ISW_TMP/$n.done"
		dl=$([ $n = a ] && echo "$DL_A" || { [ $n = b ] && echo "$DL_B" || echo -; })
		met=$([ "$dl" = - ] && echo - || awk -v s="$secs" -v d="$dl" 'BEGIN { print (s <= d) ? "yes" : "no" }')
		printf '%s\t%s\t%s\t%s\t%s\n' "$POLICY" $n "$secs" "$dl" "$met" >>"$ALLOC_TSV"
	done
fi
if [ "$POLICY" = edf ] && [ "$JOBS" = "a b c" ] && [ -z "${ALLOC_TSV:-}" ]; then
	[ "$followed" -gt 0 ] || isw_fail "a and b were never seen on time with their need: $(cat "$ISW_TMP/last_show.json")"
	[ "$drained" -gt 0 ] || isw_fail "no region changed under the running jobs"
fi
echo PASS
