#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs unit, pcap golden, fault-injection,
# sharding and end-to-end (network namespace) tests. The end-to-end tests need root; without it
# they are reported as skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
exec meson test -C build --print-errorlogs --num-processes 1 "$@"
