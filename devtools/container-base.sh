#!/usr/bin/env bash
# Make the Debian 12 base image the Dockerfile starts from, from Debian's
# archive alone: no container registry is needed (doc/deploy.md, "Images").
#   devtools/container-base.sh [IMAGE]     (default localhost/deb12:base)
# Needs root (mmdebstrap's chroot, rootful podman), mmdebstrap and podman or
# docker. Does nothing when the image exists; CONTAINER_BASE_REBUILD=1 makes
# it again. CONTAINER_ENGINE picks the engine (default: podman, else docker).
set -euo pipefail

image=${1:-localhost/deb12:base}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

engine=${CONTAINER_ENGINE:-}
if [ -z "$engine" ]; then
	engine=$(command -v podman || command -v docker || true)
fi
for tool in mmdebstrap "$engine"; do
	if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
		echo "container-base: needs mmdebstrap and podman (or docker):" \
		     "apt-get install mmdebstrap podman" >&2
		exit 1
	fi
done

if [ "${CONTAINER_BASE_REBUILD:-0}" != 1 ] && "$engine" image inspect "$image" >/dev/null 2>&1; then
	echo "container-base: $image exists"
	exit 0
fi

root=$(mktemp -d /tmp/container-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
# minbase: essential packages and apt, nothing else (about 100 MB). The
# security and updates suites too, so the image gets Debian 12's fixes.
mmdebstrap --variant=minbase --quiet \
	bookworm "$root" \
	"deb $mirror bookworm main" \
	"deb $mirror bookworm-updates main" \
	"deb ${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main"
# apt's lists are fetched again by every image that installs packages
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin
tar -C "$root" -c . | "$engine" import - "$image"
echo "container-base: $image made"
