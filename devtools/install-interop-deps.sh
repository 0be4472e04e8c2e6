#!/usr/bin/env bash
# Install what the interop suite (tests/interop) needs on the host, from
# Debian 12's archive only: qemu to run the kernel Soft-RoCE guest, mmdebstrap
# and friends to build its image from Debian packages, tcpdump for the
# captures. Idempotent: installs nothing when everything is present.
# Not part of devtools/install-deps.sh: ~75 MB that only this suite uses.
set -euo pipefail

packages=(
	qemu-system-x86 mmdebstrap cpio zstd kmod iproute2 tcpdump python3
	ca-certificates
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
	echo "install-interop-deps: missing packages: ${missing[*]}; run as root" >&2
	exit 1
fi
echo "install-interop-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
