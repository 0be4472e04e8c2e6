#!/usr/bin/env bash
# The first command of the README: install what is missing, build, and run the
# main job on an embedded default that needs no NIC: roce_perf --loopback, an
# RC WRITE bandwidth test between two librte_roce devices joined by a net_ring
# pair in one process, every byte verified, with the raw net_ring figures
# beside it. Extra arguments go to roce_perf (after its EAL arguments), e.g.
#   devtools/quickstart.sh --test send_lat
# The earlier demo (ARP, ND, ping, one RC SEND) stays: build/examples/roce_demo/roce_demo.
set -euo pipefail
cd "$(dirname "$0")/.."

devtools/install-deps.sh
[ -d build ] || meson setup build
ninja -C build

# No hugepages needed: --no-huge keeps it runnable in any container.
# 2000 WRITEs of 64 KiB: a second or two.
exec build/app/roce_perf/roce_perf --no-huge -m 512 --no-shconf --no-pci \
	--no-telemetry -l 0 --log-level=lib.eal:warning -- \
	--loopback -s 65536 -n 2000 --verify --baseline "$@"
