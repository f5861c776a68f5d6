#!/usr/bin/env bash
# The host transport's tests (test_hx.c) on a veth pair in a network namespace of their own.
#   test_hx.sh TEST_HX_BINARY
set -euo pipefail
[ "$(id -u)" = 0 ] || {
	echo "skipped: needs root (a network namespace and AF_XDP)"
	exit 77
}
ns=hxtest$$
cleanup() { ip netns del "$ns" 2>/dev/null || true; }
trap cleanup EXIT
ip netns add "$ns"
ip -n "$ns" link add hxa type veth peer name hxb
ip -n "$ns" link set hxa up
ip -n "$ns" link set hxb up
ip netns exec "$ns" "$1" hxa hxb
