#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build the interop guest from Debian bookworm packages only: the kernel of
# linux-image-amd64 (6.1, with rdma_rxe; or bookworm-backports' 6.12) and an initramfs root filesystem with
# rdma-core 44's tools, perftest, iproute2 (rdma), tcpdump and python3-pyverbs
# (rdma-core's own test suite runs on it: devtools/pyverbs-reference.sh), and
# for NVMe-oF nvme-cli, fio and the kernel's own target (nvmet-rdma).
#
#   build-guest.sh [KERNEL_SUITE]   print the image directory, building it if needed
#
# KERNEL_SUITE is where the kernel comes from: bookworm (the default, 6.1) or
# bookworm-backports (6.12: rxe with FLUSH and ATOMIC_WRITE, from Linux 6.2),
# read through an apt state of its own under $CACHE, so the host's sources
# are not touched; the root filesystem is bookworm's either way.
# The image lands in $CACHE/image-KEY/{vmlinuz,initrd.img,versions}, where KEY
# hashes everything that goes into it (this script, guest/init, the package
# and module lists, the kernel's suite): a second run with the same inputs
# builds nothing.
# Downloaded .deb files are kept in $CACHE/debs. Needs root (mmdebstrap
# --mode=root) and the Debian mirror; see devtools/install-interop-deps.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

GUEST_PKGS=(rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest
	    iproute2 tcpdump kmod iputils-ping procps mount hostname nvme-cli python3-pyverbs fio)
# Modules copied into the image, with their dependencies. sch_prio and
# cls_u32 keep one frame away from netem (run.sh, pp_last_ack_exempt).
GUEST_MODS=(virtio_pci virtio_net ib_core ib_uverbs ib_umad ib_cm iw_cm rdma_cm
	    rdma_ucm rdma_rxe crc32_generic crc32_pclmul udp_tunnel ip6_udp_tunnel
	    af_packet sch_netem sch_prio cls_u32 nvme_rdma nvmet_rdma)

KERNEL_SUITE=${1:-$SUITE}
case "$KERNEL_SUITE" in
"$SUITE" | "$SUITE-backports") ;;
*) log "build-guest: kernel suite $KERNEL_SUITE: only $SUITE or $SUITE-backports"; exit 2 ;;
esac

key=$( { cat "$0" "$INTEROP_DIR/guest/init"; echo "${GUEST_PKGS[*]} ${GUEST_MODS[*]} $KERNEL_SUITE"; } |
	sha256sum | cut -c1-12)
IMAGE=$CACHE/image-$key
if [ -f "$IMAGE/initrd.img" ]; then
	echo "$IMAGE"
	exit 0
fi

for tool in mmdebstrap cpio zstd depmod apt-get dpkg-deb; do
	command -v "$tool" >/dev/null ||
		{ log "build-guest: $tool missing: run devtools/install-interop-deps.sh"; exit 1; }
done

T0=$(now)
DEBS=$CACHE/debs
WORK=$CACHE/build-$key
rm -rf "$WORK"
mkdir -p "$DEBS" "$WORK/out"
trap 'rm -rf "$WORK"' EXIT

# 1. The kernel: the version linux-image-amd64 depends on, in the host's
# sources (bookworm) or in an apt state of our own that has only the
# backports suite (a fresh machine's sources do not list it).
APT_OPTS=(-o APT::Sandbox::User=root)
if [ "$KERNEL_SUITE" != "$SUITE" ]; then
	A=$CACHE/apt-$KERNEL_SUITE
	mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $KERNEL_SUITE main" \
		> "$A/sources.list"
	APT_OPTS+=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/nonexistent
		   -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache")
	apt-get "${APT_OPTS[@]}" -q update >&2 ||
		{ log "build-guest: apt-get update of $KERNEL_SUITE failed"; exit 1; }
