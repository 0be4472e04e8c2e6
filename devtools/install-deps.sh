#!/usr/bin/env bash
# Install what building and testing librte_roce needs, from Debian 12's archive
# only. Idempotent: installs nothing when everything is present.
set -euo pipefail

packages=(
	gcc g++ pkg-config meson ninja-build python3 git
	libdpdk-dev dpdk-dev libnuma-dev libibverbs-dev libisal-dev
	clang libclang-rt-14-dev
	valgrind	# bench suite: callgrind instruction counts (roce_perf)
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}; run as root" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
