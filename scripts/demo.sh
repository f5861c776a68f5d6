#!/usr/bin/env bash
# The demo: five hosts in network namespaces joined to inswitch by veth pairs, inswitch started
# on them with its default configuration (AF_XDP, or AF_PACKET where AF_XDP is unavailable),
# traffic through it (ARP, ping, a TCP transfer), SyncAgtr allreduce jobs (int32 and float32)
# between three hosts with their goodput and a check of the result, a model trained with
# PyTorch DDP on four hosts with its gradients averaged through the switch (SyncAgtr, and later
# ATP), side by side with the same training over gloo (accuracy, loss, time per step), an ATP job of two
# apps at once (each app's workers on h1 and h2, both parameter servers on h3) with each app's
# goodput, fallback share and check of the result, then an ASK WordCount of a real text (senders
# on h1 and h2, the receiver on h3) with its tuples/s, absorbed fraction and check of the result,
# the counters through inswitch-ctl, and a clean teardown. The host tools run on AF_XDP where
# they can have it (--transport auto, their default: hosts/README.md, The transport) and each
# job says which.
# Exits non-zero if any result is wrong. Needs root (uses sudo otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	exec sudo --preserve-env=PATH "$0" "$@"
fi
scripts/deps.sh
scripts/build.sh >/dev/null
build=$PWD/build

source tests/e2e/lib.sh
trap isw_cleanup EXIT

say() { printf '\n== %s\n' "$*"; }

say "creating hosts h1 to h5 (namespaces, veth pairs, 10.99.0.1-5)"
isw_topo_create 5
say "starting inswitch on the switch-side interfaces"
isw_switch_start "$build" || {
	cat "$ISW_LOG"
	exit 1
}
echo "inswitch runs on $ISW_DRIVER ports (log: kept until teardown)"
isw_ctl port list

say "h1 pings h2 and h3 (ARP is flooded; replies are unknown unicast, flooded too)"
isw_wait_path 1 10.99.0.2
isw_wait_path 1 10.99.0.3
isw_ns 1 ping -c 3 -i 0.2 10.99.0.2 | tail -2
isw_ns 1 ping -c 3 -i 0.2 10.99.0.3 | tail -2

say "static MAC entries (the cabling: SyncAgtr workers take their ports from it), unknown-unicast flooding off"
isw_l2_static
isw_ctl l2 flood unknown off
isw_ctl l2 show

say "TCP: 64 MiB from h1 to h3 through the switch"
secs=$(isw_tcp_transfer 1 3 64) || {
	echo "TCP transfer failed or corrupted" >&2
	exit 1
}
awk -v s="$secs" 'BEGIN { printf "64 MiB received intact in %.2f s: %.0f Mbit/s\n", s, 64 * 8 * 1.048576 / s }'

# allreduce TYPE: h1, h2, h3 allreduce 4 Mi values of TYPE through session 1. Each worker
# registers itself over the control socket (switch IP 10.99.0.254, its own MAC and IP, its port
# from the static l2 entries above) and checks the sum at the end. Prints goodput, then "result
# verified" only if every worker's check passed.
allreduce() {
	local type=$1 i pids=()
	for i in 1 2 3; do
		isw_ns "$i" "$build/hosts/syncagtr/syncagtr-worker" --rank $((i - 1)) --workers 3 \
			--switch-ip 10.99.0.254 --ctl "$ISW_CTL_SOCK" --session 1 --count 4Mi \
			--type "$type" --transport auto --check --json --quiet \
			>"$ISW_TMP/$type.$i.json" 2>"$ISW_TMP/$type.$i.err" &
		pids+=($!)
	done
	for i in 1 2 3; do
		wait "${pids[$((i - 1))]}" || {
			echo "SyncAgtr worker $i failed:" >&2
			cat "$ISW_TMP/$type.$i.err" >&2
			exit 1
		}
	done
	jq -s -r '"goodput (slowest worker): \(map(.goodput_gbps) | min * 100 | round / 100) " +
		"Gbit/s over \(map(.transport) | unique | join(" and ")) (hosts/README.md, The transport); retransmits: \(map(.retransmits) | add)" +
		(if .[0].max_err then "; largest error \(map(.max_err) | max) (within the bound)"
		 else "" end)' "$ISW_TMP/$type".*.json
	jq -s -e 'all(.verified == true)' "$ISW_TMP/$type".*.json >/dev/null || {
		echo "result NOT verified" >&2
		exit 1
	}
	echo "result verified (every worker's sum equals the sum of all three tensors)"
}

say "SyncAgtr: h1, h2, h3 allreduce 4 Mi int32 each through the switch (SwitchML protocol)"
isw_ctl pipeline enable syncagtr
allreduce int32
isw_ctl syncagtr session show

