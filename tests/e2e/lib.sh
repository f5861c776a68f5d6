# shellcheck shell=bash
# Network-namespace topology and switch control for the end-to-end tests and the demo.
#
#   isw_topo_create N     hosts h1..hN, each a namespace with eth0 (MAC 02:00:00:00:00:<i hex>,
#                         IP 10.99.0.i/24) joined by a veth pair to a switch-side interface
#   isw_switch_start ARGS start inswitch on those interfaces (net_af_xdp, or net_af_packet where
#                         AF_XDP is unavailable, saying so); ARGS go after the daemon's "--"
#   isw_one_armed_create N  one-armed instead: hosts h1..hN behind a ToR (a bridge) and a
#                         server namespace srv whose one NIC (eth0, MAC 02:00:00:00:00:c8, IP
#                         10.99.0.200/24, the kernel's own) is its uplink; the ToR has the ACL
#                         ATP needs (docs/deploy.md, One-armed): ATP's EtherType only between a
#                         host and the uplink. isw_switch_start then runs inswitch inside srv
#                         on eth0 alone
#   isw_wait_path I IP    wait until host I reaches IP through the switch
#   isw_tcp_transfer F T M send M MiB over TCP from host F to host T, check, print seconds
#   isw_l2_static         tell the switch the cabling: a static l2 entry per host (its MAC on
#                         its port), as an operator would; SyncAgtr workers then register with
#                         "port l2" and are in their session's group before their first packet
#   isw_ctl ARGS          run inswitch-ctl against it
#   isw_ns I CMD...       run CMD in host I's namespace
#   isw_fortunes          the texts of the package fortunes in ISW_TEXTS (skips without them)
#   isw_python BUILD_DIR MODULES...  the Python of the tests (Debian's /usr/bin/python3) in
#                         $py, with the inswitch package and BUILD_DIR's library in its
#                         environment; exits 77 (skipped) when a module is missing
#   isw_region_changer STATE CHANGE...  the changer of the region tests: while fewer than
#                         CHANGES have drained (STATE prints "DRAINED IDLE SIZE": the changes
#                         drained, 1 when the tenant takes a change now, its size), asks
#                         CHANGE... SIZE [base B] each time it is IDLE: sizes 32 64 128 64 32
#                         16 in turn, every third change the same size at another place
#                         (a move); EBUSY or ENOSPC is tried again, any other refusal ends it
#                         with status 1 and its text in $ISW_TMP/changer.err. DRAINED is kept
#                         in $ISW_TMP/changes
#   isw_atp_ps I ARGS...  start atp-ps ARGS in host I's namespace, wait until it runs; its pid
#                         in ISW_PS_PID (stopped by isw_cleanup too); its stderr in
#                         $ISW_TMP/ps.I.err
#   isw_train_up BUILD N [ARGS]  a training topology: hosts h1..h(N+1) (the last for ATP's
#                         PS), the switch on SyncAgtr (and ARGS), static l2 entries, every
#                         worker host reaching h1
#   isw_atp_swap N W SCALE  swap the switch from SyncAgtr to ATP: app 1 of hosts h1..hN (ports
#                         0..N-1), its PS on h(N+1) (port N, atp-ps --threads 1 --window W
#                         --scale SCALE)
#   isw_sa_rounds C RESULTS BARRIER N  fails unless SyncAgtr counters C (JSON: completions,
#                         contributions) show RESULTS + BARRIER rounds, each with N contributions
#   ISW_STOP_PIDS+=(PID)  a background process (a PS, a shim) that isw_cleanup stops first
#   isw_named_start BUILD NAME LCORE IFACE...  one more switch, named NAME, with ports 0, 1, ...
#                         on those interfaces (driver ISW_DRIVER; memif:ROLE:LINK a memif port,
#                         ROLE server or client, the two ends of LINK meeting), the pipeline
#                         ISW_NAMED_PIPELINE on (default syncagtr), idle workers
#                         napping (--idle-sleep-us 200: several switches share the CPUs);
#                         its socket $ISW_TMP/NAME.sock, its log $ISW_TMP/NAME.log; stopped
#                         by isw_cleanup. Returns non-zero if it does not start
#   isw_named_ctl NAME ARGS  inswitch-ctl against switch NAME
#   isw_fabric_up BUILD  the fabric of the two-level tests (docs/fabric.md) on hosts h1..h4
#                         (isw_topo_create first): leaves L1 (h1, h2, uplink port 2) and L2 (h3,
#                         h4, uplink port 2), root P (L1 on port 0, L2 on 1, host h5 on 2 when
#                         there is one), each link a veth pair deleted by isw_cleanup, or with
#                         ISW_FABRIC_LINK=memif a memif (shared memory between the two switch
#                         processes, P the server: no kernel on the link); ISW_DRIVER the
#                         first of ISW_DRIVERS that starts P. isw_fail then shows the end of
#                         every named switch's log
#   isw_fabric_ports L1|L2|P  that switch's ports, as isw_named_start takes them
#   isw_fabric_topo syncagtr|atp|ask [SLOTS]  prints that fabric's topology file for job 1
#                         (inswitch-fabric, docs/fabric.md): SyncAgtr with its workers'
#                         addresses (SLOTS, default 1024), ATP with the PS behind P's port 2,
#                         or ASK with its receiver h5 behind P's port 2 (SLOTS: the AA size)
#   isw_fabric_faults SPEC  'port fault PORT DIR SPEC' on both directions of every port of L1,
#                         L2 and P (SPEC: e.g. drop 1 dup 1 reorder 1 depth 8, or off)
#   isw_fabric_restart_l2 TOPO [PAUSE]  SIGKILL leaf L2, start it again (after PAUSE s) on its
#                         ports and give it its part of TOPO (inswitch-fabric apply --switch)
#   isw_fabric_restart_ranks CASE TOPO WRONG_RE  with ranks 0..3 running (pids, output in
#                         $ISW_TMP/CASE.R.json and .err), restarts L2 (isw_fabric_restart_l2),
#                         then every rank must exit 0 verified or fail saying why, none printing
#                         WRONG_RE (a wrong result); ISW_OK: the ranks that finished
#   isw_cleanup           stop those, the switch, and delete everything (an EXIT trap)
#
# Needs root. Everything created carries a per-run prefix, so runs never collide.

