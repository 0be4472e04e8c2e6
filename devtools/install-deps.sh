#!/usr/bin/env bash
# Install what building and testing librte_roce needs, from Debian 12's archive
# only. Idempotent: installs nothing when everything is present.
set -euo pipefail

packages=(
	gcc g++ pkg-config meson ninja-build python3 git
	libdpdk-dev libnuma-dev libibverbs-dev libisal-dev
	libpcap-dev	# roce_dump reads pcap and pcapng, compiles BPF filters
	liburing-dev	# roce_nvmf: file and block device namespaces through io_uring
	dpdk-dev	# func suite: dpdk-telemetry.py (telemetry), dpdk-dumpcap (pdump)
	clang libclang-rt-14-dev
	llvm-14		# llvm-symbolizer: sanitizer reports name functions, so suppressions match
	valgrind	# bench suite: callgrind instruction counts (roce_perf)
	ibverbs-utils	# func suite: unmodified ibv_devices, ibv_devinfo, ibv_*_pingpong (verbs_preload)
	perftest	# unmodified ib_write_bw & co. through librte_roce_verbs (doc/verbs-abi.md)
	rdmacm-utils librdmacm-dev	# unmodified rping, ucmatose, rdma_server/client through librte_roce_verbs; rdma_cma.h for it
	libfabric-bin libfabric1	# func suite: unmodified fi_info, fi_pingpong (libfabric's verbs provider) through librte_roce_verbs
	ucx-utils libucx0	# func suite: unmodified ucx_info, ucx_perftest (UCX's rc_verbs, ud_verbs) through librte_roce_verbs
	iproute2	# func suite: lanes_af_packet makes a veth pair with ip(8)
	python3-yaml python3-kubernetes	# unit k8s_manifests: the Kubernetes API schemas
)

# shellcheck source=devtools/lib-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib-install.sh"
install_missing install-deps "${packages[@]}"