say "SyncAgtr again with float32 (SwitchML's exponent quantisation)"
# No reset needed: rank 0 starts the job's own epoch (docs/syncagtr.md, Job lifetime).
allreduce float32

# ATP: two apps at once on the same three ports. Each app has a worker on h1 and one on h2
# (switch ports 0 and 1); both apps' parameter servers (PS) run on h3 (port 2). The hosts tell
# the apps apart by destination MAC (one per app and thread), the switch by appID; both apps hash
# their frames into the switch's one shared pool of aggregators. --threads, --window and --pool
# must be the same on an app's workers and PS, and --pool must be the switch's pool size.
atp_pool=20000
atp_opts=(--threads 2 --window 100 --pool "$atp_pool")

# atp_app APP: app APP's PS on h3 (waits until its sockets are open), then its two workers on
# h1 and h2, each aggregating 4 Mi int32 values and checking the sum; stops the PS (which then
# prints its counters) once both workers are done. Fails if a worker or the PS failed.
atp_app() {
	local app=$1 i pids=() pspid rc=0 k
	# ip netns exec directly (not isw_ns), so $! is the PS itself for the kill.
	ip netns exec "${ISW_TAG}h3" "$build/hosts/atp/atp-ps" --app "$app" --dev eth0 --workers 2 \
		"${atp_opts[@]}" --json >"$ISW_TMP/atp$app.ps.json" 2>"$ISW_TMP/atp$app.ps.err" &
	pspid=$!
	for ((k = 0; k < 50; k++)); do
		grep -qs '^atp-ps: app' "$ISW_TMP/atp$app.ps.err" && break
		kill -0 "$pspid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pspid" 2>/dev/null || {
		echo "ATP app $app: PS did not start:" >&2
		cat "$ISW_TMP/atp$app.ps.err" >&2
		return 1
	}
	for i in 1 2; do
		# The PS names the job (on the switch too) once both workers have JOINed; each
		# worker checks its result end to end (and against the seeds' sum: --check).
		isw_ns "$i" "$build/hosts/atp/atp-worker" --id $((i - 1)) --workers 2 --app "$app" \
			--dev eth0 "${atp_opts[@]}" --count 4Mi --check --json --quiet \
			>"$ISW_TMP/atp$app.$i.json" 2>"$ISW_TMP/atp$app.$i.err" &
		pids+=($!)
	done
	for i in 1 2; do
		wait "${pids[$((i - 1))]}" || {
			echo "ATP app $app: worker on h$i failed:" >&2
			cat "$ISW_TMP/atp$app.$i.err" >&2
			rc=1
		}
	done
	kill -TERM "$pspid" 2>/dev/null || true
	wait "$pspid" || {
		echo "ATP app $app: PS failed:" >&2
		cat "$ISW_TMP/atp$app.ps.err" >&2
		rc=1
	}
	return $rc
}

# atp_report APP: the app's goodput, the share of its data the PS aggregated itself (atp-ps's
# partial / (full + partial)) and the switch's counters for it.
atp_report() {
	local app=$1
	jq -s -r --arg app "$app" --slurpfile ps "$ISW_TMP/atp$app.ps.json" \
		--slurpfile sw "$ISW_TMP/atp.switch.json" '
		$ps[0] as $p | ($sw[0].counters[] | select(.app == ($app | tonumber))) as $c |
		"app \($app): goodput (slowest worker): \(map(.goodput_gbps) | min * 100 | round / 100)" +
		" Gbit/s over \(map(.transport) | unique | join(" and ")) (hosts/README.md, The" +
		" transport); fallback share \($p.fallback_share * 10000 | round / 100)% (the PS" +
		" aggregated \($p.partial) packets itself, \($p.full) came summed by the switch)\n" +
		"app \($app): switch: \($c.aggregated) contributions aggregated, \($c.to_ps) frames" +
		" to the PS (\($c.collisions) collisions, \($c.resends) resends)"' \
		"$ISW_TMP/atp$app.1.json" "$ISW_TMP/atp$app.2.json"
}

say "Training: an MLP on the digits dataset, PyTorch DDP on h1-h4; gradients through the switch vs gloo"
# The same job twice, same seeds and data: gradients averaged by gloo's allreduce over TCP
# (through the switch's l2 path), then by SyncAgtr (session 2, its own switch IP) through the
# inswitch.ddp hook. --check fails the demo unless accuracy and losses match gloo's.
for i in 2 3 4; do
	isw_wait_path $i 10.99.0.1
done
PYTHONPATH=$PWD/hosts/python INSWITCH_HOST_LIB=$build/hosts/python/libinswitch-host.so \
	GLOO_SOCKET_IFNAME=eth0 /usr/bin/python3 hosts/python/examples/compare.py \
	--ns "$(seq -s, -f "${ISW_TAG}h%g" 1 4)" --master 10.99.0.1 --switch-ip 10.99.0.253 \
	--ctl "$ISW_CTL_SOCK" --epochs 20 --out "$ISW_TMP/train" --check --session 2