ISW_TAG=${ISW_TAG:-i$$}
ISW_TMP=$(mktemp -d /tmp/inswitch-e2e.XXXXXX)
ISW_CTL_SOCK=$ISW_TMP/ctl.sock
ISW_LOG=$ISW_TMP/inswitch.log
ISW_HOSTS=0
ISW_PID=""
ISW_DRIVER=""
ISW_STOP_PIDS=()
ISW_ONE_ARMED=0
ISW_NAMED=()
ISW_LINKS=()

isw_ns() {
	local i=$1
	shift
	ip netns exec "${ISW_TAG}h$i" "$@"
}

isw_if() { echo "${ISW_TAG}p$1"; }

isw_topo_create() {
	local n=$1 i
	for ((i = 1; i <= n; i++)); do
		ip netns add "${ISW_TAG}h$i"
		ISW_HOSTS=$i
		ip link add "$(isw_if "$i")" type veth peer name eth0 netns "${ISW_TAG}h$i"
		ip link set "$(isw_if "$i")" up
		isw_ns "$i" ip link set lo up
		isw_ns "$i" ip link set eth0 address "$(printf '02:00:00:00:00:%02x' "$i")"
		isw_ns "$i" ip addr add "10.99.0.$i/24" dev eth0
		isw_ns "$i" ip link set eth0 up
		# AF_XDP and AF_PACKET hand frames over as they are: have the host finish its
		# checksums itself instead of leaving them to an offload that never happens.
		isw_ns "$i" ethtool -K eth0 tx off >/dev/null 2>&1 || true
	done
}

