#!/usr/bin/env bash
# The host transport's tests (test_hx.c) on a veth pair whose ends are in two network
# namespaces of their own (A: hxa 10.77.0.1 and lo up, B: hxb 10.77.0.2).
#   test_hx.sh TEST_HX_BINARY
set -euo pipefail
[ "$(id -u)" = 0 ] || {
	echo "skipped: needs root (network namespaces and AF_XDP)"
	exit 77
}
a=hxtest$$a
b=hxtest$$b
cleanup() {
	ip netns del "$a" 2>/dev/null || true
	ip netns del "$b" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$a"
ip netns add "$b"
ip -n "$a" link add hxa type veth peer name hxb netns "$b"
ip -n "$a" addr add 10.77.0.1/24 dev hxa
ip -n "$b" addr add 10.77.0.2/24 dev hxb
ip -n "$a" link set hxa up
ip -n "$a" link set lo up
ip -n "$b" link set hxb up
ip netns exec "$a" "$1" hxa hxb "/var/run/netns/$b"