isw_ctl syncagtr session show 2

say "ATP: two apps at once, 4 Mi int32 per worker; workers of both apps on h1 and h2, both PSes on h3"
# Both pipelines together exceed the tofino2 profile's stages: SyncAgtr makes way for ATP.
isw_ctl pipeline disable syncagtr
isw_ctl pipeline enable atp
isw_ctl atp pool resize "$atp_pool" >/dev/null
isw_ctl atp app add 1 workers 2 ports 0,1 ps 2 >/dev/null
isw_ctl atp app add 2 workers 2 ports 0,1 ps 2 >/dev/null
# App 3: the training job of h1-h4 again, its gradients through ATP, its PS on h5.
isw_ctl atp app add 3 workers 4 ports 0,1,2,3 ps 4 >/dev/null
t0=$(date +%s.%N)
atp_app 1 &
atp_pid1=$!
atp_app 2 &
atp_pid2=$!
atp_rc=(0 0 0)
wait $atp_pid1 || atp_rc[1]=1
wait $atp_pid2 || atp_rc[2]=1
awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "both apps done in %.1f s\n", b - a }'
isw_ctl --json atp app show >"$ISW_TMP/atp.switch.json"
atp_failed=0
for app in 1 2; do
	atp_report "$app" 2>/dev/null || echo "app $app: no figures (see the errors above)" >&2
	if [ "${atp_rc[$app]}" -eq 0 ] && jq -s -e 'length == 2 and all(.verified == true)' \
		"$ISW_TMP/atp$app.1.json" "$ISW_TMP/atp$app.2.json" >/dev/null 2>&1; then
		echo "app $app: result verified (both workers' sums equal the sum of the app's two tensors)"
	else
		echo "app $app: result NOT verified" >&2
		atp_failed=1
	fi
done
[ "$atp_failed" -eq 0 ] || exit 1

say "Training again, its gradients through ATP (app 3 on h1-h4, its PS on h5), beside the runs above"
isw_atp_ps 5 --app 3 --workers 4 --threads 1 --window 100 --scale 16777216
PYTHONPATH=$PWD/hosts/python INSWITCH_HOST_LIB=$build/hosts/python/libinswitch-host.so \
	GLOO_SOCKET_IFNAME=eth0 /usr/bin/python3 hosts/python/examples/compare.py \
	--ns "$(seq -s, -f "${ISW_TAG}h%g" 1 4)" --master 10.99.0.1 --backends atp \
	--reference "$ISW_TMP/train/summary.json" --epochs 20 --out "$ISW_TMP/train-atp" --check \
	--ctl "$ISW_CTL_SOCK" \
	--app 3 --window 100 --scale 16777216
kill -TERM $ISW_PS_PID
wait $ISW_PS_PID || true
isw_ctl atp app show 3
# Every ACK freed its aggregator: none should be held.
isw_ctl atp pool show

say "ASK: WordCount of the Debian fortunes text (senders h1, h2; receiver h3)"
# ATP and ASK together exceed the tofino2 profile's stages too: ATP makes way for ASK.
isw_ctl pipeline disable atp
isw_ctl pipeline enable ask
isw_ctl ask config set ip 10.99.0.254
ask_input=()
for f in /usr/share/games/fortunes/*; do
	[[ -f $f && $f != *.dat && $f != *.u8 ]] && ask_input+=(--input "$f")
done
hosts/ask/ask-wordcount --build "$build/hosts/ask" --receiver-ns "${ISW_TAG}h3" \
	--receiver-ip 10.99.0.3 --switch-ip 10.99.0.254 --senders "${ISW_TAG}h1,${ISW_TAG}h2" \
	"${ask_input[@]}" --slots 16 --key-bytes 16 --aa-size 2048 --window 64 \
	--swap-threshold 2000 --ctl "$ISW_CTL_SOCK" --ctl-bin "$build/inswitch-ctl" \
	--receiver-mac 02:00:00:00:00:03 --switch-port 2 --sender-ports 0,1 --transport auto
echo "the switch's view of the task:"
isw_ctl --json ask task show 1 | jq -r '.counters[0] |
	"  tuples \(.tuples), absorbed \(.absorbed) (\(.absorbed * 1000 / .tuples | floor / 10)%), swaps \(.swaps), entries fetched \(.fetched)"'

say "counters (inswitch-ctl stats show)"
isw_ctl stats show

say "tearing down"
isw_switch_stop
tail -n 8 "$ISW_LOG" | grep -vE 'libbpf|libxdp' || true
echo "demo complete"