isw_one_armed_create() {
	local n=$1 i
	isw_topo_create "$n"
	ISW_ONE_ARMED=1
	ip link add "${ISW_TAG}tor" type bridge
	ip link set "${ISW_TAG}tor" up
	for ((i = 1; i <= n; i++)); do
		ip link set "$(isw_if "$i")" master "${ISW_TAG}tor"
	done
	# ATP's frames name no switch (a worker sends to its PS's MAC): without this, the ToR
	# would flood them to the PS directly too.
	nft -f - <<-EOF
		table bridge ${ISW_TAG}tor {
			chain acl {
				type filter hook forward priority 0; policy accept;
				iifname != "${ISW_TAG}up" oifname != "${ISW_TAG}up" ether type 0x0700 drop
			}
		}
	EOF
	ip netns add "${ISW_TAG}srv"
	ip link add "${ISW_TAG}up" type veth peer name eth0 netns "${ISW_TAG}srv"
	ip link set "${ISW_TAG}up" master "${ISW_TAG}tor"
	ip link set "${ISW_TAG}up" up
	isw_srv ip link set lo up
	isw_srv ip link set eth0 address 02:00:00:00:00:c8
	isw_srv ip addr add 10.99.0.200/24 dev eth0
	isw_srv ip link set eth0 up
	isw_srv ethtool -K eth0 tx off >/dev/null 2>&1 || true
}

isw_srv() { ip netns exec "${ISW_TAG}srv" "$@"; }

# isw_switch_start BUILD_DIR [daemon options...]
isw_switch_start() {
	local build=$1
	shift
	local driver vdevs i ns=()
	[ "$ISW_ONE_ARMED" = 1 ] && ns=(ip netns exec "${ISW_TAG}srv")
	for driver in ${ISW_DRIVERS:-net_af_xdp net_af_packet}; do
		vdevs=()
		for ((i = 1; i <= ISW_HOSTS; i++)); do
			vdevs+=(--vdev "${driver}$((i - 1)),iface=$(isw_if "$i")")
		done
		[ "$ISW_ONE_ARMED" = 1 ] && vdevs=(--vdev "${driver}0,iface=eth0")
		# ip netns exec execs inswitch: $! is the switch itself.
		"${ns[@]}" "$build/inswitch" --no-huge -m 1024 --no-pci -l "${ISW_LCORES:-0}" --no-shconf \
			--file-prefix "isw-$ISW_TAG" --log-level='*:warning' "${vdevs[@]}" \
			-- --ctl "$ISW_CTL_SOCK" "$@" >"$ISW_LOG" 2>&1 &
		ISW_PID=$!
		for ((i = 0; i < 100; i++)); do
			if ! kill -0 "$ISW_PID" 2>/dev/null; then
				break
			fi
			if "$build/inswitch-ctl" -s "$ISW_CTL_SOCK" version >/dev/null 2>&1; then
				ISW_DRIVER=$driver
				ISW_BUILD=$build
				return 0
			fi
			sleep 0.1
		done
		kill "$ISW_PID" 2>/dev/null || true
		wait "$ISW_PID" 2>/dev/null || true
		ISW_PID=""
		echo "inswitch did not start with $driver:" >&2
		tail -n 5 "$ISW_LOG" >&2
		[ "$driver" = net_af_xdp ] && echo "AF_XDP unavailable: falling back to net_af_packet" >&2
	done
	return 1
}

# isw_wait_path I IP: attaching XDP resets the veth link; wait (at most 10 s) until host I
# reaches IP through the switch, so the first measured packets are not lost to that.
isw_wait_path() {
	local k
	for ((k = 0; k < 20; k++)); do
		isw_ns "$1" ping -c 1 -W 0.5 "$2" >/dev/null 2>&1 && return 0
	done
	return 1
}

