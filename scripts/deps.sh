#!/usr/bin/env bash
# Installs what inswitch needs to build, test and run its demo on Debian 12. Skips apt-get when
# everything is already there, so it also works offline on a prepared machine.
set -euo pipefail

pkgs=(gcc g++ pkg-config meson ninja-build libdpdk-dev dpdk libpcap-dev libcmocka-dev
      libbpf-dev libxdp-dev iproute2 nftables ethtool iputils-ping netcat-openbsd jq
      clang-format clang libclang-rt-14-dev python3-grpcio python3-yaml fortunes
      python3-numpy python3-torch python3-sklearn tshark dpdk-dev gnuplot-nox
      libtorch-dev pybind11-dev)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