fi
kpkg=$(apt-cache "${APT_OPTS[@]}" depends linux-image-amd64 |
	awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
[ -n "$kpkg" ] || { log "build-guest: cannot resolve linux-image-amd64 (apt-get update?)"; exit 1; }
kdeb=$(ls "$DEBS/${kpkg}"_*.deb 2>/dev/null | head -1 || true)
if [ -z "$kdeb" ]; then
	log "build-guest: downloading $kpkg"
	(cd "$DEBS" && apt-get "${APT_OPTS[@]}" download -q "$kpkg" >/dev/null)
	kdeb=$(ls "$DEBS/${kpkg}"_*.deb | head -1)
fi
dpkg-deb -x "$kdeb" "$WORK/kernel"
kver=$(ls "$WORK/kernel/lib/modules")
cp "$WORK/kernel/boot/vmlinuz-$kver" "$WORK/out/vmlinuz"
depmod -b "$WORK/kernel" "$kver"
log "build-guest: kernel $kver ($(elapsed "$T0") s)"

# 2. The root filesystem. The setup hook feeds apt the cached .debs, the
# customize hook saves the new ones.
R=$WORK/rootfs
mmdebstrap --mode=root --variant=essential --quiet \
	--include="$(IFS=,; echo "${GUEST_PKGS[*]}")" \
	--skip=essential/unlink --skip=cleanup/apt/cache \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/info/*' \
	--setup-hook='mkdir -p "$1/var/cache/apt/archives"; cp '"$DEBS"'/*.deb "$1/var/cache/apt/archives/" 2>/dev/null || true' \
	--customize-hook='cp -n "$1"/var/cache/apt/archives/*.deb '"$DEBS"'/ 2>/dev/null || true; rm -f "$1"/var/cache/apt/archives/*.deb' \
	"$SUITE" "$R" \
	"deb $MIRROR $SUITE main" "deb $MIRROR $SUITE-updates main" \
	"deb $SECMIRROR $SUITE-security main" >&2
for f in usr/bin/ibv_rc_pingpong usr/bin/mount usr/sbin/ip usr/bin/tcpdump; do
	[ -x "$R/$f" ] || { log "build-guest: rootfs has no /$f"; exit 1; }
done
log "build-guest: rootfs ($(elapsed "$T0") s)"

# 3. Only the modules needed, with their dependency closure.
km=$WORK/kernel/lib/modules/$kver
mkdir -p "$R/lib/modules/$kver"
cp "$km"/modules.{order,builtin,builtin.modinfo} "$R/lib/modules/$kver/"
for m in "${GUEST_MODS[@]}"; do
	modprobe -d "$WORK/kernel" -S "$kver" --show-depends "$m" 2>/dev/null |
		awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r f; do
	rel=${f#"$WORK/kernel/"}
	mkdir -p "$R/$(dirname "$rel")"
	cp "$f" "$R/$rel"
done
depmod -b "$R" "$kver"

# 4. Our /init; passwordless root on the serial console (an isolated test guest).
install -m 0755 "$INTEROP_DIR/guest/init" "$R/init"
sed -i 's/^root:[^:]*:/root::/' "$R/etc/shadow"
printf '127.0.0.1 localhost\n%s host\n%s guest\n' "$BR_IP" "$GUEST_IP" > "$R/etc/hosts"
ver() { dpkg-query --admindir="$R/var/lib/dpkg" -W -f='${Version}' "$1"; }
printf 'kernel %s\nrdma-core %s\nperftest %s\niproute2 %s\npython3 %s\nfio %s\n' "$kver" \
	"$(ver rdma-core)" "$(ver perftest)" "$(ver iproute2)" "$(ver python3)" "$(ver fio)" \
	> "$WORK/out/versions"
rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/*.bin "$R"/var/log/*.log

# 5. The initramfs.
(cd "$R" && find . -xdev -print0 | cpio --null -o -H newc --quiet) |
	zstd -q -T0 -6 -f -o "$WORK/out/initrd.img"
rm -rf "$IMAGE"
mv "$WORK/out" "$IMAGE"
# Images of other inputs belong to older commits, or to other branches run on
# the same machine: keep the four newest (about 50 MiB each; a run may use two,
# one per kernel), so that branches with different guest packages do not
# rebuild each other's image every run.
ls -1dt "$CACHE"/image-* | tail -n +5 | xargs -r rm -rf
log "build-guest: $IMAGE: $(tr '\n' ' ' < "$IMAGE/versions")in $(elapsed "$T0") s"
echo "$IMAGE"
