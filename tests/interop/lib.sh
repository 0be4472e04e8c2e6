# SPDX-License-Identifier: BSD-3-Clause
# Shared settings and helpers of the interop harness; sourced by the scripts
# in tests/interop. Everything this harness creates on the host has a name
# from here, so that teardown removes exactly that and nothing else.

INTEROP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Downloads (.deb files) and built guest images; kept between runs.
CACHE=${ROCE_INTEROP_CACHE:-/var/tmp/librte_roce-interop}
# Run state of one harness run (sockets, pidfiles, logs); removed at the end.
RUN=${ROCE_INTEROP_RUN:-$CACHE/run}

MIRROR=${ROCE_INTEROP_MIRROR:-http://deb.debian.org/debian}
SECMIRROR=${ROCE_INTEROP_SECMIRROR:-http://deb.debian.org/debian-security}
SUITE=bookworm

# The network: an isolated bridge in the RFC 2544 benchmark range, never
# connected to a physical NIC, nothing routed.
BR=roibr0                  # host bridge, 198.18.0.1/24 (TCP out-of-band only)
TAP=roitap0                # bridge port of the guest; captures are taken here
VETH=roiv0                 # host end of the veth: librte_roce's net_af_packet iface
VETH_BR=roiv0p             # its bridge end
BR_IP=198.18.0.1
PREFIX_LEN=24
GUEST_IP=198.18.0.11
GUEST_MAC=52:54:00:18:00:11
GUEST_LL=fe80::5054:ff:fe18:11 # EUI-64 of GUEST_MAC: rxe's GID index 0
# The second guest: booted only to record kernel-to-kernel captures (run.sh
# --record-vectors); its frames to the first guest cross TAP, where they are captured.
TAP2=roitap1
GUEST2_IP=198.18.0.12
GUEST2_MAC=52:54:00:18:00:12
ROCE_IP=198.18.0.2         # owned by the librte_roce program, no kernel address
ROCE_MAC=52:54:00:18:00:02 # the veth's, fixed so that captures compare across runs
GID_V6=0                   # rxe GID index of the IPv6 link-local GID
GID_V4=1                   # rxe GID index of ::ffff:GUEST_IP (doc/wire-format.md §10)
OOB_PORT=18515             # TCP out-of-band port of ibv_*_pingpong

log() { printf '# %s\n' "$*" >&2; }

# Seconds since the epoch, with fractions; elapsed T0 prints seconds since T0.
now() { date +%s.%N; }
elapsed() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }

# Run a command inside the guest over its command channel (see gx.py);
# GX_CTL names the second guest's channel instead (on_guest2).
gx() { python3 "$INTEROP_DIR/gx.py" "${GX_CTL:-$RUN/guest.ctl}" "$@"; }
on_guest2() { GX_CTL=$RUN/guest2.ctl "$@"; }
