#!/usr/bin/env bash
# Install what the interop suite (tests/interop) needs on the host, from
# Debian 12's archive only: qemu to run the kernel Soft-RoCE guest, mmdebstrap
# and friends to build its image from Debian packages, tcpdump for the
# captures. Idempotent: installs nothing when everything is present.
# Not part of devtools/install-deps.sh: ~75 MB that only this suite uses.
set -euo pipefail

packages=(
	qemu-system-x86 mmdebstrap cpio zstd kmod iproute2 tcpdump python3
	procps		# sysctl(8): the harness turns IPv6 and ARP answers off on its links
	ca-certificates
	python3-pyverbs	# devtools/pyverbs-reference.sh: rdma-core's test suite over librte_roce
)

# shellcheck source=devtools/lib-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib-install.sh"
install_missing install-interop-deps "${packages[@]}"