# isw_tcp_transfer FROM TO MIB: sends MIB MiB of random bytes over TCP from host FROM to host TO
# and checks they arrive intact; prints the seconds it took. Returns non-zero on any failure.
isw_tcp_transfer() {
	local from=$1 to=$2 mib=$3 srv t0 t1
	head -c $((mib * 1048576)) /dev/urandom >"$ISW_TMP/send"
	isw_ns "$to" sh -c "nc -l -N 10.99.0.$to 5001 > '$ISW_TMP/recv'" &
	srv=$!
	for _ in $(seq 50); do
		isw_ns "$to" ss -ltn | grep -q ':5001' && break
		sleep 0.1
	done
	t0=$(date +%s.%N)
	isw_ns "$from" timeout 60 nc -N "10.99.0.$to" 5001 <"$ISW_TMP/send" || return 1
	wait "$srv" || return 1
	t1=$(date +%s.%N)
	cmp -s "$ISW_TMP/send" "$ISW_TMP/recv" || return 1
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

isw_ctl() {
	"$ISW_BUILD/inswitch-ctl" -s "$ISW_CTL_SOCK" "$@"
}

# isw_fortunes: the texts of the Debian package fortunes (a real corpus for the ASK tests) in
# the array ISW_TEXTS; exits 77 (skipped) when the package is missing.
isw_fortunes() {
	local f
	ISW_TEXTS=()
	for f in /usr/share/games/fortunes/*; do
		[[ -f $f && $f != *.dat && $f != *.u8 ]] && ISW_TEXTS+=("$f")
	done
	[ ${#ISW_TEXTS[@]} -gt 0 ] || {
		echo "skipped: no text corpus (Debian package fortunes; scripts/deps.sh installs it)"
		exit 77
	}
}

isw_l2_static() {
	local i
	for ((i = 1; i <= ISW_HOSTS; i++)); do
		isw_ctl l2 add "$(printf '02:00:00:00:00:%02x' "$i")" $((i - 1)) >/dev/null || return 1
	done
}

# Fails the test: the message, then the end of the switch's log.
isw_fail() {
	local s
	echo "FAIL: $*" >&2
	tail -n 20 "$ISW_LOG" >&2 2>/dev/null || true
	for s in "${ISW_NAMED[@]}"; do
		echo "--- $s's log:" >&2
		tail -n 5 "$ISW_TMP/$s.log" >&2 || true
	done
	exit 1
}

# isw_faults on FAULT-ARGS... | off: the switch's fault injection (`port fault P DIR ...`) with
# the same arguments on every port of the topology, both directions; off takes it away.
isw_faults() {
	local p d
	for ((p = 0; p < ISW_HOSTS; p++)); do
		for d in rx tx; do
			if [ "$1" = on ]; then
				isw_ctl port fault $p $d "${@:2}" >/dev/null
			else
				isw_ctl port fault $p $d off >/dev/null
			fi
		done
	done
}

isw_switch_stop() {
	if [ -n "$ISW_PID" ]; then
		kill -TERM "$ISW_PID" 2>/dev/null || true
		wait "$ISW_PID" 2>/dev/null || true
		ISW_PID=""
	fi
}

isw_named_ctl() {
	local s=$1
	shift
	"$ISW_BUILD/inswitch-ctl" -s "$ISW_TMP/$s.sock" "$@"
}

isw_named_start() {
	local build=$1 s=$2 lcore=$3 i=0 ifc vdevs=() pid k shconf=(--no-shconf)
	shift 3
	ISW_BUILD=$build
	for ifc in "$@"; do
		case $ifc in
		memif:*:*)
			# memif's probe registers a multi-process action, which --no-shconf
			# disables ("Failed to register mp action callback", seen here)
			vdevs+=(--vdev "net_memif$i,role=$(echo "$ifc" | cut -d: -f2),id=0,socket=$ISW_TMP/$(echo "$ifc" | cut -d: -f3).memif")
			shconf=()
			;;
		*) vdevs+=(--vdev "$ISW_DRIVER$i,iface=$ifc") ;;
		esac
		i=$((i + 1))
	done
	"$build/inswitch" --no-huge -m 1024 --no-pci -l "$lcore" "${shconf[@]}" \
		--file-prefix "isw-$ISW_TAG-$s" --log-level='*:warning' "${vdevs[@]}" \
		-- --ctl "$ISW_TMP/$s.sock" --pipeline "${ISW_NAMED_PIPELINE:-syncagtr}" \
		--idle-sleep-us 200 \
		>"$ISW_TMP/$s.log" 2>&1 &
	pid=$!
	for ((k = 0; k < 100; k++)); do
		kill -0 "$pid" 2>/dev/null || break
		if isw_named_ctl "$s" version >/dev/null 2>&1; then
			ISW_STOP_PIDS+=("$pid")
			[[ " ${ISW_NAMED[*]} " == *" $s "* ]] || ISW_NAMED+=("$s")
			return 0
		fi
		sleep 0.1
	done
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	echo "switch $s did not start on $ISW_DRIVER: $(tail -n 3 "$ISW_TMP/$s.log")" >&2
	return 1
}

# the ports of fabric switch L1, L2 or P (isw_fabric_up)
isw_fabric_ports() {
	local l
	case $1 in
	L1 | L2)
		l=${1#L}
		if [ "${ISW_FABRIC_LINK:-veth}" = memif ]; then
			echo "$(isw_if $((2 * l - 1))) $(isw_if $((2 * l))) memif:client:u$l"
		else
			echo "$(isw_if $((2 * l - 1))) $(isw_if $((2 * l))) ${ISW_TAG}u$l"
		fi
		;;
	P)
		if [ "${ISW_FABRIC_LINK:-veth}" = memif ]; then
			echo -n "memif:server:u1 memif:server:u2"
		else
			echo -n "${ISW_TAG}d1 ${ISW_TAG}d2"
		fi
		[ "$ISW_HOSTS" -ge 5 ] && echo -n " $(isw_if 5)"
		echo
		;;
	esac
}

isw_fabric_up() {
	local build=$1 l
	if [ "${ISW_FABRIC_LINK:-veth}" = veth ]; then
		for l in 1 2; do
			ip link add "${ISW_TAG}u$l" type veth peer name "${ISW_TAG}d$l"
			ISW_LINKS+=("${ISW_TAG}u$l")
			ip link set "${ISW_TAG}u$l" up
			ip link set "${ISW_TAG}d$l" up
		done
	fi
	# a memif client connects when it starts: the root (the links' server side) first
	for ISW_DRIVER in ${ISW_DRIVERS:-net_af_xdp net_af_packet}; do
		# shellcheck disable=SC2046 # a list of ports
		isw_named_start "$build" P 0 $(isw_fabric_ports P) && break
		ISW_DRIVER=""
	done
	[ -n "$ISW_DRIVER" ] || isw_fail "no driver started a switch"
	# shellcheck disable=SC2046
	isw_named_start "$build" L1 0 $(isw_fabric_ports L1) || isw_fail "L1 did not start"
	# shellcheck disable=SC2046
	isw_named_start "$build" L2 1 $(isw_fabric_ports L2) || isw_fail "L2 did not start"
}

isw_fabric_faults() {
	local s p d n
	for s in L1 L2 P; do
		n=3
		[ $s = P ] && [ "$ISW_HOSTS" -lt 5 ] && n=2
		for ((p = 0; p < n; p++)); do
			for d in rx tx; do
				isw_named_ctl $s port fault $p $d "$@" >/dev/null ||
					isw_fail "$s: port fault $p $d $*"
			done
		done
	done
}

isw_fabric_restart_l2() {
	local topo=$1 pid
	pid=$(pgrep -f -- "--file-prefix isw-$ISW_TAG-L2 ") || isw_fail "no L2 process"
	{
		kill -KILL "$pid"
		wait "$pid"
	} 2>/dev/null || true
	ISW_STOP_PIDS=("${ISW_STOP_PIDS[@]/$pid/}")
	sleep "${2:-0}"
	# shellcheck disable=SC2046 # a list of ports
	isw_named_start "$ISW_BUILD" L2 1 $(isw_fabric_ports L2) || isw_fail "L2 did not restart"
	"$(dirname "${BASH_SOURCE[0]}")/../../control/inswitch-fabric" apply "$topo" --switch L2 \
		>/dev/null || isw_fail "inswitch-fabric apply --switch L2"
}

isw_fabric_restart_ranks() {
	local c=$1 topo=$2 wrong=$3 r
	for r in 0 1 2 3; do
		kill -0 "${pids[$r]}" 2>/dev/null || isw_fail "($c) rank $r ended before the leaf was killed"
	done
	isw_fabric_restart_l2 "$topo" 1
	ISW_OK=0
	for r in 0 1 2 3; do
		if wait "${pids[$r]}"; then
			[ "$(jq -r .verified "$ISW_TMP/$c.$r.json")" = true ] ||
				isw_fail "($c) rank $r exited 0 without verifying its result"
			ISW_OK=$((ISW_OK + 1))
		else
			[ -s "$ISW_TMP/$c.$r.err" ] || isw_fail "($c) rank $r failed without saying why"
			echo "($c) rank $r failed: $(head -c 160 "$ISW_TMP/$c.$r.err")"
		fi
		! grep -Eq "$wrong" "$ISW_TMP/$c.$r.err" "$ISW_TMP/$c.$r.json" ||
			isw_fail "($c) rank $r got a wrong sum"
	done
}

isw_fabric_topo() {
	local kind=$1 slots=${2:-1024} l r h
	echo "# two leaves and their parent"
	echo "switch P  ctl $ISW_TMP/P.sock  mac 02:00:00:00:fe:00"
	echo "switch L1 ctl $ISW_TMP/L1.sock mac 02:00:00:00:fe:01"
	echo "switch L2 ctl $ISW_TMP/L2.sock mac 02:00:00:00:fe:02"
	echo "link L1:2 P:0"
	echo "link L2:2 P:1"
	case $kind in
	atp) echo "job 1 atp root P ps-port 2" ;;
	ask)
		echo "job 1 ask root P ask-ip 10.99.0.254 receiver 02:00:00:00:00:05,10.99.0.5" \
			"port 2 channels 4 window 64 slots 16 key-bytes 16 aa-size $slots"
		;;
	*) echo "job 1 syncagtr ip 10.99.0.254 root P root-ip 10.98.0.254 slots $slots" ;;
	esac
	for l in 1 2; do
		case $kind in
		atp) echo "leaf 1 L$l" ;;
		ask) echo "leaf 1 L$l ask-ip 10.99.0.25$l" ;;
		*) echo "leaf 1 L$l up-ip 10.98.0.$l" ;;
		esac
		for r in 0 1; do
			h=$((2 * (l - 1) + r + 1))
			case $kind in
			atp) echo "worker 1 L$l $((h - 1)) port $r" ;;
			ask) echo "worker 1 L$l port $r" ;;
			*) echo "worker 1 L$l $r mac 02:00:00:00:00:0$h ip 10.99.0.$h port $r" ;;
			esac
		done
	done
}

isw_cleanup() {
	local i p
	for p in "${ISW_STOP_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	isw_switch_stop
	for p in "${ISW_LINKS[@]}"; do
		ip link del "$p" 2>/dev/null || true
	done
	for ((i = 1; i <= ISW_HOSTS; i++)); do
		ip link del "$(isw_if "$i")" 2>/dev/null || true
		ip netns del "${ISW_TAG}h$i" 2>/dev/null || true
	done
	if [ "$ISW_ONE_ARMED" = 1 ]; then
		ip link del "${ISW_TAG}up" 2>/dev/null || true
		ip link del "${ISW_TAG}tor" 2>/dev/null || true
		nft delete table bridge "${ISW_TAG}tor" 2>/dev/null || true
		ip netns del "${ISW_TAG}srv" 2>/dev/null || true
	fi
	rm -rf "$ISW_TMP" /var/run/dpdk/isw-"$ISW_TAG"-*
}

isw_region_changer() {
	local state=$1 i=0 sizes=(32 64 128 64 32 16) s base out drained idle cur
	shift
	while :; do
		read -r drained idle cur < <("$state")
		echo "$drained" >"$ISW_TMP/changes.new"
		mv "$ISW_TMP/changes.new" "$ISW_TMP/changes"
		[ "$drained" -lt "$CHANGES" ] || return 0
		if [ "$idle" != 1 ]; then
			sleep 0.02
			continue
		fi
		s=${sizes[$((i % 6))]}
		base=""
		# every third change: the same size as now, elsewhere
		if [ $((i % 3)) = 2 ]; then
			s=$cur
			base="base $((1000 + (i % 4) * 1000))"
		fi
		# shellcheck disable=SC2086 # base: none, or two words
		if out=$("$@" "$s" $base 2>&1); then
			i=$((i + 1))
		elif [[ $out != *EBUSY* && $out != *ENOSPC* ]]; then
			echo "changer: $out" >"$ISW_TMP/changer.err"
			return 1
		else
			sleep 0.02
		fi
	done
}

isw_atp_ps() {
	local i=$1 k
	shift
	# ip netns exec execs the PS: $! is its pid, for the kill.
	ip netns exec "${ISW_TAG}h$i" "$ISW_BUILD/hosts/atp/atp-ps" --dev eth0 "$@" >/dev/null \
		2>"$ISW_TMP/ps.$i.err" &
	ISW_PS_PID=$!
	ISW_STOP_PIDS+=($ISW_PS_PID)
	for ((k = 0; k < 50; k++)); do
		grep -qs '^atp-ps: app' "$ISW_TMP/ps.$i.err" && return 0
		kill -0 $ISW_PS_PID 2>/dev/null || break
		sleep 0.1
	done
	echo "atp-ps did not start: $(cat "$ISW_TMP/ps.$i.err")" >&2
	return 1
}

isw_train_up() {
	local build=$1 n=$2 i
	shift 2
	isw_topo_create $((n + 1))
	isw_switch_start "$build" --pipeline syncagtr "$@" || isw_fail "inswitch did not start"
	isw_l2_static || isw_fail "l2 add"
	for ((i = 2; i <= n; i++)); do
		isw_wait_path $i 10.99.0.1 || isw_fail "h$i never reached h1"
	done
}

isw_atp_swap() {
	local n=$1 w=$2 scale=$3
	isw_ctl pipeline disable syncagtr >/dev/null
	isw_ctl pipeline enable atp >/dev/null
	isw_ctl atp app add 1 workers "$n" ports "$(seq -s, 0 $((n - 1)))" ps "$n" >/dev/null
	isw_atp_ps $((n + 1)) --app 1 --workers "$n" --threads 1 --window "$w" --scale "$scale" ||
		isw_fail "no parameter server"
}

isw_sa_rounds() {
	local c=$1 results=$2 barrier=$3 n=$4
	[ "$(echo "$c" | jq .completions)" = $((results + barrier)) ] ||
		isw_fail "the switch completed $(echo "$c" | jq .completions) rounds, rank 0 took $results results (+ $barrier for the barrier)"
	[ "$(echo "$c" | jq .contributions)" = $((n * (results + barrier))) ] ||
		isw_fail "not every round had all $n workers' contributions"
}

isw_python() {
	local build=$1 m src
	shift
	py=/usr/bin/python3
	for m in "$@"; do
		if ! "$py" -c "import $m" 2>/dev/null; then
			echo "skipped: $py cannot import $m (scripts/deps.sh installs it)"
			exit 77
		fi
	done
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	export PYTHONPATH=$src/hosts/python PYTHONDONTWRITEBYTECODE=1
	export INSWITCH_HOST_LIB=$build/hosts/python/libinswitch-host.so
	[ -f "$INSWITCH_HOST_LIB" ] || {
		echo "FAIL: $INSWITCH_HOST_LIB is not built" >&2
		exit 1
	}
}

# isw_need_tools PATH...: skips the test (exit 77) unless every PATH is an executable.
isw_need_tools() {
	local t
	for t in "$@"; do
		[ -x "$t" ] || {
			echo "skipped: $t not built"
			exit 77
		}
	done
}

isw_need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "skipped: needs root for network namespaces"
		exit 77
	fi
}

# isw_cases CASE...: runs case_CASE for each, in order, counting those that ran to their end;
# isw_cases_ran, called next as a command of its own, fails unless all did. Bash abandons a
# whole compound command on an expansion error (a bad arithmetic expression, even under set -e)
# and goes on with the next command, so without the count a case dying that way would skip
# the cases after it and the test would still say PASS.
ISW_CASES_WANT=0
ISW_CASES_DONE=0
isw_cases() {
	local c
	ISW_CASES_WANT=$#
	for c in "$@"; do
		"case_$c"
		ISW_CASES_DONE=$((ISW_CASES_DONE + 1))
	done
}

# A script that runs its cases itself counts ISW_CASES_DONE and gives the list: isw_cases_ran LIST.
isw_cases_ran() {
	[ $# -eq 0 ] || ISW_CASES_WANT=$(awk '{ print NF }' <<<"$*")
	[ "$ISW_CASES_DONE" = "$ISW_CASES_WANT" ] ||
		isw_fail "only $ISW_CASES_DONE of $ISW_CASES_WANT cases ran to their end"
}
