# shellcheck shell=bash
# Helpers shared by the pcap-driven tests.

# empty_pcap FILE: a valid capture with no frames (global header only), for ports whose input
# must stay silent; net_pcap needs an rx file on every port.
empty_pcap() {
	printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$1"
}

# daemon_test TAG: for a test that runs the daemon itself: tmp, a new temporary directory, and
# pid, the daemon's (empty while none runs); at exit the daemon is stopped and tmp removed with
# the runtime directory of file prefix isw-TAG-$$. fail MSG prints FAIL: MSG and the daemon's
# log ($tmp/log), and exits 1.
daemon_test() {
	tmp=$(mktemp -d -t "inswitch-$1.XXXXXX")
	pid=""
	_daemon_tag=$1
	trap _daemon_cleanup EXIT
}

_daemon_cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp" "/var/run/dpdk/isw-$_daemon_tag-$$"
}

# wait_ctl: until the daemon ($pid) answers on $tmp/ctl.sock; fails if it exits first or
# takes over 10 s.
wait_ctl() {
	for _ in $(seq 100); do
		[ -S "$tmp/ctl.sock" ] && return
		kill -0 "$pid" 2>/dev/null || fail "inswitch exited"
		sleep 0.1
	done
	fail "no control socket after 10 s"
}

# wait_tx PORT N [WHAT]: until the daemon ($pid, $tmp/ctl.sock, $ctl) has sent N packets out
# of PORT; fails, with its stats, if it exits first or has not after 30 s.
wait_tx() {
	local tx=0
	# shellcheck disable=SC2154 # $ctl is the sourcing test's
	: "${ctl:?}"
	for _ in $(seq 300); do
		tx=$("$ctl" -s "$tmp/ctl.sock" --json stats show 2>/dev/null |
			jq ".ports[$1].tx_pkts" || echo 0)
		[ "$tx" = "$2" ] && return
		kill -0 "$pid" 2>/dev/null || fail "${3:+$3: }inswitch exited"
		sleep 0.1
	done
	"$ctl" -s "$tmp/ctl.sock" stats show || true
	fail "${3:+$3: }port $1 sent $tx of $2 packets"
}

fail() {
	echo "FAIL: $*"
	cat "$tmp/log" || true
	exit 1
}
