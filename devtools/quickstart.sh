#!/usr/bin/env bash
# The first command of the README: install what is missing, build, and run the
# main job on an embedded default that needs no NIC: two librte_roce ports
# joined by a net_ring pair in one process resolve each other with ARP and ND,
# ping, and exchange RoCEv2 frames.
set -euo pipefail
cd "$(dirname "$0")/.."

devtools/install-deps.sh
[ -d build ] || meson setup build
ninja -C build

# No hugepages needed: --no-huge keeps the demo runnable in any container.
exec build/examples/roce_demo/roce_demo --no-huge -m 256 --no-shconf --no-pci \
	--no-telemetry -l 0 "$@"
