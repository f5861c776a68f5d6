#!/usr/bin/env bash
# End to end: the Python package (hosts/python/inswitch over libinswitch-host) on two hosts in
# network namespaces through inswitch (--pipeline syncagtr). Each rank runs
# tests/e2e/python_api_worker.py (what it checks is listed there): numpy and torch tensors in
# place, int32 exact and float32 within its bound, copies only where the layout needs them, and
# errors as exceptions with the switch's reason. This script plays the operator and the
# attacker between the ranks' steps: it forges a contribution of rank 1 (from rank 1's host,
# with its addresses) into the slot of the next job's first packet, so that only the end-to-end
# check (verify, on by default) can tell the result is wrong, and later deletes the session
# under the ranks. Then the switch is
# swapped to ATP (app 1 on the two hosts, its parameter server on h3) and each host runs
# tests/e2e/python_api_atp.py: inswitch.ATP in place with no control socket (the PS names the
# job), int32 exact and float32 within its scaling bound, both verified end to end by default, a
# saturated sum caught as such, and the PS stopped under the workers raising AllreduceTimeout.
#   python_api.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
trap isw_cleanup EXIT

isw_python "$build" numpy torch

# The library exports isw_host.h's functions and nothing of the host libraries inside it
# (hosts/python/isw_host.map): a program linking it cannot clash with their names.
exported=$(nm -D --defined-only "$build/hosts/python/libinswitch-host.so" |
	awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort | tr '\n' ' ')
want=$(grep -oE '\bisw_[a-z_]+\(' "$src/hosts/python/isw_host.h" | tr -d '(' | sort -u | tr '\n' ' ')
[ "$exported" = "$want" ] || isw_fail "libinswitch-host exports '$exported', isw_host.h declares '$want'"
echo "libinswitch-host exports: $exported"

isw_topo_create 3 # h3: ATP's parameter server
isw_switch_start "$build" --pipeline syncagtr || isw_fail "inswitch did not start"
isw_l2_static || isw_fail "l2 add"
isw_wait_path 1 10.99.0.2 || isw_fail "h1 never reached h2"

sync=$ISW_TMP/sync
mkdir "$sync"
pids=()
for r in 0 1; do
	isw_ns $((r + 1)) "$py" "$src/tests/e2e/python_api_worker.py" $r 2 10.99.0.254 \
		"$ISW_CTL_SOCK" "$sync" >"$ISW_TMP/w$r.json" 2>"$ISW_TMP/w$r.err" &
	pids+=($!)
done

# wait_marks NAME: both ranks have written NAME.<rank>
wait_marks() {
	local k
	for ((k = 0; k < 600; k++)); do
		[ -e "$sync/$1.0" ] && [ -e "$sync/$1.1" ] && return 0
		kill -0 "${pids[0]}" 2>/dev/null || break
		kill -0 "${pids[1]}" 2>/dev/null || break
		sleep 0.05
	done
	cat "$ISW_TMP"/[wa]*.err >&2 2>/dev/null || true
	isw_fail "the ranks did not reach '$1'"
}

# The next packet of thread 0 (1 thread, window 8, after the 8-packet start barrier) goes to
# slot 0, set 1: pool index 0x8000. A 256-value SwitchML packet "from rank 1" lands there first.
wait_marks open
isw_ns 2 "$py" - <<'EOF' || isw_fail "could not forge"
import socket, struct
hdr = struct.pack("!BB", 0x10 | 3, 0) + struct.pack("<I", 0) + struct.pack("!H", 0x8000) + b"\0\0"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.99.0.2", 4001))
s.sendto(hdr + struct.pack("!256i", *([12345] * 256)), ("10.99.0.254", 0xBEE0))
EOF
touch "$sync/forged"
wait_marks checked
echo "forged contribution: both ranks raised ResultCheckError"

wait_marks deleteme
isw_ctl syncagtr session del 1 >/dev/null
touch "$sync/deleted"

# wait_ranks PREFIX: both processes done and successful (else their stderr, and fail)
wait_ranks() {
	local r rc=0
	for r in 0 1; do
		if ! wait "${pids[$r]}"; then
			echo "$1 $r failed:" >&2
			cat "$ISW_TMP/$1$r.err" >&2
			rc=1
		fi
	done
	[ "$rc" = 0 ] || isw_fail "a process of '$1' failed"
}

wait_ranks w
for r in 0 1; do
	echo "rank $r: $(jq -c '{int32, float32_max_err, stats: (.stats | {jobs, verified, packets, retransmits})}' "$ISW_TMP/w$r.json")"
	echo "rank $r: forged:     $(jq -r .forged "$ISW_TMP/w$r.json")"
	echo "rank $r: no session: $(jq -r .no_session "$ISW_TMP/w$r.json")"
done

# ---- ATP: app 1 of h1 and h2, its PS on h3 (port 2)
isw_ctl pipeline disable syncagtr >/dev/null
isw_ctl pipeline enable atp >/dev/null
isw_ctl atp app add 1 workers 2 ports 0,1 ps 2 >/dev/null
isw_atp_ps 3 --app 1 --workers 2 --window 50 || isw_fail "no parameter server"
pids=()
for r in 0 1; do
	isw_ns $((r + 1)) "$py" "$src/tests/e2e/python_api_atp.py" $r 2 "$sync" \
		>"$ISW_TMP/a$r.json" 2>"$ISW_TMP/a$r.err" &
	pids+=($!)
done
wait_marks atp-done
kill -TERM $ISW_PS_PID
wait $ISW_PS_PID || true
touch "$sync/ps-stopped"
wait_ranks a
for r in 0 1; do
	echo "ATP worker $r: $(jq -c '{int32, float32_max_err, stats: (.stats | {jobs, verified, packets, retransmits})}' "$ISW_TMP/a$r.json")"
	echo "ATP worker $r: saturated: $(jq -r .saturated "$ISW_TMP/a$r.json")"
	echo "ATP worker $r: no PS: $(jq -r .no_ps "$ISW_TMP/a$r.json")"
done
# The PS named the job, on the switch too (no control socket given to the workers).
[ "$(isw_ctl --json atp app show 1 | jq '.apps[0].job != 0 and .counters[0].jobs == 1')" = true ] ||
	isw_fail "the switch does not name the PS's job: $(isw_ctl atp app show 1)"
echo "PASS"
