#!/usr/bin/env bash
# Install what building and testing librte_roce needs, from Debian 12's archive
# only. Idempotent: installs nothing when everything is present.
set -euo pipefail

packages=(
	gcc g++ pkg-config meson ninja-build python3 git
	libdpdk-dev libnuma-dev libibverbs-dev libisal-dev
	dpdk-dev	# func suite: dpdk-telemetry.py (telemetry), dpdk-dumpcap (pdump)
	clang libclang-rt-14-dev
	llvm-14		# llvm-symbolizer: sanitizer reports name functions, so suppressions match
	valgrind	# bench suite: callgrind instruction counts (roce_perf)
	iproute2	# func suite: lanes_af_packet makes a veth pair with ip(8)
)

# shellcheck source=devtools/lib-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib-install.sh"
install_missing install-deps "${packages[@]}"
