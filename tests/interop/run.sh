#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The interop suite: librte_roce on the host against the Linux kernel's
# Soft-RoCE (rdma_rxe) in a qemu guest running unmodified rdma-core tools.
#
#   run.sh [SCENARIO...]      all scenarios by default; prints TAP
#   run.sh --list             the scenario names
#   run.sh --record-vectors DIR [kx_NAME...]   kernel-to-kernel captures for
#                             tests/vectors, between two guests (vectors.sh)
#
# Steps: create the bridge, tap and veth, build (or reuse) the guest image
# and boot one guest (a second kernel's guest after it for the scenarios that
# need bookworm-backports' 6.12, BACKPORTS_SCENARIOS), then per scenario: capture on the guest's bridge port, run
# the guest tool and the host program, decode the capture with roce_dump
# (zero malformed frames, zero ICRC failures). Everything created is removed
# at the end, also on failure or interruption.
#
# Environment:
#   ROCE_INTEROP_BUILD    meson build directory (default: ../../build)
#   ROCE_INTEROP_CACHE    downloads and guest images (default /var/tmp/librte_roce-interop)
#   ROCE_INTEROP_OUT      captures and logs (default BUILD/interop)
#   ROCE_INTEROP_REQUIRE  1: missing prerequisites fail instead of skipping (CI)
#   ROCE_INTEROP_{RC,UC,UD,SRQ}_PINGPONG  the host counterparts of ibv_*_pingpong
#                         (default BUILD/examples/X_pingpong/X_pingpong; meson sets them,
#                         empty while not built); their scenarios skip without them
#   ROCE_INTEROP_RPING, ROCE_INTEROP_UCMATOSE  likewise for rping and ucmatose
#                         (default BUILD/examples/rping/rping, .../ucmatose/ucmatose)
#   ROCE_INTEROP_STATIC_NEIGH  1: RC scenarios give the guest permanent neighbour entries
#                         for our addresses (diagnosis: takes ARP/ND out of the picture)
#   ROCE_INTEROP_KEEP     1: leave the guest and the network up at the end (debugging;
#                         remove them with `run.sh --down`)
#   ROCE_INTEROP_SUBSET   ci: only CI_SCENARIOS when none are named (.ci/run); default full
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$INTEROP_DIR/vectors.sh"

BUILD=${ROCE_INTEROP_BUILD:-$INTEROP_DIR/../../build}
OUT=${ROCE_INTEROP_OUT:-$BUILD/interop}
PEER=$BUILD/tests/interop/interop_peer
ROCE_DUMP=$BUILD/app/roce_dump/roce_dump
BOOT_TIMEOUT_S=120
GUEST_MEM_MB=1024
CAPTURE_COUNT=20000         # frames per capture, a bound on a runaway scenario
CAPTURE_FILTER="udp port 4791 or arp or icmp or icmp6 or tcp port $OOB_PORT"
# af_packet's RX ring must hold a whole message of the guest's: a 1 MiB SEND is
# 1024 frames at IB MTU 1024, and UC has no retransmission to cover an overrun
# of the default 512-frame ring.
EAL_ARGS=(--no-huge -m 256 --no-shconf --no-pci --no-telemetry --log-level=lib.eal:error
	  --vdev "net_af_packet0,iface=$VETH,framecnt=2048")
# At MTU 4200, af_packet's ring frames must hold the frame: 8 KiB instead of 2 KiB.
EAL_ARGS_JUMBO=(--no-huge -m 256 --no-shconf --no-pci --no-telemetry --log-level=lib.eal:error
	  --vdev "net_af_packet0,iface=$VETH,blocksz=8192,framesz=8192,framecnt=1024")
HOST_TIMEOUT_S=150          # a host example that waits for a message that never comes
DEFAULT_MTU=1500
JUMBO_MTU=4200              # IB MTU 4096 plus the RoCEv2 headers over IPv6
IB_MTU_MAX=4096
IB_MTU_DEFAULT=1024         # rxe's active_mtu at Ethernet MTU 1500
# The examples at MTU 4200: net_af_packet reports max_rx_pktlen 1518, so the
# port takes the MTU unchecked; its mbufs must hold a ring frame (af_packet
# refuses an RX queue whose mbuf data room is below framesz - 32).
PP_JUMBO_ARGS=(--eth-mtu "$JUMBO_MTU" --mtu-unchecked --mbuf-size 8320)
UD_ITERS=10
# How long the guest's rping may take to send its CM REQ (it never gets a
# REP: interop_peer has no CM). The host peer outlives the command: the
# guest's command channel took 10-22 s a command under load, so a peer
# timed from before it (6 s once) was gone when the REQ came (CI subset run
# 2026-11-28, 0 frames counted, 2 REQs on the wire).
CM_WAIT_S=10
UD_SIZE=512
# RC matrix: message sizes (bytes) and their iteration counts: 1 B to 1 MiB.
# Sizes (bytes) and iteration counts per ibv_*_pingpong tool: 1 B to 1 MiB;
# UD messages must fit the IB MTU (1024).
declare -A PP_SIZES=([rc]="1 4096 65536 1048576" [uc]="1 4096 65536 1048576"
		     [srq]="1 4096 65536" [ud]="1 1024")
declare -A PP_ITERS=([rc]="20 10 5 3" [uc]="20 10 5 3" [srq]="20 10 5" [ud]="20 10")
# Data validation (-c) where the host example has it: examples/srq_pingpong
# does not take -c yet, and a guest that checks (-c) fails against a sender
# that does not write the tools' pattern, so srq runs without it on both sides.
declare -A PP_CHK=([rc]=-c [uc]=-c [ud]=-c [srq]=)
# Under impairment: multi-packet messages, enough of them to lose some packets.
RC_LOSSY_SIZES=(4096 65536)
RC_LOSSY_ITERS=(50 10)
# Impairments of the frames the guest sends (netem on its eth0 egress: the
# guest kernel has sch_netem, the CI hosts' kernels may not).
#
# What loss p = 3% can fail, and why one frame is kept from it
# (pp_last_ack_exempt). rxe takes the tools' retry_cnt 7 as "for ever"
# (doc/wire-format.md §7): the guest's requester never gives up. Ours does,
# after 8 local ACK timeouts in a row (the first try and 7 retries, IBTA
# Vol. 1 §9.7) with no PSN acknowledged in between: every ACK the guest
# sends for one message in 8 rounds lost, at most p^8 = 6.6e-13 a message,
# 60 messages a run (50 + 10): below 4e-11 a run. Except for the guest's
# ACK of our last SEND of a size: ibv_rc_pingpong destroys its QP right
# after its last completion (rc_pingpong.c: pp_close_ctx() after the
# report; no linger), so our retries find no QP. Lost, nothing can recover
# it and our WR must end in RETRY_EXC_ERR: p per size, 1 - 0.97^2 = 5.9 % a
# run. That failed rc_pingpong_loss in CI (doc/interop.md, "Flakes").
NETEM_LOSS="loss 3%"
NETEM_REORDER="delay 2ms reorder 25% 50%"
NETEM_DUP="duplicate 5%"

# ---- host state: created here, removed by teardown ----------------------------

QEMU_PID='' QEMU2_PID='' PEER_PID='' CAPTURE_PID=''

# Stop guest $1 (its qemu PID) if it is still the one whose command channel is $2.
guest_stop() {
	[ -n "$1" ] && grep -q "$2" "/proc/$1/cmdline" 2>/dev/null || return 0
	kill "$1"
	for _ in $(seq 50); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null
}

teardown() {
	[ -n "$CAPTURE_PID" ] && kill "$CAPTURE_PID" 2>/dev/null
	peer_stop
	guest_stop "$QEMU_PID" "$RUN/guest.ctl"
	guest_stop "$QEMU2_PID" "$RUN/guest2.ctl"
	QEMU_PID='' QEMU2_PID='' PEER_PID='' CAPTURE_PID=''
	net_down
	rm -rf "$RUN"
}

net_down() {
	local l

	for l in "$TAP" "$TAP2" "$VETH" "$BR"; do
		ip link show "$l" >/dev/null 2>&1 && ip link del "$l"
	done
	return 0
}

# $1 = 2: a second tap for the second guest (vectors only).
net_up() {
	local l taps=("$TAP")

	[ "${1:-}" = 2 ] && taps+=("$TAP2")
	net_down
	ip link add "$BR" type bridge stp_state 0 forward_delay 0 || return 1
	for l in "${taps[@]}"; do
		ip tuntap add dev "$l" mode tap || return 1
	done
	ip link add "$VETH" address "$ROCE_MAC" type veth peer name "$VETH_BR" || return 1
	# No kernel IPv6 on our links (no router or MLD chatter in the captures,
	# no kernel ND answers on the veth); no forwarding of frames that reach
	# the veth: 198.18.0.2 belongs to the librte_roce program alone.
	for l in "$BR" "${taps[@]}" "$VETH" "$VETH_BR"; do
		sysctl -qw "net.ipv6.conf.$l.disable_ipv6=1"
	done
	sysctl -qw "net.ipv4.conf.$VETH.forwarding=0"
	# Linux answers ARP for any of its addresses on any link (arp_ignore 0):
	# the veth would claim the bridge's 198.18.0.1 with ROCE_MAC, and the
	# guest's out-of-band TCP would go to the librte_roce port.
	sysctl -qw "net.ipv4.conf.$VETH.arp_ignore=8"
	ip addr add "$BR_IP/$PREFIX_LEN" dev "$BR"
	for l in "${taps[@]}"; do
		ip link set "$l" master "$BR" up
	done
	ip link set "$VETH_BR" master "$BR" up
	ip link set "$VETH" up
	ip link set "$BR" up
}

# Boot guest $2 (empty: the first; 2: the second, only to record vectors) from
# image $1: its tap, addresses and files (RUN/guest$2.ctl, qemu$2.pid, console$2.log).
guest_boot() {
	local image=$1 n=${2:-} t0 i pid tap=$TAP ip=$GUEST_IP mac=$GUEST_MAC

	[ -n "$n" ] && { tap=$TAP2 ip=$GUEST2_IP mac=$GUEST2_MAC; }
	mkdir -p "$RUN"
	t0=$(now)
	# TCG: KVM cannot run these guests on the CI machines (doc/interop.md).
	# Not with the run's lock (fd 9): a guest left up (ROCE_INTEROP_KEEP)
	# would hold it, and the next run, which removes that guest, would wait.
	qemu-system-x86_64 -name "roce-interop$n" -machine q35 \
		-accel tcg,thread=multi,tb-size=256 -cpu max -smp 1 -m "$GUEST_MEM_MB" \
		-kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
		-append "console=ttyS0,115200 rdinit=/init panic=-1 quiet loglevel=4 net.ifnames=0 roi.ip=$ip/$PREFIX_LEN" \
		-no-reboot -nodefaults -vga none -display none \
		-netdev tap,id=n0,ifname="$tap",script=no,downscript=no \
		-device virtio-net-pci,netdev=n0,mac="$mac" \
		-object rng-random,id=rng0,filename=/dev/urandom -device virtio-rng-pci,rng=rng0 \
		-chardev "socket,id=con,path=$RUN/guest$n.console,server=on,wait=off,logfile=$RUN/console$n.log" \
		-serial chardev:con \
		-chardev "socket,id=ctl,path=$RUN/guest$n.ctl,server=on,wait=off" -serial chardev:ctl \
		-daemonize -pidfile "$RUN/qemu$n.pid" 9>&- || return 1
	pid=$(cat "$RUN/qemu$n.pid")
	if [ -n "$n" ]; then QEMU2_PID=$pid; else QEMU_PID=$pid; fi
	for i in $(seq $((BOOT_TIMEOUT_S * 10))); do
		grep -q ROCE-GUEST-READY "$RUN/console$n.log" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	cp "$RUN/console$n.log" "$OUT/console$n.log" 2>/dev/null
	grep -q ROCE-GUEST-READY "$RUN/console$n.log" 2>/dev/null || return 1
	# The command channel answers once the guest's shell reads ttyS1.
	for i in 1 2 3; do
		GX_CTL=$RUN/guest$n.ctl gx -t 10 true && break
	done || return 1
	log "guest$n ready after $(elapsed "$t0") s"
}

# ---- per-scenario helpers --------------------------------------------------------

capture_start() {
	# Not --immediate-mode: a wake-up per frame costs the CPU the TCG guest
	# needs, and the kernel dropped up to half of the frames of a 1 MiB
	# pingpong from the capture. capture_stop waits for the block instead.
	tcpdump -i "$TAP" -U -s 0 -c "$CAPTURE_COUNT" -w "$OUT/$1.pcap" "$CAPTURE_FILTER" \
		>"$OUT/$1.tcpdump.log" 2>&1 &
	CAPTURE_PID=$!
	# tcpdump says "listening on" once the filter is attached.
	for _ in $(seq 50); do
		grep -q 'listening on' "$OUT/$1.tcpdump.log" && return 0
		sleep 0.1
	done
	return 1
}

# libpcap's TPACKET_V3 ring hands frames over a block at a time: a block
# not yet full goes to tcpdump when the kernel retires it, after tcpdump's
# 1 s timeout. Killed before that, tcpdump never reads it (a scenario over
# in 10 ms once lost all its RoCE frames that way).
CAPTURE_BLOCK_WAIT_S=1.3

capture_stop() {
	sleep "$CAPTURE_BLOCK_WAIT_S"
	kill "$CAPTURE_PID" 2>/dev/null
	wait "$CAPTURE_PID" 2>/dev/null
	CAPTURE_PID=
}

# roce_dump on the capture: well-formed and ICRC-clean, with at least $2 RoCEv2
# frames. Only a scenario that corrupts frames on purpose (our --fault
# tx-corrupt) sets CORRUPTED: that many frames may be bad (changed after
# their ICRC was computed, so bad ICRC, or malformed if the byte was a header's).
# Only a scenario whose FLUSHes carry Linux rxe's ICRC (the device key
# quirk_rxe_flush_icrc) sets ICRC_RXE_FLUSH_MIN: at least that many FLUSHes
# must have it (roce_dump's icrc_rxe_flush); elsewhere none may.
CORRUPTED=0
ICRC_RXE_FLUSH_MIN=0
capture_check() {
	local name=$1 min=$2 json rc=0

	json=$("$ROCE_DUMP" --json "$OUT/$name.pcap") || rc=$?
	if [ $rc != 0 ] && { [ $rc != 1 ] || { [ "$CORRUPTED" = 0 ] && [ "$ICRC_RXE_FLUSH_MIN" = 0 ]; }; }
	then
		echo "roce_dump: malformed or ICRC-bad frames: $json"
		return 1
	fi
	echo "$json" > "$OUT/$name.json"
	python3 - "$json" "$min" "$CORRUPTED" "$ICRC_RXE_FLUSH_MIN" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
corrupted, rxe_min = int(sys.argv[3]), int(sys.argv[4])
print("capture: %d frames, %d RoCEv2 (%d ICRC ok, %d bad, %d malformed; %d corrupted on purpose;"
      " %d FLUSH with rxe's ICRC), opcodes %s"
      % (d["frames"], d["roce"], d["icrc_ok"], d["icrc_bad"], d["malformed"], corrupted,
         d["icrc_rxe_flush"], d["opcodes"]))
rxe_ok = d["icrc_rxe_flush"] >= rxe_min if rxe_min else d["icrc_rxe_flush"] == 0
sys.exit(0 if d["malformed"] + d["icrc_bad"] <= corrupted and d["icrc_ok"] >= int(sys.argv[2])
         and rxe_ok else 1)
EOF
}

# Start interop_peer in the background, output in $OUT/$1.host.log.
peer_start() {
	local name=$1

	shift
	local eal=("${EAL_ARGS[@]}") mtu

	mtu=$(cat "/sys/class/net/$VETH/mtu")
	[ "$mtu" = "$DEFAULT_MTU" ] || eal=("${EAL_ARGS_JUMBO[@]}")
	"$PEER" "${eal[@]}" -- --ip "$ROCE_IP/$PREFIX_LEN" --mtu "$mtu" "$@" >"$OUT/$name.host.log" 2>&1 &
	PEER_PID=$!
}

peer_wait() {
	local rc

	wait "$PEER_PID"
	rc=$?
	PEER_PID=
	return $rc
}

# $1 and every process under it, the deepest first.
proc_tree() {
	local child

	for child in $(ps -o pid= --ppid "$1"); do
		proc_tree "$child"
	done
	echo "$1"
}

# Stop the host program: SIGTERM to PEER_PID and every process under it, each
# waited for (SIGKILL after 5 s). A shell function run in the background
# (rping_host) is a subshell, and SIGTERM to it alone kills the subshell and
# leaves its program running on the veth with our address and MAC, where its
# CM answers the next scenario's MADs too (doc/interop.md, udaddy_rejected_by_host).
peer_stop() {
	local pid pids

	[ -n "$PEER_PID" ] || return 0
	mapfile -t pids < <(proc_tree "$PEER_PID")
	kill "${pids[@]}" 2>/dev/null
	for pid in "${pids[@]}"; do
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null
	done
	peer_wait
}

peer_stat() { awk -v k="$2" '$1 == "stat" && $2 == k { print $3 }' "$OUT/$1.host.log"; }

# Wait until a line matching $2 is in $OUT/$1.host.log (the host program is
# ready), at most $3 seconds (default 10).
host_log_wait() {
	for _ in $(seq $((${3:-10} * 10))); do
		grep -q "$2" "$OUT/$1.host.log" 2>/dev/null && return 0
		kill -0 "$PEER_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# The link-local address of our port: EUI-64 of its MAC (RFC 4291 2.5.1).
roce_ll() {
	local m

	IFS=: read -ra m <<< "$ROCE_MAC"
	printf 'fe80::%x:%x:%x:%x' $(((0x${m[0]} ^ 2) << 8 | 0x${m[1]})) $((0x${m[2]} << 8 | 0xff)) \
		$((0xfe << 8 | 0x${m[3]})) $((0x${m[4]} << 8 | 0x${m[5]}))
}

# A guest command in the background, in its own session: output, exit status
# and session id in /tmp/NAME.{log,rc,pid}.
guest_bg() {
	gx "rm -f /tmp/$1.rc; setsid bash -c '$2 >/tmp/$1.log 2>&1; echo \$? >/tmp/$1.rc' \
		</dev/null >/dev/null 2>&1 & echo \$! >/tmp/$1.pid"
}

# Wait for a background guest command; its output goes to $OUT/$1.guest.log.
guest_bg_wait() {
	local name=$1 timeout=$2

	gx -t $((timeout + 10)) "for i in \$(seq $((timeout * 10))); do [ -s /tmp/$name.rc ] && break; sleep 0.1; done
		[ -s /tmp/$name.pid ] || { echo 'guest: never started'; exit 1; }
		cat /tmp/$name.log
		[ -s /tmp/$name.rc ] || { kill -- -\$(cat /tmp/$name.pid); echo 'guest: timeout'; exit 124; }
		exit \$(cat /tmp/$name.rc)" > "$OUT/$name.guest.log" 2>&1
}

# How long to wait for the guest side: $2 s, or a few if the host side ($1) failed
# and left the guest tool waiting for a peer that is gone.
guest_wait_s() { if [ "$1" = 0 ]; then echo "$2"; else echo 5; fi; }

guest_listening() {
	gx "for i in \$(seq 100); do ss -ltn | grep -q ':$1 ' && exit 0; sleep 0.1; done; exit 1" >/dev/null
}

# ---- scenarios: each prints diagnostics, returns 0 pass, 1 fail, 77 skip -------

SKIP_REASON=

scen_guest_rxe() {
	gx 'rdma link show; ibv_devinfo -d rxe0 | grep -E "state|active_mtu|fw_ver"
		for i in 0 1; do echo "gid $i $(cat /sys/class/infiniband/rxe0/ports/1/gids/$i) $(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i)"; done' \
		> "$OUT/guest_rxe.guest.log" 2>&1 || return 1
	cat "$OUT/guest_rxe.guest.log"
	grep -q 'PORT_ACTIVE' "$OUT/guest_rxe.guest.log" &&
		grep -q "gid 1 0000:0000:0000:0000:0000:ffff:c612:000b RoCE v2" "$OUT/guest_rxe.guest.log" &&
		grep -q "gid 0 fe80:0000:0000:0000:5054:00ff:fe18:0011 RoCE v2" "$OUT/guest_rxe.guest.log"
}

# Our port resolves the guest by ARP and ND; the guest resolves and pings us over IPv4 and IPv6.
scen_arp_nd_ping() {
	local ll ok=0

	ll=$(roce_ll)
	peer_start arp_nd_ping --time 60 --resolve "$GUEST_IP" --resolve "$GUEST_LL"
	host_log_wait arp_nd_ping 'resolve: ND' || { cat "$OUT/arp_nd_ping.host.log"; return 1; }
	gx "ip neigh flush dev eth0; ping -c 3 -i 0.2 -W 2 $ROCE_IP && ping -6 -c 3 -i 0.2 -W 2 $ll%eth0 && ip neigh show dev eth0" \
		> "$OUT/arp_nd_ping.guest.log" 2>&1 || ok=1
	kill -TERM "$PEER_PID"
	peer_wait || ok=1
	cat "$OUT/arp_nd_ping.host.log" "$OUT/arp_nd_ping.guest.log"
	[ "$(peer_stat arp_nd_ping arp_replies_out)" -ge 1 ] &&
		[ "$(peer_stat arp_nd_ping nd_adverts_out)" -ge 1 ] &&
		[ "$(peer_stat arp_nd_ping icmp_echo_out)" -ge 6 ] || ok=1
	return $ok
}

# Ethernet MTU of every link, host and guest; rxe follows it live (4200 gives active_mtu 4096).
set_mtu() {
	local l

	for l in "$BR" "$TAP" "$VETH_BR" "$VETH"; do
		ip link set "$l" mtu "$1" || return 1
	done
	gx "ip link set eth0 mtu $1 && sleep 0.5 && ibv_devinfo -d rxe0 | grep active_mtu"
}

# rdma_cm from the guest: rping's connection request (a CM REQ MAD in a UD SEND to
# QP1) must reach our port parsed and ICRC-clean. Nothing answers it yet, so
# rping gives up: its exit status does not count.
scen_rdma_cm_req() {
	local ok=0

	peer_start rdma_cm_req --time "$HOST_TIMEOUT_S" --expect-roce 1
	host_log_wait rdma_cm_req '^port:' || { cat "$OUT/rdma_cm_req.host.log"; return 1; }
	gx -t $((CM_WAIT_S + 10)) "timeout $CM_WAIT_S rping -c -a $ROCE_IP -C 1 -v; echo rping exit \$?" \
		> "$OUT/rdma_cm_req.guest.log" 2>&1
	kill -TERM "$PEER_PID"
	peer_wait || ok=1
	cat "$OUT/rdma_cm_req.host.log" "$OUT/rdma_cm_req.guest.log"
	return $ok
}

# ibv_ud_pingpong against interop_peer's UD peer (frames from the packet layer
# alone): $2 = the guest's role (server|client), $3 = its GID index, $4 =
# message size (default UD_SIZE), $5 = iterations (default UD_ITERS); more
# interop_peer arguments in UD_PEER_ARGS.
UD_PEER_ARGS=()
ud_raw() {
	local name=$1 role=$2 gidx=$3 size=${4:-$UD_SIZE} iters=${5:-$UD_ITERS} host_ok=0 ok=0 v6=()

	[ "$gidx" = "$GID_V6" ] && v6=(--ipv6)
	if [ "$role" = server ]; then
		guest_bg "$name" "ibv_ud_pingpong -d rxe0 -g $gidx -n $iters -s $size"
		guest_listening "$OOB_PORT" || return 1
		peer_start "$name" --time 60 "${v6[@]}" "${UD_PEER_ARGS[@]}" \
			--ud-client "$GUEST_IP:$OOB_PORT" -n "$iters" -s "$size"
	else
		peer_start "$name" --time 60 "${v6[@]}" "${UD_PEER_ARGS[@]}" \
			--ud-server "$OOB_PORT" -n "$iters" -s "$size"
		host_log_wait "$name" 'oob: listening' || { cat "$OUT/$name.host.log"; return 1; }
		guest_bg "$name" "ibv_ud_pingpong -d rxe0 -g $gidx -n $iters -s $size $BR_IP"
	fi
	peer_wait || host_ok=1
	guest_bg_wait "$name" "$(guest_wait_s $host_ok 30)" || ok=1
	cat "$OUT/$name.host.log" "$OUT/$name.guest.log"
	grep -q "$iters iters in" "$OUT/$name.guest.log" || ok=1
	[ $host_ok = 0 ] && [ $ok = 0 ]
}

scen_ud_raw_v4_guest_server() { ud_raw ud_raw_v4_guest_server server "$GID_V4"; }
scen_ud_raw_v4_guest_client() { ud_raw ud_raw_v4_guest_client client "$GID_V4"; }
scen_ud_raw_v6_guest_server() { ud_raw ud_raw_v6_guest_server server "$GID_V6"; }
scen_ud_raw_v6_guest_client() { ud_raw ud_raw_v6_guest_client client "$GID_V6"; }

# Our entry for the guest outlives its lifetime while we send to it: at its
# end it is probed by unicast (an ARP request to the guest's MAC, RFC 1122
# 2.3.2.1; an NS to its address, RFC 4861 7.3.3), the guest's kernel answers
# and the entry stays, never removed, never resolved again by broadcast or
# multicast. A UD ping-pong of a few seconds with a NEIGH_TIMEOUT_MS lifetime.
# A probe's answer may take the guest neigh_retries (3) x NEIGH_RETRY_MS:
# at 100 ms, two answers of 0.32 s under load (TCG, load average 40) failed
# a probe (CI subset run 2026-11-28). 1 s is RFC 4861's RETRANS_TIMER and
# Linux's retrans_time: 3 s to answer, the lifetime still 300 ms.
NEIGH_TIMEOUT_MS=300
NEIGH_RETRY_MS=1000
NEIGH_ITERS=3000
NEIGH_PROBES_MIN=2
neigh_probe() {
	local name=$1 gidx=$2 ok=0 uni multi k v filter

	UD_PEER_ARGS=(--neigh-timeout "$NEIGH_TIMEOUT_MS" --neigh-retry "$NEIGH_RETRY_MS")
	ud_raw "$name" server "$gidx" "$UD_SIZE" "$NEIGH_ITERS" || ok=1
	UD_PEER_ARGS=()
	v=$(peer_stat "$name" neigh_probes)
	echo "check: neigh_probes ${v:-none} (at least $NEIGH_PROBES_MIN)"
	[ "${v:-0}" -ge "$NEIGH_PROBES_MIN" ] || ok=1
	v=$(peer_stat "$name" neigh_refreshed)
	echo "check: neigh_refreshed ${v:-none} (at least $NEIGH_PROBES_MIN)"
	[ "${v:-0}" -ge "$NEIGH_PROBES_MIN" ] || ok=1
	for k in neigh_probe_failed neigh_expired neigh_queue_drops neigh_failed; do
		v=$(peer_stat "$name" $k)
		echo "check: $k ${v:-none} (0)"
		[ "${v:-x}" = 0 ] || ok=1
	done
	# On the wire: our requests / solicitations, unicast to the guest's MAC
	# (the probes) and broadcast or multicast (resolutions from scratch: the
	# first one only).
	if [ "$gidx" = "$GID_V6" ]; then
		filter="icmp6 and ip6[40] = 135"	# Neighbour Solicitation
	else
		filter="arp and arp[6:2] = 1"		# ARP request
	fi
	uni=$(tcpdump -nn -r "$OUT/$name.pcap" "$filter and ether src $ROCE_MAC and ether dst $GUEST_MAC" \
		2>/dev/null | wc -l)
	multi=$(tcpdump -nn -r "$OUT/$name.pcap" "$filter and ether src $ROCE_MAC and ether multicast" \
		2>/dev/null | wc -l)
	echo "check: $uni unicast probes on the wire (at least $NEIGH_PROBES_MIN), $multi broadcast/multicast (at most 1)"
	[ "$uni" -ge "$NEIGH_PROBES_MIN" ] && [ "$multi" -le 1 ] || ok=1
	return $ok
}
scen_neigh_probe_v4() { neigh_probe neigh_probe_v4 "$GID_V4"; }
scen_neigh_probe_v6() { neigh_probe neigh_probe_v6 "$GID_V6"; }

# 4096-byte UD messages at IB MTU 4096 (Ethernet MTU 4200 everywhere), IPv4 and IPv6 GIDs.
# Skipped while the PMD refuses the MTU: DPDK 22.11's net_af_packet (and net_tap)
# report max_rx_pktlen 1518 (1522), so rte_eth_dev_set_mtu(4200) fails.
scen_ud_raw_mtu4096() {
	local ok=0

	set_mtu "$JUMBO_MTU" || ok=1
	[ $ok = 0 ] && { ud_raw ud_raw_mtu4096 client "$GID_V4" "$IB_MTU_MAX" || ok=1; }
	if grep -q 'device max frame size' "$OUT/ud_raw_mtu4096.host.log"; then
		SKIP_REASON="the PMD refuses MTU $JUMBO_MTU: $(grep -o 'Frame size.*' "$OUT/ud_raw_mtu4096.host.log")"
		ok=77
	fi
	[ $ok = 0 ] && { ud_raw ud_raw_mtu4096 server "$GID_V6" "$IB_MTU_MAX" || ok=1; }
	set_mtu "$DEFAULT_MTU" || ok=1
	return $ok
}

# The host counterpart of ibv_$1_pingpong: examples/$1_pingpong, or what
# ROCE_INTEROP_<TOOL>_PINGPONG names (meson sets it, empty while not built).
pp_bin() {
	local var="ROCE_INTEROP_${1^^}_PINGPONG"

	if [ -n "${!var+set}" ]; then
		echo "${!var}"
	else
		echo "$BUILD/examples/$1_pingpong/$1_pingpong"
	fi
}

# ibv_$2_pingpong (guest) against examples/$2_pingpong (host), -c, every size of
# PP_SIZES[$2] (or of the lossy set, with netem spec $5 on the guest's egress,
# each size's last ACK excepted: pp_last_ack_exempt; $5 = lossy: the lossy
# set without netem),
# at IB MTU PP_MTU (-m; 4096 puts every link at Ethernet MTU 4200).
PP_MTU=$IB_MTU_DEFAULT
PP_NETEM=                   # 1 while netem impairs the guest's egress
pp_scenario() {
	local name=$1 tool=$2 role=$3 gidx=$4 netem=${5:-} bin i ok=0 sizes iters

	bin=$(pp_bin "$tool")
	if [ -z "$bin" ] || [ ! -x "$bin" ]; then
		SKIP_REASON="examples/${tool}_pingpong is not built yet"
		return 77
	fi
	read -ra sizes <<< "${PP_SIZES[$tool]}"
	read -ra iters <<< "${PP_ITERS[$tool]}"
	if [ -n "$netem" ]; then
		sizes=("${RC_LOSSY_SIZES[@]}") iters=("${RC_LOSSY_ITERS[@]}")
	fi
	[ "$netem" = lossy ] && netem=
	if [ -n "$netem" ]; then
		# pp_last_ack_exempt reads our first PSN before the guest starts,
		# and matches IPv4 headers.
		if [ "$role" != client ] || [ "$gidx" != "$GID_V4" ]; then
			echo "netem needs the guest as client with GID_V4 (pp_last_ack_exempt)"
			return 1
		fi
		# Two bands: 1:2 (every frame, the priomap's only band) through
		# netem, 1:1 (what a filter puts there) untouched.
		gx "tc qdisc replace dev eth0 root handle 1: prio bands 2 priomap $(printf '1 %.0s' {1..16})
			tc qdisc add dev eth0 parent 1:1 handle $PP_EXEMPT_QDISC pfifo &&
			tc qdisc add dev eth0 parent 1:2 handle 2: netem $netem && tc qdisc show dev eth0" ||
			return 1
		PP_NETEM=1
	fi
	for i in "${!sizes[@]}"; do
		pp_once "$name" "$tool" "$bin" "$role" "$gidx" "${sizes[$i]}" "${iters[$i]}" || ok=1
		[ $ok = 0 ] || break
	done
	if [ -n "$netem" ]; then
		PP_NETEM=
		pp_netem_end "${#sizes[@]}" || ok=1
	fi
	return $ok
}

# The guest's impairment ends: its statistics, then the qdiscs removed.
# Each size's last ACK must have been sent past netem ($1 sizes, at least
# one frame each: a retransmission of ours is ACKed again).
PP_EXEMPT_QDISC=10:
pp_netem_end() {
	local stats exempt

	stats=$(gx "tc -s qdisc show dev eth0; tc -s filter show dev eth0; tc qdisc del dev eth0 root") ||
		return 1
	echo "$stats"
	exempt=$(awk -v q="$PP_EXEMPT_QDISC" '$1 == "qdisc" { cur = $3 }
		cur == q && $1 == "Sent" { print $4 }' <<< "$stats")
	echo "check: ${exempt:-no} frames kept from netem (at least $1, one last ACK a size)"
	[ "${exempt:-0}" -ge "$1" ]
}

# The guest's ACK of our last SEND of a run ($1's host log gives our first
# PSN; $2 bytes x $3 messages, PP_MTU a packet) bypasses netem: a tc
# command for the guest. Its loss is no loss to recover from, the guest
# having gone (NETEM_LOSS says why); any other ACK or NAK of the guest may
# be lost. u32 offsets from the IPv4 header (rxe sends no options): UDP
# 20, BTH 28 (opcode, 0x11 = RC ACKNOWLEDGE), PSN the low 24 bits at 36
# (IBA 9.2, doc/wire-format.md §2.1).
pp_last_ack_exempt() {
	local name=$1 size=$2 n=$3 psn0 last

	psn0=$(awk '/local address/ { for (i = 1; i < NF; i++) if ($i == "PSN") { sub(",", "", $(i + 1)); print $(i + 1); exit } }' \
		"$OUT/$name.host.log")
	[ -n "$psn0" ] || return 1
	last=$(((psn0 + n * ((size + PP_MTU - 1) / PP_MTU) - 1) & 0xffffff))
	printf 'tc filter del dev eth0 parent 1: 2>/dev/null; tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff match ip dport 4791 0xffff match u8 0x11 0xff at 28 match u32 0x%06x 0x00ffffff at 36 flowid 1:1' \
		"$last"
}

# One size: $6 bytes, $7 iterations.
pp_once() {
	local name=$1 tool=$2 bin=$3 role=$4 gidx=$5 s=$6 n=$7 host_ok=0 ok=0 opts hostgid=() exempt cmd
	local eal=("${EAL_ARGS[@]}") hostport=(${PP_FAULT:+--fault "$PP_FAULT"})

	# Under our --fault, the host's own capture: the frames its stack got past the fault.
	[ -n "$PP_FAULT" ] && hostport+=(--pcap="$OUT/$name.host-$s.pcap")

	opts=(${PP_CHK[$tool]} -s "$s" -n "$n" -p "$OOB_PORT")
	[ "$tool" = ud ] || opts+=(-m "$PP_MTU")
	[ "$PP_MTU" = "$IB_MTU_MAX" ] && { eal=("${EAL_ARGS_JUMBO[@]}") hostport+=("${PP_JUMBO_ARGS[@]}"); }
	if [ "${ROCE_INTEROP_STATIC_NEIGH:-0}" = 1 ]; then
		gx "ip neigh replace $ROCE_IP lladdr $ROCE_MAC dev eth0 nud permanent
			ip neigh replace $(roce_ll) lladdr $ROCE_MAC dev eth0 nud permanent" || return 1
	else
		gx "ip neigh flush dev eth0" || return 1
	fi
	# Our GID index 0 is the port's link-local GID, as on rxe.
	[ "$gidx" = "$GID_V6" ] && hostgid=(-g 0)
	if [ "$role" = server ]; then
		guest_bg "$name" "ibv_${tool}_pingpong -d rxe0 -g $gidx ${opts[*]}"
		guest_listening "$OOB_PORT" || return 1
		timeout "$HOST_TIMEOUT_S" "$bin" "${eal[@]}" -- --ip "$ROCE_IP/$PREFIX_LEN" \
			"${hostport[@]}" "${hostgid[@]}" "${opts[@]}" "$GUEST_IP" \
			>"$OUT/$name.host.log" 2>&1 || host_ok=1
	else
		timeout "$HOST_TIMEOUT_S" "$bin" "${eal[@]}" -- --ip "$ROCE_IP/$PREFIX_LEN" \
			"${hostport[@]}" "${hostgid[@]}" "${opts[@]}" >"$OUT/$name.host.log" 2>&1 &
		PEER_PID=$!
		# It listens before it prints its address.
		if host_log_wait "$name" 'local address'; then
			cmd="ibv_${tool}_pingpong -d rxe0 -g $gidx ${opts[*]} $BR_IP"
			if [ -n "$PP_NETEM" ]; then
				exempt=$(pp_last_ack_exempt "$name" "$s" "$n") ||
					{ echo "no PSN in $name.host.log"; exempt=false; }
				cmd="{ $exempt && $cmd; }"
			fi
			guest_bg "$name" "$cmd"
		fi
		peer_wait || host_ok=1
	fi
	# A failed host side leaves the guest waiting: give it a few seconds only.
	guest_bg_wait "$name" "$(guest_wait_s $host_ok 120)" || ok=1
	echo "size $s x $n: host exit $host_ok"
	cat "$OUT/$name.host.log" "$OUT/$name.guest.log"
	grep -q "$n iters in" "$OUT/$name.guest.log" || ok=1
	[ $host_ok = 1 ] && [ $ok = 0 ] && final_ack_claim "$name" "$s" && host_ok=0
	# What our --fault did (one line per run): its corruptions are the bad frames allowed.
	CORRUPTED=$((CORRUPTED + $(awk '$1 == "fault:" { n += $NF } END { print n + 0 }' \
		"$OUT/$name.host.log")))
	[ $host_ok = 0 ] && [ $ok = 0 ]
}

# ibv_rc_pingpong exits, destroying its QP, as soon as its own last SEND is
# acknowledged and the last SEND of ours has arrived; nothing then answers a
# retransmission. When our --fault drops the guest's ACK of that last SEND
# (a frame seen on the wire, lost at our RX on purpose), our requester
# retries and then ends in "transport retry counter exceeded", as any RC
# requester must (IBTA Vol. 1 section 9.7; doc/wire-format.md, "Timers and
# retries"): the outcome of the test's design, not a failure to recover.
# final_ack_claim lets the run go on; run_scenario then proves each claim
# from the complete captures (final_ack_dropped) or fails the scenario.
FINAL_ACK_CLAIMS=
final_ack_claim() {
	local name=$1 size=$2

	[ -n "$PP_FAULT" ] || return 1
	grep -q 'Failed status transport retry counter exceeded' "$OUT/$name.host.log" || return 1
	FINAL_ACK_CLAIMS+=" $size"
	echo "size $size: retry exhaustion after the guest finished: checked against the captures"
}

# Proven, not assumed: the last request PSN we sent at size $2 (the host's
# --pcap) was acknowledged by the guest on the wire (the bridge capture), we
# sent it again after that ACK, and the ACK is not among the frames our stack
# received (the host's --pcap sees RX after the fault). The decodes are read,
# not roce_dump's status: it exits 1 on the frames our --fault corrupted on
# purpose (capture_check counts those), and under pipefail that status made
# every proof fail (CI subset run 2026-11-28, doc/interop.md).
final_ack_dropped() {
	local name=$1 size=$2 host_pcap="$OUT/$1.host-$2.pcap" psn host wire

	host=$("$ROCE_DUMP" "$host_pcap" 2>/dev/null)
	wire=$("$ROCE_DUMP" "$OUT/$name.pcap" 2>/dev/null)
	psn=$(awk -v us="$ROCE_IP." '
		index($4, us) == 1 && $7 ~ /^RC_SEND/ { for (i = 8; i < NF; i++) if ($i == "psn") last = $(i + 1) }
		END { print last }' <<< "$host")
	if [ -z "$psn" ]; then
		echo "size $size: no SEND of ours in $host_pcap"
		return 1
	fi
	if ! awk -v us="$ROCE_IP." -v peer="$GUEST_IP." -v psn="$psn" '
		index($4, peer) == 1 && $7 == "RC_ACKNOWLEDGE" && $11 == psn && $12 == "ACK" { acked = 1 }
		index($4, us) == 1 && $7 ~ /^RC_SEND/ && $11 == psn && acked { resent = 1 }
		END { exit !resent }' <<< "$wire"; then
		echo "size $size: the wire shows no ACK of our last PSN $psn followed by a resend"
		return 1
	fi
	if ! awk -v peer="$GUEST_IP." -v psn="$psn" '
		index($4, peer) == 1 && $7 == "RC_ACKNOWLEDGE" && $11 == psn { found = 1 }
		END { exit found }' <<< "$host"; then
		echo "size $size: the guest's ACK of PSN $psn reached our stack, yet it retried"
		return 1
	fi
	echo "size $size: the guest acknowledged our last SEND (PSN $psn), our --fault dropped" \
		"that ACK and the guest had exited: retry exhaustion is the expected end"
}

final_ack_check() {
	local s ok=0

	for s in $FINAL_ACK_CLAIMS; do
		final_ack_dropped "$1" "$s" || ok=1
	done
	return $ok
}

scen_rc_pingpong_v4_guest_server() { pp_scenario rc_pingpong_v4_guest_server rc server "$GID_V4"; }
scen_rc_pingpong_v4_guest_client() { pp_scenario rc_pingpong_v4_guest_client rc client "$GID_V4"; }
scen_rc_pingpong_v6_guest_server() { pp_scenario rc_pingpong_v6_guest_server rc server "$GID_V6"; }
scen_rc_pingpong_v6_guest_client() { pp_scenario rc_pingpong_v6_guest_client rc client "$GID_V6"; }
# The same at IB MTU 4096 (Ethernet MTU 4200 on every link, rxe's active_mtu 4096).
pp_jumbo() {
	local ok=0 big

	set_mtu "$JUMBO_MTU" || return 1
	PP_MTU=$IB_MTU_MAX
	pp_scenario "$@" || ok=1
	PP_MTU=$IB_MTU_DEFAULT
	# Full 4096-byte payloads went both ways (frames above 4096 + headers).
	big=$(tcpdump -e -nn -r "$OUT/$1.pcap" "udp port 4791 and greater $IB_MTU_MAX" 2>/dev/null |
		awk '{ print $2 }' | sort -u | wc -l)
	echo "frames above $IB_MTU_MAX bytes from $big senders"
	[ "$big" = 2 ] || ok=1
	set_mtu "$DEFAULT_MTU" || ok=1
	return $ok
}
scen_rc_pingpong_mtu4096_v4_guest_server() { pp_jumbo rc_pingpong_mtu4096_v4_guest_server rc server "$GID_V4"; }
scen_rc_pingpong_mtu4096_v4_guest_client() { pp_jumbo rc_pingpong_mtu4096_v4_guest_client rc client "$GID_V4"; }
scen_rc_pingpong_mtu4096_v6_guest_server() { pp_jumbo rc_pingpong_mtu4096_v6_guest_server rc server "$GID_V6"; }
scen_rc_pingpong_mtu4096_v6_guest_client() { pp_jumbo rc_pingpong_mtu4096_v6_guest_client rc client "$GID_V6"; }
# Both sides recover: the kernel's lost, reordered or duplicated frames reach us that way.
scen_rc_pingpong_loss() { pp_scenario rc_pingpong_loss rc client "$GID_V4" "$NETEM_LOSS"; }
scen_rc_pingpong_reorder() { pp_scenario rc_pingpong_reorder rc client "$GID_V4" "$NETEM_REORDER"; }
scen_rc_pingpong_dup() { pp_scenario rc_pingpong_dup rc client "$GID_V4" "$NETEM_DUP"; }
# Our own impairments (librte_roce_fault on the host port, --fault of the
# examples): the RoCEv2 frames we receive are dropped, duplicated or
# reordered at RX, and the frames we send are corrupted at TX (one payload
# byte after the ICRC: rxe drops them by ICRC, as a lost frame), both roles;
# with netem loss on the guest's egress as well in the last one.
PP_FAULT=
HOST_FAULT="rx-drop=0.02,rx-dup=0.02,rx-reorder=0.02,tx-corrupt=0.02,seed=7"
pp_fault() {
	local ok=0

	PP_FAULT=$HOST_FAULT
	pp_scenario "$@" || ok=1
	PP_FAULT=
	return $ok
}
scen_rc_pingpong_fault_guest_server() { pp_fault rc_pingpong_fault_guest_server rc server "$GID_V4" lossy; }
scen_rc_pingpong_fault_guest_client() { pp_fault rc_pingpong_fault_guest_client rc client "$GID_V4" lossy; }
scen_rc_pingpong_fault_netem() { pp_fault rc_pingpong_fault_netem rc client "$GID_V4" "$NETEM_LOSS"; }
scen_ud_pingpong_v4_guest_server() { pp_scenario ud_pingpong_v4_guest_server ud server "$GID_V4"; }
scen_ud_pingpong_v4_guest_client() { pp_scenario ud_pingpong_v4_guest_client ud client "$GID_V4"; }
scen_ud_pingpong_v6_guest_server() { pp_scenario ud_pingpong_v6_guest_server ud server "$GID_V6"; }
scen_ud_pingpong_v6_guest_client() { pp_scenario ud_pingpong_v6_guest_client ud client "$GID_V6"; }
scen_uc_pingpong_v4_guest_server() { pp_scenario uc_pingpong_v4_guest_server uc server "$GID_V4"; }
scen_uc_pingpong_v4_guest_client() { pp_scenario uc_pingpong_v4_guest_client uc client "$GID_V4"; }
scen_srq_pingpong_v4_guest_server() { pp_scenario srq_pingpong_v4_guest_server srq server "$GID_V4"; }
scen_srq_pingpong_v4_guest_client() { pp_scenario srq_pingpong_v4_guest_client srq client "$GID_V4"; }

# ---- rping: rdma_cm (the IB CM on QP1) against examples/rping ------------------

RPING_PORT=7174             # rping's default
# Sizes and iteration counts: rping's default size 1000 times (-v: each ping
# printed and counted), then its largest (64 KiB - 1) with -V only.
RPING_SIZES=(64 65535)
RPING_ITERS=(1000 50)
RPING_VERBOSE_MAX=64        # -v only up to this size (it prints the whole buffer)
RPING_EAL=(--log-level=lib.roce.cm:debug)  # the CM's state transitions in the host log

# The host's rping (or $1: ucmatose): examples/$1, or what ROCE_INTEROP_RPING
# (ROCE_INTEROP_UCMATOSE) names (meson sets them).
rping_bin() {
	local tool=${1:-rping} var

	var=ROCE_INTEROP_${tool^^}
	if [ -n "${!var+set}" ]; then
		echo "${!var}"
	else
		echo "$BUILD/examples/$tool/$tool"
	fi
}

# An rdma_cm listener exists in the guest (rping has no TCP port to wait for).
guest_cm_listening() {
	gx "for i in \$(seq 100); do rdma res show cm_id | grep -q LISTEN && exit 0; sleep 0.1; done; exit 1" \
		>/dev/null
}

# The addresses of an rping run over IP version $1: RP_GUEST and RP_HOST (what
# each side connects to; the guest needs the link's scope for link-local).
rping_addrs() {
	if [ "$1" = 6 ]; then
		RP_GUEST=$GUEST_LL RP_HOST=$(roce_ll) RP_SCOPE=%eth0
	else
		RP_GUEST=$GUEST_IP RP_HOST=$ROCE_IP RP_SCOPE=
	fi
}

# The guest's rping in role $2 against ours over IPv$3, every size of RPING_SIZES.
rping_scenario() {
	local name=$1 role=$2 ipver=$3 bin

	bin=$(rping_bin)
	if [ -z "$bin" ] || [ ! -x "$bin" ]; then
		SKIP_REASON="examples/rping is not built"
		return 77
	fi
	rping_addrs "$ipver"
	RPING_HOST=(timeout "$HOST_TIMEOUT_S" "$bin" "${EAL_ARGS[@]}" "${RPING_EAL[@]}" --
		    --ip "$ROCE_IP/$PREFIX_LEN")
	rping_sizes "$name" "$role" 'listening on'
}

# Every size of RPING_SIZES: the host runs RPING_HOST and rping's arguments;
# in the server role it is ready once its log has line $3.
rping_sizes() {
	local i

	for i in "${!RPING_SIZES[@]}"; do
		rping_once "$1" "$2" "${RPING_SIZES[$i]}" "${RPING_ITERS[$i]}" "$3" || return 1
	done
}

# One size: $3 bytes, $4 iterations; both sides validate (-V), both exit 0, and
# with -v the client printed every ping.
rping_once() {
	local name=$1 role=$2 s=$3 n=$4 ready=$5 host_ok=0 ok=0 opts client_log

	# The guest's rping line-buffered (stdbuf -oL): block-buffered, its stdout
	# lost whole lines to the DISCONNECT message it writes to stderr meanwhile.
	opts=(-C "$n" -S "$s" -V -p "$RPING_PORT")
	[ "$s" -le "$RPING_VERBOSE_MAX" ] && opts+=(-v)
	gx "ip neigh flush dev eth0" || return 1
	if [ "$role" = server ]; then
		guest_bg "$name" "stdbuf -oL rping -s -a $RP_GUEST$RP_SCOPE ${opts[*]}"
		guest_cm_listening || return 1
		"${RPING_HOST[@]}" -c -a "$RP_GUEST" -I "$RP_HOST" "${opts[@]}" \
			>"$OUT/$name.host.log" 2>&1 || host_ok=1
		client_log=$OUT/$name.host.log
	else
		"${RPING_HOST[@]}" -s -a "$RP_HOST" "${opts[@]}" >"$OUT/$name.host.log" 2>&1 &
		PEER_PID=$!
		if host_log_wait "$name" "$ready"; then
			guest_bg "$name" "stdbuf -oL rping -c -a $RP_HOST$RP_SCOPE ${opts[*]}"
		fi
		peer_wait || host_ok=1
		client_log=$OUT/$name.guest.log
	fi
	guest_bg_wait "$name" "$(guest_wait_s $host_ok 120)" || ok=1
	echo "size $s x $n: host exit $host_ok, guest exit $ok"
	# -v output is long: the first and last pings and the rest of the output.
	for f in "$OUT/$name.host.log" "$OUT/$name.guest.log"; do
		grep -v 'ping data' "$f"
		grep 'ping data' "$f" | sed -n '1p;$p'
	done
	if [ "$s" -le "$RPING_VERBOSE_MAX" ] &&
	   [ "$(grep -c '^ping data: rdma-ping-' "$client_log")" != "$n" ]; then
		echo "the client printed $(grep -c '^ping data: rdma-ping-' "$client_log") pings of $n"
		ok=1
	fi
	[ $host_ok = 0 ] && [ $ok = 0 ]
}

scen_rping_v4_guest_server() { rping_scenario rping_v4_guest_server server 4; }
scen_rping_v4_guest_client() { rping_scenario rping_v4_guest_client client 4; }
scen_rping_v6_guest_server() { rping_scenario rping_v6_guest_server server 6; }
scen_rping_v6_guest_client() { rping_scenario rping_v6_guest_client client 6; }

# ---- drop-in: Debian's unmodified tools on the host, through roce-run -----------

DROPIN_RUN=$BUILD/app/roce_run/roce-run
DROPIN_LIB=$BUILD/lib/roce_verbs/librte_roce_verbs.so
# The layer builds the EAL's arguments from its configuration (its vdev, no
# PCI, no shared files without hugepages); these come on top.
DROPIN_EAL="--no-huge --no-telemetry --log-level=lib.eal:error"
DROPIN_START_S=60           # EAL start and link wait of the layer, under load

# Skip (77, saying why) unless the layer is built and the host has Debian's tool $1.
dropin_skip() {
	if [ ! -r "$DROPIN_RUN" ] || [ ! -r "$DROPIN_LIB" ]; then
		SKIP_REASON="lib/roce_verbs and app/roce_run are not built"
	elif ! command -v "$1" >/dev/null; then
		SKIP_REASON="$1 is not installed on the host (devtools/install-deps.sh)"
	else
		return 1
	fi
}

# DROPIN: the command that runs a Debian tool through the layer, one device
# (roce0) on the veth at ROCE_IP; $1 = worker: a worker lcore on CPU 1 makes
# the progress (a program that waits without calling verbs), else inline;
# $2: extra EAL arguments; DROPIN_CONF_KEYS: more "key = value" lines of
# its [port] section.
DROPIN_CONF_KEYS=()
dropin_prefix() {
	local conf=$RUN/dropin.conf

	{
		echo "[port host]"
		echo "dev = net_af_packet0,iface=$VETH,framecnt=2048"
		echo "addr = $ROCE_IP/$PREFIX_LEN"
		[ "$1" = worker ] && echo "workers = 1"
		printf '%s\n' "${DROPIN_CONF_KEYS[@]}"
	} >"$conf"
	DROPIN=(timeout "$HOST_TIMEOUT_S" env "ROCE_VERBS_LIB=$DROPIN_LIB" sh "$DROPIN_RUN"
		--config "$conf" --eal-args "$DROPIN_EAL ${2:-}" -- stdbuf -oL)
}

# Debian's rping on the host through the layer against the guest's, IPv4, in
# the guest's role $2. rping waits in ibv_get_cq_event() and on the CM fd: a
# worker makes progress; the layer's INFO line "listens on" says the server is
# ready (rping prints nothing then). Fewer pings than rping_scenario's, for
# the CI subset: the exchange is the same at every count (connect, SEND, READ,
# WRITE, validate on both sides, disconnect), and a ping (three round trips
# with the guest under TCG) costs 30 to 120 ms.
RPING_DROPIN_ITERS=(200 3)
rping_dropin() {
	local RPING_ITERS=("${RPING_DROPIN_ITERS[@]}")

	dropin_skip rping && return 77
	rping_addrs 4
	dropin_prefix worker --log-level=lib.roce.verbs:info
	RPING_HOST=("${DROPIN[@]}" rping)
	rping_sizes "$1" "$2" 'listens on'
}

scen_rping_dropin_v4_guest_server() { rping_dropin rping_dropin_v4_guest_server server; }
scen_rping_dropin_v4_guest_client() { rping_dropin rping_dropin_v4_guest_client client; }

# ---- NVMe-oF: the guest's nvme-rdma host and nvme-cli against app/roce_nvmf -------

NVMF_NQN=nqn.2026-11.org.librte-roce:interop
NVMF_NQN2=nqn.2026-11.org.librte-roce:interop-file
NVMF_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:0f0e0d0c-0b0a-0908-0706-050403020100
NVMF_NS_MIB=16
NVMF_FILE_MIB=4              # the second subsystem's namespace: a file, grown to twice that
NVMF_PORT=4420

# The host target: app/roce_nvmf, or what ROCE_INTEROP_NVMF names (meson sets it).
nvmf_bin() {
	if [ -n "${ROCE_INTEROP_NVMF+set}" ]; then
		echo "$ROCE_INTEROP_NVMF"
	else
		echo "$BUILD/app/roce_nvmf/roce_nvmf"
	fi
}

# roce_nvmf at $1 built, the guest's nvme-rdma host and nvme-cli there: 0, 77 (skip) or 1.
nvmf_guest_ready() {
	if [ -z "$1" ] || [ ! -x "$1" ]; then
		SKIP_REASON="app/roce_nvmf is not built (liburing-dev)"
		return 77
	fi
	gx "modprobe nvme_rdma && command -v nvme" >/dev/null 2>&1 ||
		{ echo "guest: no nvme_rdma or nvme-cli (image older than build-guest.sh?)"; return 1; }
}

# The end of scenario $1 whose guest side exited $2: both logs, roce_nvmf stopped by
# SIGTERM must exit 0.
nvmf_stop() {
	local host_ok=0

	cat "$OUT/$1.guest.log"
	kill -TERM "$PEER_PID" 2>/dev/null
	peer_wait || host_ok=1
	cat "$OUT/$1.host.log"
	echo "guest exit $2, host exit $host_ok"
	[ "$2" = 0 ] && [ $host_ok = 0 ]
}

# The guest's block device of subsystem $1 (nvmeXnY of whichever controller).
NVMF_GUEST_DEV='nvmf_dev() { for b in $(ls /sys/block | grep -E "^nvme[0-9]+n1$"); do
		[ "$(cat /sys/block/$b/device/subsysnqn 2>/dev/null)" = "$1" ] && echo $b; done; }'

# Two subsystems (RAM; a file): nvme discover lists both; nvme connect with two
# I/O queues to the first, data through its namespace (4 KiB blocks:
# in-capsule data; 128 KiB: keyed SGLs, RDMA READ and WRITE of many packets),
# read back and compared by checksum; nvme connect to the second, whose file
# then doubles and roce_nvmf gets SIGHUP: the Linux host, told by an
# asynchronous event, sees the new size; nvme disconnect of both; then the
# target is stopped by SIGTERM and must exit 0. $1: the scenario, then
# roce_nvmf's options of that scenario.
nvmf_two_subsys() {
	local name=$1 bin ok=0 img

	shift
	bin=$(nvmf_bin) && nvmf_guest_ready "$bin" || return $?
	img=$OUT/$name.ns.img
	rm -f "$img" && truncate -s "${NVMF_FILE_MIB}M" "$img" || return 1
	"$bin" "${EAL_ARGS[@]}" --log-level=app.roce_nvmf:debug -- --ip "$ROCE_IP/$PREFIX_LEN" \
		--nqn "$NVMF_NQN" --ns "$NVMF_NS_MIB" --nqn "$NVMF_NQN2" --ns-file "$img" \
		--io-queues 2 "$@" >"$OUT/$name.host.log" 2>&1 &
	PEER_PID=$!
	host_log_wait "$name" "serving $NVMF_NQN2" || { cat "$OUT/$name.host.log"; return 1; }
	gx -t 600 "set -x
		$NVMF_GUEST_DEV
		nvme discover -t rdma -a $ROCE_IP -s $NVMF_PORT -q $NVMF_HOSTNQN > /tmp/disc || exit 1
		cat /tmp/disc
		grep -q 'subnqn: *$NVMF_NQN\$' /tmp/disc && grep -q 'subnqn: *$NVMF_NQN2\$' /tmp/disc ||
			exit 11
		nvme connect -t rdma -n $NVMF_NQN -a $ROCE_IP -s $NVMF_PORT -q $NVMF_HOSTNQN -i 2 || exit 2
		for i in \$(seq 100); do [ -b /dev/nvme0n1 ] && break; sleep 0.2; done
		[ -b /dev/nvme0n1 ] || exit 3
		nvme list
		cat /sys/class/nvme/nvme0/queue_count /sys/class/nvme/nvme0/transport
		head -c 4194304 /dev/urandom > /tmp/data
		dd if=/tmp/data of=/dev/nvme0n1 bs=4k count=256 oflag=direct || exit 4
		dd if=/tmp/data of=/dev/nvme0n1 bs=128k skip=8 seek=8 count=24 oflag=direct || exit 5
		a=\$(md5sum < /tmp/data)
		b=\$(dd if=/dev/nvme0n1 bs=64k count=64 iflag=direct | md5sum)
		echo \"written \$a read \$b\"
		[ \"\$a\" = \"\$b\" ] || exit 6
		nvme connect -t rdma -n $NVMF_NQN2 -a $ROCE_IP -s $NVMF_PORT -q $NVMF_HOSTNQN -i 1 || exit 12
		for i in \$(seq 100); do [ -n \"\$(nvmf_dev $NVMF_NQN2)\" ] && break; sleep 0.2; done
		d=\$(nvmf_dev $NVMF_NQN2)
		[ \"\$(cat /sys/block/\$d/size)\" = $((NVMF_FILE_MIB * 2048)) ] || exit 13" \
		>"$OUT/$name.guest.log" 2>&1 || ok=1
	if [ $ok = 0 ]; then
		truncate -s "$((NVMF_FILE_MIB * 2))M" "$img" && kill -HUP "$PEER_PID"
		host_log_wait "$name" 'rescan: 1 namespace changed' || ok=1
	fi
	if [ $ok = 0 ]; then
		gx -t 120 "set -x
			$NVMF_GUEST_DEV
			d=\$(nvmf_dev $NVMF_NQN2)
			for i in \$(seq 100); do
				[ \"\$(cat /sys/block/\$d/size)\" = $((NVMF_FILE_MIB * 4096)) ] && break
				sleep 0.2
			done
			cat /sys/block/\$d/size
			[ \"\$(cat /sys/block/\$d/size)\" = $((NVMF_FILE_MIB * 4096)) ] || exit 14
			nvme disconnect -n $NVMF_NQN2 || exit 15
			nvme disconnect -n $NVMF_NQN || exit 7" >>"$OUT/$name.guest.log" 2>&1 || ok=1
	fi
	nvmf_stop "$name" "$ok"
}

scen_nvmf_v4_guest_host() { nvmf_two_subsys nvmf_v4_guest_host; }

# The same with every I/O queue taking its capsules from one shared receive
# queue of 32 buffers (fewer than the 128 entries the Linux host's queue
# has: a burst meets RNR NAKs and is retried; doc/nvmf.md).
scen_nvmf_srq_v4_guest_host() { nvmf_two_subsys nvmf_srq_v4_guest_host --srq-depth 32; }

# The same target listening on its IPv4 address and on our port's IPv6
# link-local address at once: nvme discover through each says adrfam ipv4,
# then ipv6; nvme connect over IPv6 (the address with the guest's scope), 1 MiB
# written and read back by checksum, nvme disconnect, SIGTERM exits 0.
scen_nvmf_v6_guest_host() {
	local name=nvmf_v6_guest_host bin ok=0 ll

	bin=$(nvmf_bin) && nvmf_guest_ready "$bin" || return $?
	ll=$(roce_ll)
	"$bin" "${EAL_ARGS[@]}" --log-level=app.roce_nvmf:debug -- --ip "$ROCE_IP/$PREFIX_LEN" \
		--listen "$ROCE_IP" --listen "$ll" --nqn "$NVMF_NQN" --ns "$NVMF_NS_MIB" \
		>"$OUT/$name.host.log" 2>&1 &
	PEER_PID=$!
	host_log_wait "$name" 'serving' || { cat "$OUT/$name.host.log"; return 1; }
	gx -t 600 "set -x
		ip neigh flush dev eth0
		nvme discover -t rdma -a $ROCE_IP -s $NVMF_PORT -q $NVMF_HOSTNQN > /tmp/disc4 || exit 9
		grep -q 'adrfam: *ipv4' /tmp/disc4 || exit 10
		nvme discover -t rdma -a $ll%eth0 -s $NVMF_PORT -q $NVMF_HOSTNQN > /tmp/disc || exit 1
		cat /tmp/disc
		grep -q 'adrfam: *ipv6' /tmp/disc || exit 11
		$(nvmf_guest_rw "$ll%eth0" "$NVMF_NQN" 1)" >"$OUT/$name.guest.log" 2>&1 || ok=1
	nvmf_stop "$name" "$ok"
}

# The guest's commands: nvme connect to subsystem $2 at address $1 with $3 I/O
# queues, 1 MiB written in 128 KiB blocks (keyed SGLs: RDMA READ by the
# target) and read back (RDMA WRITE) by checksum, nvme disconnect.
nvmf_guest_rw() {
	echo "nvme connect -t rdma -n $2 -a $1 -s $NVMF_PORT -q $NVMF_HOSTNQN -i $3 || exit 2
		for i in \$(seq 100); do [ -b /dev/nvme0n1 ] && break; sleep 0.2; done
		[ -b /dev/nvme0n1 ] || exit 3
		cat /sys/class/nvme/nvme0/address
		head -c 1048576 /dev/urandom > /tmp/data
		dd if=/tmp/data of=/dev/nvme0n1 bs=128k oflag=direct || exit 4
		a=\$(md5sum < /tmp/data)
		b=\$(dd if=/dev/nvme0n1 bs=64k count=16 iflag=direct | md5sum)
		echo \"written \$a read \$b\"
		[ \"\$a\" = \"\$b\" ] || exit 6
		nvme disconnect -n $2 || exit 7"
}

# ---- NVMe-oF: the guest's nvme-rdma host against SPDK's target through the drop-in layer

NVMF_SPDK_MIB=16             # the malloc bdev SPDK serves

# SPDK's nvmf_tgt configuration: a malloc bdev, the RDMA transport, one subsystem
# listening on ROCE_IP, any host.
nvmf_spdk_json() {
	local nqn=$NVMF_NQN

	cat <<-EOF
	{"subsystems": [
	 {"subsystem": "bdev", "config": [{"method": "bdev_malloc_create",
	   "params": {"name": "Malloc0", "num_blocks": $((NVMF_SPDK_MIB * 2048)), "block_size": 512}}]},
	 {"subsystem": "nvmf", "config": [
	  {"method": "nvmf_create_transport", "params": {"trtype": "RDMA", "max_queue_depth": 32}},
	  {"method": "nvmf_create_subsystem",
	   "params": {"nqn": "$nqn", "allow_any_host": true, "serial_number": "ROCE0001"}},
	  {"method": "nvmf_subsystem_add_ns",
	   "params": {"nqn": "$nqn", "namespace": {"bdev_name": "Malloc0"}}},
	  {"method": "nvmf_subsystem_add_listener",
	   "params": {"nqn": "$nqn", "listen_address": {"trtype": "RDMA", "adrfam": "IPv4",
	     "traddr": "$ROCE_IP", "trsvcid": "$NVMF_PORT"}}}]}]}
	EOF
}

# SPDK is not in Debian: runs when ROCE_SPDK_DIR names a built SPDK tree
# (doc/nvmf.md, "SPDK on the drop-in verbs layer"), skipped saying so
# otherwise. SPDK's unmodified nvmf_tgt, every ibv_* and rdma_* call of it
# librte_roce_verbs' (inline progress: SPDK's pollers), serves the Linux
# kernel's nvme-rdma host: nvme discover, connect with two I/O queues, 1 MiB
# written and read back by checksum, disconnect; SIGTERM stops the target.
scen_nvmf_spdk_v4_guest_host() {
	local name=nvmf_spdk_v4_guest_host ok=0 tgt conf

	if [ -z "${ROCE_SPDK_DIR:-}" ]; then
		SKIP_REASON="SPDK is not in Debian; set ROCE_SPDK_DIR to a built SPDK tree (doc/nvmf.md)"
		return 77
	fi
	tgt=$ROCE_SPDK_DIR/build/bin/nvmf_tgt
	[ -x "$tgt" ] || { echo "$tgt missing: ROCE_SPDK_DIR is not a built SPDK tree"; return 1; }
	dropin_skip "$tgt" && return 77
	nvmf_guest_ready "$tgt" || return $?
	conf=$OUT/$name.json
	nvmf_spdk_json >"$conf"
	dropin_prefix inline
	LD_LIBRARY_PATH=$ROCE_SPDK_DIR/build/lib "${DROPIN[@]}" "$tgt" --no-huge -s 512 -u -m 0x1 \
		--no-rpc-server -c "$conf" >"$OUT/$name.host.log" 2>&1 &
	PEER_PID=$!
	host_log_wait "$name" "NVMe/RDMA Target Listening on $ROCE_IP port $NVMF_PORT" \
		"$DROPIN_START_S" ||
		{ cat "$OUT/$name.host.log"; return 1; }
	gx -t 600 "set -x
		nvme discover -t rdma -a $ROCE_IP -s $NVMF_PORT -q $NVMF_HOSTNQN > /tmp/disc || exit 1
		cat /tmp/disc
		grep -q 'subnqn: *$NVMF_NQN\$' /tmp/disc || exit 11
		$(nvmf_guest_rw "$ROCE_IP" "$NVMF_NQN" 2)" >"$OUT/$name.guest.log" 2>&1 || ok=1
	nvmf_stop "$name" "$ok"
}

# ---- ucmatose: many rdma_cm connections at once ---------------------------------

UCMATOSE_CONNS=64            # -c: connections at once
UCMATOSE_PORT=7471           # ucmatose's default

UCMATOSE_LOSS_CONNS=16       # -c under loss
NETEM_CM_LOSS="loss 10%"     # every frame the guest sends on the link: its CM MADs among them
# The guest's CM counters (Linux cm.c's sysfs groups): retries and duplicates seen.
GUEST_CM_COUNTERS=/sys/class/infiniband/rxe0/ports/1

# The guest's ucmatose in role $2 against ours: -c $3 (UCMATOSE_CONNS)
# connections, 10 SENDs of 100 B each way on each (the defaults), disconnect;
# both sides must end with "return status 0". $4: a netem spec on the guest's
# egress (the CM under MAD loss); then our CM must count exactly $3
# connections established (--cm-stats: a connection made twice would count
# twice), the guest's netem must have dropped frames, and the guest's kernel
# CM counters of retries and duplicates are printed.
ucmatose_scenario() {
	local name=$1 role=$2 conns=${3:-$UCMATOSE_CONNS} netem=${4:-} bin ok=0 opts

	bin=$(rping_bin ucmatose)
	if [ -z "$bin" ] || [ ! -x "$bin" ]; then
		SKIP_REASON="examples/ucmatose is not built"
		return 77
	fi
	opts=(-c "$conns" -p "$UCMATOSE_PORT")
	if [ -n "$netem" ]; then
		gx "tc qdisc replace dev eth0 root netem $netem" || return 1
	fi
	CMA_HOST=(timeout "$HOST_TIMEOUT_S" "$bin" "${EAL_ARGS[@]}" -- --ip "$ROCE_IP/$PREFIX_LEN")
	cmatose_pair "$name" "$role" "ucmatose -b $GUEST_IP ${opts[*]}" \
		"-s $GUEST_IP ${opts[*]} --cm-stats" "ucmatose -s $ROCE_IP ${opts[*]}" \
		"${opts[*]} --cm-stats" 'starting server' || ok=1
	log_has "$OUT/$name.host.log" "^cm counters:.* cm_established $conns\( \|$\)" || ok=1
	if [ -n "$netem" ]; then
		gx "tc -s qdisc show dev eth0; tc qdisc del dev eth0 root
		    cd $GUEST_CM_COUNTERS && grep -H . cm_tx_retries/* cm_rx_duplicates/* | grep -v ':0$'" \
			>"$OUT/$name.guest-cm.log" 2>&1 || ok=1
		cat "$OUT/$name.guest-cm.log"
		grep -q 'dropped [1-9]' "$OUT/$name.guest-cm.log" || { echo "netem dropped nothing"; ok=1; }
	fi
	[ $ok = 0 ]
}

# One run of a tool of librdmacm's cmatose family (ucmatose, udaddy: both end
# with "return status 0"), the guest in role $2. Guest server: the guest runs
# $3, then the host CMA_HOST with arguments $4 (word-split). Guest client: the
# host runs CMA_HOST with $6, and once its log has line $7 the guest runs $5.
cmatose_pair() {
	local name=$1 role=$2 host_ok=0 ok=0

	gx "ip neigh flush dev eth0" || return 1
	if [ "$role" = server ]; then
		guest_bg "$name" "$3"
		guest_cm_listening || return 1
		"${CMA_HOST[@]}" $4 >"$OUT/$name.host.log" 2>&1 || host_ok=1
	else
		"${CMA_HOST[@]}" $6 >"$OUT/$name.host.log" 2>&1 &
		PEER_PID=$!
		if host_log_wait "$name" "$7" "$DROPIN_START_S"; then
			guest_bg "$name" "$5"
		fi
		peer_wait || host_ok=1
	fi
	guest_bg_wait "$name" "$(guest_wait_s $host_ok 120)" || ok=1
	echo "host exit $host_ok, guest exit $ok"
	cat "$OUT/$name.host.log" "$OUT/$name.guest.log"
	log_has "$OUT/$name.host.log" 'return status 0' && log_has "$OUT/$name.guest.log" 'return status 0' || ok=1
	[ $host_ok = 0 ] && [ $ok = 0 ]
}

scen_ucmatose_v4_guest_server() { ucmatose_scenario ucmatose_v4_guest_server server; }
scen_ucmatose_v4_guest_client() { ucmatose_scenario ucmatose_v4_guest_client client; }
scen_ucmatose_loss_guest_server() {
	ucmatose_scenario ucmatose_loss_guest_server server "$UCMATOSE_LOSS_CONNS" "$NETEM_CM_LOSS"
}
scen_ucmatose_loss_guest_client() {
	ucmatose_scenario ucmatose_loss_guest_client client "$UCMATOSE_LOSS_CONNS" "$NETEM_CM_LOSS"
}

# ---- udaddy: UD over SIDR, Debian's unmodified udaddy through the drop-in layer ----

UDADDY_CONNS=4               # -c: UD ids at once, each resolved by its own SIDR_REQ
UDADDY_REJECT_SIZE=5000      # -S above any active MTU: udaddy's server rejects (rdma_reject)
# The layer's logs: "listens on" (a server is ready), the CM's transitions.
UDADDY_EAL="--log-level=lib.roce.verbs:info --log-level=lib.roce.cm:debug"

# The guest's udaddy in role $2 against ours over IPv$3: UDADDY_CONNS UD ids
# resolved by SIDR, 10 SENDs with immediate of 100 B each way on each (the
# server answers through AHs made from the requests' GRHs); both sides must
# end with "return status 0". udaddy's port is fixed (7174).
udaddy_scenario() {
	local name=$1 role=$2 ipver=$3 opts

	dropin_skip udaddy && return 77
	dropin_prefix inline "$UDADDY_EAL"
	rping_addrs "$ipver"
	opts="-c $UDADDY_CONNS"
	CMA_HOST=("${DROPIN[@]}" udaddy)
	cmatose_pair "$name" "$role" "stdbuf -oL udaddy -b $RP_GUEST$RP_SCOPE $opts" \
		"-s $RP_GUEST -b $RP_HOST $opts" "stdbuf -oL udaddy -s $RP_HOST$RP_SCOPE $opts" \
		"-b $RP_HOST $opts" 'listens on'
}

scen_udaddy_v4_guest_server() { udaddy_scenario udaddy_v4_guest_server server 4; }
scen_udaddy_v4_guest_client() { udaddy_scenario udaddy_v4_guest_client client 4; }
scen_udaddy_v6_guest_server() { udaddy_scenario udaddy_v6_guest_server server 6; }
scen_udaddy_v6_guest_client() { udaddy_scenario udaddy_v6_guest_client client 6; }

# Our SIDR_REQ for a service nobody serves in the guest: its kernel CM answers
# SIDR_REP status 1 (service ID not supported), our udaddy prints UNREACHABLE
# with it and exits 1, as against Linux.
scen_udaddy_unsupported_by_guest() {
	dropin_skip udaddy && return 77
	dropin_prefix inline "$UDADDY_EAL"
	host_fails_with udaddy_unsupported_by_guest 'RDMA_CM_EVENT_UNREACHABLE, error: 1$' \
		"${DROPIN[@]}" udaddy -s "$GUEST_IP" -b "$ROCE_IP"
}

# Our udaddy server refuses the guest's request (its message size is above the
# active MTU): rdma_reject, our SIDR_REP status 2 (rejected); the guest's
# udaddy prints UNREACHABLE with it.
scen_udaddy_rejected_by_host() {
	local name=udaddy_rejected_by_host

	dropin_skip udaddy && return 77
	dropin_prefix inline "$UDADDY_EAL"
	guest_fails_with "$name" 'listens on' "stdbuf -oL udaddy -s $ROCE_IP" \
		'RDMA_CM_EVENT_UNREACHABLE, error: 2$' \
		"${DROPIN[@]}" udaddy -b "$ROCE_IP" -S "$UDADDY_REJECT_SIZE" &&
		log_has "$OUT/$name.host.log" 'udaddy: failing connection request'
}

# ---- rdma_cm failure paths against the kernel's CM --------------------------------

RPING_NOBODY_PORT=7175       # no listener on either side
RPING_NOBODY_IP=198.18.0.99  # on the link, owned by nobody
# Short CM timeouts where a REQ or a DREQ must go unanswered: 4.096 us * 2^17
# = 0.54 s, 2 retries, so it is given up after ~1.6 s instead of ~70 s.
RPING_SHORT_CM=(--cm-timeout 17 --cm-retries 2)
RPING_RUN_S=3                # how long a connection runs before its peer goes

# Our rping in the foreground with the usual EAL and port arguments.
rping_host() {
	timeout "$HOST_TIMEOUT_S" "$(rping_bin)" "${EAL_ARGS[@]}" "${RPING_EAL[@]}" -- \
		--ip "$ROCE_IP/$PREFIX_LEN" "$@"
}

# $1 (a log) has line $2, or say so.
log_has() {
	grep -q -- "$2" "$1" && return 0
	echo "expected in $(basename "$1"): $2"
	return 1
}

# A host command (after $1, the scenario, and $2, a line) that must fail and
# print that line.
host_fails_with() {
	local name=$1 line=$2 rc=0

	shift 2
	"$@" >"$OUT/$name.host.log" 2>&1 && rc=1
	cat "$OUT/$name.host.log"
	log_has "$OUT/$name.host.log" "$line" || rc=1
	return $rc
}

# A guest command ($3) that must fail and print line $4 against a host server
# (the rest) started first and ready once its log has line $2 (waited for as
# long as the slowest start, the drop-in layer's); the server is stopped if
# it is still there.
guest_fails_with() {
	local name=$1 ready=$2 cmd=$3 line=$4

	shift 4
	"$@" >"$OUT/$name.host.log" 2>&1 &
	PEER_PID=$!
	host_log_wait "$name" "$ready" "$DROPIN_START_S" || { cat "$OUT/$name.host.log"; return 1; }
	# What the guest knew of our address from an earlier scenario's program goes.
	gx "ip neigh flush dev eth0" || return 1
	guest_bg "$name" "$cmd"
	guest_bg_wait "$name" 60 && { echo "the guest's command succeeded"; return 1; }
	peer_stop
	cat "$OUT/$name.host.log" "$OUT/$name.guest.log"
	log_has "$OUT/$name.guest.log" "$line"
}

rping_skip() {
	[ -x "$(rping_bin)" ] && return 1
	SKIP_REASON="examples/rping is not built"
}

# Our REQ to a port the guest does not listen on: its CM rejects it with
# reason 8 (invalid service ID), our rping prints REJECTED with it, exit 1.
scen_rping_rejected_by_guest() {
	rping_skip && return 77
	host_fails_with rping_rejected_by_guest 'cma event RDMA_CM_EVENT_REJECTED, error 8$' \
		rping_host -c -a "$GUEST_IP" -p "$RPING_NOBODY_PORT" -C 1
}

# The guest's REQ to a port we do not listen on (our rping listens on another):
# our CM rejects it with reason 8, the guest's rping prints REJECTED.
scen_rping_rejected_by_host() {
	rping_skip && return 77
	guest_fails_with rping_rejected_by_host 'listening on' \
		"rping -c -a $ROCE_IP -p $RPING_NOBODY_PORT -C 1" \
		'cma event RDMA_CM_EVENT_REJECTED, error 8$' \
		rping_host -s -a "$ROCE_IP" -p "$RPING_PORT" --timeout 60
}

# An address nobody has: its ARP requests go unanswered and rdma_resolve_addr()
# gives up after rping's 2 s: ADDR_ERROR with -ETIMEDOUT (-110), as Linux's
# rping reports it; no REQ is sent.
scen_rping_unreachable() {
	rping_skip && return 77
	host_fails_with rping_unreachable 'cma event RDMA_CM_EVENT_ADDR_ERROR, error -110$' \
		rping_host -c -a "$RPING_NOBODY_IP" -C 1 "${RPING_SHORT_CM[@]}"
}

# The guest's rping server goes away in the middle of our endless ping ($2:
# killed, so its kernel sends a DREQ; lost, its link dropping everything);
# more arguments go to our rping.
rping_peer_gone() {
	local name=$1 how=$2 rc=0

	shift 2
	rping_skip && return 77
	gx "ip neigh flush dev eth0" || return 1
	guest_bg "$name" "rping -s -a $GUEST_IP -V"
	guest_cm_listening || return 1
	rping_host -c -a "$GUEST_IP" -C 0 -V "${RPING_SHORT_CM[@]}" "$@" >"$OUT/$name.host.log" 2>&1 &
	PEER_PID=$!
	sleep "$RPING_RUN_S"
	if [ "$how" = killed ]; then
		gx "kill -9 -- -\$(cat /tmp/$name.pid)" || rc=1
	else
		gx "tc qdisc replace dev eth0 root netem loss 100%" || rc=1
	fi
	peer_wait
	echo "host exit $?"
	if [ "$how" = lost ]; then
		# Its rping may have ended by itself (its own retries exhausted).
		gx "tc qdisc del dev eth0 root; kill -9 -- -\$(cat /tmp/$name.pid) 2>/dev/null; true" ||
			rc=1
	fi
	cat "$OUT/$name.host.log"
	log_has "$OUT/$name.host.log" 'client DISCONNECT EVENT' || rc=1
	return $rc
}

# Killed: the kernel's CM sends a DREQ for the ids of the dead process; we
# answer, print DISCONNECTED and end with success, as rping does.
scen_rping_guest_killed() {
	rping_peer_gone rping_guest_killed killed || return 1
	grep -q 'rping client failed' "$OUT/rping_guest_killed.host.log" && return 1
	return 0
}

# Lost: the guest's next message never comes (our last one was ACKed, so
# nothing of ours retries), our rping gives up after --timeout, disconnects,
# its DREQ goes unanswered (the guest's MAC expires too: the port drops it)
# and DISCONNECTED comes after the DREQ's last retry (exit 1: it failed).
RPING_LOST_WAIT_S=8
scen_rping_guest_lost() {
	local log=$OUT/rping_guest_lost.host.log

	rping_peer_gone rping_guest_lost lost --timeout "$RPING_LOST_WAIT_S" || return 1
	log_has "$log" "timeout waiting for" && log_has "$log" 'ESTABLISHED -> DREQ_SENT' &&
		log_has "$log" 'DREQ_SENT -> TIMEWAIT'
}

# ---- perftest: roce_perf against the guest's ib_*_bw / ib_*_lat ----------------

ROCE_PERF=$BUILD/app/roce_perf/roce_perf
PERF_BW_SIZE=65536          # perftest's BW default
PERF_LAT_SIZE=2             # and LAT default (atomics: always 8)
PERF_ITERS=200              # short: the guest runs under TCG
PERF_BW_RATIO_MAX=2         # our and the tool's bandwidth agree within this factor
PERF_LISTEN_S=60            # a host server listens on TCP once its device is up

# Both sides' results of one perftest scenario: the tool's result row (size,
# iterations and, for BW, the average MB/s; LAT: t_avg in usec) against the
# host's: roce_perf's JSON, or the same tool's row when the host ran it
# through the layer (drop-in). In LAT mode the passive side has no result: the
# guest's ib_read_lat/ib_atomic_lat server prints none, and neither does a
# roce_perf server (it measures nothing); the side that measured must be
# there. Exit 1 with the reason when they do not agree.
perf_compare() {
	python3 - "$@" <<'PYEOF'
import json, sys
mode, size, iters, guest_log, host_log, ratio_max, role = sys.argv[1:8]
size, iters, ratio_max = int(size), int(iters), float(ratio_max)

def tool_row(path):
    row = None
    lines = open(path).read().splitlines()
    for i, l in enumerate(lines):
        if l.strip().startswith("#bytes") and i + 1 < len(lines) and len(lines[i + 1].split()) >= 5:
            row = lines[i + 1].split()
    return row

row = tool_row(guest_log)
js = [json.loads(l) for l in open(host_log) if l.startswith("{")]
j = js[-1] if js else None
host = "roce_perf"
hrow = None if js else tool_row(host_log)
if hrow:
    host = "host tool"
    j = {"size": int(hrow[0]), "iters": int(hrow[1]),
         "bw_gbps": float(hrow[3]) * 8 / 1e3 if mode == "bw" else 0,
         "lat_us": {"avg": float(hrow[5]) if mode == "lat" else None}}
print("tool: %s" % (" ".join(row) if row else "(no result row)"))
if j:
    print("%s: size %d iters %d bw %.4f Gbit/s lat_us avg %s" %
          (host, j["size"], j["iters"], j.get("bw_gbps", 0), j.get("lat_us", {}).get("avg")))
else:
    print("%s: (no result)" % host)
# Who must have results: both in BW; in LAT the client, and a guest server that
# answers (write/send ping-pong) too.
need_row = mode == "bw" or role == "client" or "_write_lat_" in guest_log or "_send_lat_" in guest_log
need_json = mode == "bw" or role == "server"
if need_row and row is None:
    sys.exit("no result row in the tool's output")
if need_json and j is None:
    sys.exit("no result from the host")
if row and (int(row[0]) != size or int(row[1]) != iters):
    sys.exit("tool ran %s x %s, not %d x %d" % (row[0], row[1], size, iters))
if j and (j["size"] != size or j["iters"] != iters):
    sys.exit("%s ran %d x %d, not %d x %d" % (host, j["size"], j["iters"], size, iters))
if mode == "bw":
    tool_mbs, ours_mbs = float(row[3]), j["bw_gbps"] * 1e3 / 8
    if tool_mbs <= 0 or ours_mbs <= 0 or not (1 / ratio_max <= ours_mbs / tool_mbs <= ratio_max):
        sys.exit("bandwidth: tool %.3f MB/s, %s %.3f MB/s" % (tool_mbs, host, ours_mbs))
    print("bandwidth agrees: tool %.3f MB/s, %s %.3f MB/s" % (tool_mbs, host, ours_mbs))
elif (row and float(row[5]) <= 0) or (j and j["lat_us"]["avg"] is not None and j["lat_us"]["avg"] <= 0):
    sys.exit("latency missing")
PYEOF
}

# $2 = ib_X_bw or ib_X_lat in the guest, $3 = its role (server|client); the
# host runs PERF_HOST with the tool's options and, as the client, the
# guest's address. $4 = cm: both with -R, perftest's rdma_cm mode (the
# exchange over an RC QP and the test's QPs, all connected by the CMs; the
# guest's server seen listening in its rdma_cm ids, ours by its line),
# addressed by their RoCE addresses.
perftest_run() {
	local name=$1 tool=$2 role=$3 cm=${4:-} mode size opts gopts host_ok=0 ok=0

	mode=${tool##*_}
	size=$PERF_BW_SIZE
	[ "$mode" = lat ] && size=$PERF_LAT_SIZE
	[[ "$tool" = ib_atomic_* ]] && size=8
	opts=(-n "$PERF_ITERS" -p "$OOB_PORT")
	[[ "$tool" = ib_atomic_* ]] || opts+=(-s "$size")
	gopts="-d rxe0 -x $GID_V4"
	[ "$cm" = cm ] && { opts+=(-R); gopts="-d rxe0"; }
	gx "ip neigh flush dev eth0" || return 1
	if [ "$role" = server ]; then
		guest_bg "$name" "$tool $gopts ${opts[*]}"
		if [ "$cm" = cm ]; then guest_cm_listening; else guest_listening "$OOB_PORT"; fi ||
			return 1
		"${PERF_HOST[@]}" "${opts[@]}" "$GUEST_IP" \
			>"$OUT/$name.host.log" 2>"$OUT/$name.host.err" || host_ok=1
	else
		"${PERF_HOST[@]}" "${opts[@]}" >"$OUT/$name.host.log" 2>"$OUT/$name.host.err" &
		PEER_PID=$!
		for _ in $(seq $((PERF_LISTEN_S * 10))); do
			if [ "$cm" = cm ]; then
				grep -q 'roce_perf: -R: listening' "$OUT/$name.host.err" 2>/dev/null && break
			else
				ss -ltn | grep -q ":$OOB_PORT " && break
			fi
			kill -0 "$PEER_PID" 2>/dev/null || break
			sleep 0.1
		done
		if [ "$cm" = cm ]; then
			guest_bg "$name" "$tool $gopts ${opts[*]} $ROCE_IP"
		else
			guest_bg "$name" "$tool $gopts ${opts[*]} $BR_IP"
		fi
		peer_wait || host_ok=1
	fi
	guest_bg_wait "$name" "$(guest_wait_s $host_ok 120)" || ok=1
	echo "host exit $host_ok, guest exit $ok"
	cat "$OUT/$name.host.log" "$OUT/$name.host.err" "$OUT/$name.guest.log"
	[ $host_ok = 0 ] && [ $ok = 0 ] || return 1
	perf_compare "$mode" "$size" "$PERF_ITERS" "$OUT/$name.guest.log" "$OUT/$name.host.log" \
		"$PERF_BW_RATIO_MAX" "$role"
}

# roce_perf on the host.
perftest() {
	[ -x "$ROCE_PERF" ] || { SKIP_REASON="app/roce_perf is not built"; return 77; }
	PERF_HOST=(timeout "$HOST_TIMEOUT_S" "$ROCE_PERF" "${EAL_ARGS[@]}" -- --ip "$ROCE_IP/$PREFIX_LEN"
		   --test "${2#ib_}" --json)
	perftest_run "$@"
}

# The same Debian tool on the host, unmodified, through the layer. A BW
# server waits in a TCP read while the client's operations land: a worker
# makes progress there; the other roles poll their CQ (inline progress).
perftest_dropin() {
	local progress=inline

	dropin_skip "$2" && return 77
	[ "$3" = client ] && [[ "$2" = *_bw ]] && progress=worker
	dropin_prefix "$progress"
	PERF_HOST=("${DROPIN[@]}" "$2" -d roce0 -x 1)
	perftest_run "$@"
}

PERF_TOOLS=(ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw ib_write_lat ib_send_lat ib_read_lat
	    ib_atomic_lat)
for t in "${PERF_TOOLS[@]}"; do
	for r in server client; do
		eval "scen_perftest_${t#ib_}_guest_$r() { perftest perftest_${t#ib_}_guest_$r $t $r; }"
	done
done
# -R: perftest's rdma_cm mode against roce_perf -R (no atomics: as the issue asks)
PERF_CM_TOOLS=(ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat ib_send_lat)
for t in "${PERF_CM_TOOLS[@]}"; do
	for r in server client; do
		eval "scen_perftest_cm_${t#ib_}_guest_$r() {
			perftest perftest_cm_${t#ib_}_guest_$r $t $r cm; }"
	done
done
# The drop-in layer with Debian's perftest on both sides.
DROPIN_PERF_TOOLS=(ib_write_bw ib_send_lat)
for t in "${DROPIN_PERF_TOOLS[@]}"; do
	for r in server client; do
		eval "scen_perftest_dropin_${t#ib_}_guest_$r() {
			perftest_dropin perftest_dropin_${t#ib_}_guest_$r $t $r; }"
	done
done

# ---- memory windows, invalidation, ATOMIC_WRITE and FLUSH: verbs_peer both sides ------

# tests/interop/verbs_peer.c: one plain libibverbs program, natively on the
# guest's rxe0 and on the host through the drop-in layer (dropin_prefix, with
# a worker lcore: the target waits in a TCP read while the initiator's
# requests arrive). GID index 1 is the IPv4 GID on both.
VERBS_PEER=$BUILD/tests/interop/verbs_peer
VP_PORT=18516
VP_GUEST_BIN=/tmp/verbs_peer
VP_TIMEOUT_S=120
MW_CASES=(mw1_rw mw2_rw mw2_bounds mw2_rights mw2_send_inv mw2_local_inv)
# rxe as the target: not mw2_bounds. rxe checks a window's key, PD, QP, rights
# and state (rxe_mw.c, rxe_lookup_mw) and then the range against the MR only
# (rxe_resp.c, check_rkey: mr_check_range), not against the window's own
# range (IBA 10.6.7): a WRITE across the window's end, inside its MR,
# succeeds there (doc/memory-windows.md, "Against kernel rxe").
# rxe's receive completion of a SEND with Invalidate carries the kernel's
# flag (verbs_peer -k). rxe's type 2 window holds its QP until invalidated or
# freed: verbs_peer frees its windows before its QPs (doc/interop.md, "rxe
# waits for a window's QP").
MW_RXE_TARGET_CASES=(mw1_rw mw2_rw mw2_rights mw2_send_inv mw2_local_inv)
# FLUSH toward rxe with the quirk_rxe_flush_icrc device key: rxe checks a
# FLUSH's ICRC over its headers twice (doc/interop.md, "rxe's FLUSH ICRC").
A19_HOST_CASES=(atomic_write flush_global flush_persistent)
A19_GUEST_CASES=(atomic_write)

# The host's verbs_peer through the drop-in layer.
vp_host() {
	dropin_prefix worker
	"${DROPIN[@]}" "$VERBS_PEER" -d roce0 -g "$GID_V4" -p "$VP_PORT" "$@"
}

# The same binary in the guest (its libibverbs is Debian's rdma-core 44 too),
# copied over the command channel once per boot, without its debugging
# information (a third of the size).
vp_guest_put() {
	gx "[ -x $VP_GUEST_BIN ]" >/dev/null 2>&1 && return 0
	strip --strip-debug -o "$RUN/verbs_peer" "$VERBS_PEER" || return 1
	{ echo "base64 -d > $VP_GUEST_BIN <<'VP_EOF'"; base64 "$RUN/verbs_peer"; echo VP_EOF
	  echo "chmod +x $VP_GUEST_BIN"; } | gx -t 120 - >/dev/null
}

# verbs_peer with the guest as target ($2 = guest) or the host, cases $3...;
# both sides must end with "all cases ok".
verbs_peer_scenario() {
	local name=$1 target=$2 host_ok=0 ok=0 gcmd con0

	shift 2
	dropin_skip "$VERBS_PEER" && return 77
	vp_guest_put || { echo "cannot copy verbs_peer into the guest"; return 1; }
	# rxe's own account of what it refuses or drops (rxe_dbg_*: dynamic
	# debug), kept in NAME.dmesg. Kernel warnings (level 4) and worse also go
	# to the serial console, which qemu logs on the host: they survive a
	# guest that stops answering (NAME.console.log).
	con0=$(wc -l < "$RUN/console.log")
	gx "ip neigh flush dev eth0; dmesg -C; dmesg -n 5
		mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
		echo 'module rdma_rxe +p' > /sys/kernel/debug/dynamic_debug/control" || return 1
	gcmd="$VP_GUEST_BIN -d rxe0 -g $GID_V4 -p $VP_PORT"
	if [ "$target" = guest ]; then
		guest_bg "$name" "$gcmd -k $*"
		guest_listening "$VP_PORT" || return 1
		vp_host -c "$GUEST_IP" "$@" >"$OUT/$name.host.log" 2>&1 || host_ok=1
	else
		vp_host "$@" >"$OUT/$name.host.log" 2>&1 &
		PEER_PID=$!
		host_log_wait "$name" 'listening on port' && guest_bg "$name" "$gcmd -c $BR_IP $*"
		peer_wait || host_ok=1
	fi
	guest_bg_wait "$name" "$(guest_wait_s $host_ok "$VP_TIMEOUT_S")" || ok=1
	echo "host exit $host_ok, guest exit $ok"
	echo "--- host (librte_roce through roce-run)"; cat "$OUT/$name.host.log"
	echo "--- guest (rxe)"; cat "$OUT/$name.guest.log"
	log_has "$OUT/$name.host.log" 'all cases ok' && log_has "$OUT/$name.guest.log" 'all cases ok' ||
		ok=1
	vp_guest_kernel_log "$name" "$con0"
	[ $host_ok = 0 ] && [ $ok = 0 ] && return 0
	echo "--- guest kernel log (tail; all of it in $OUT/$name.dmesg)"
	grep -v 'state = ' "$OUT/$name.dmesg" | tail -n 80
	return 1
}

# The guest kernel's log of scenario $1 into NAME.dmesg, and what its console
# printed from line $2 on (warnings, oopses) into NAME.console.log and here.
vp_guest_kernel_log() {
	local name=$1 con0=$2

	gx -t 60 dmesg > "$OUT/$name.dmesg" 2>&1 || echo "the guest does not answer (dmesg)"
	# The kernel's lines only, not the shell prompt the console also shows.
	tail -n +"$((con0 + 1))" "$RUN/console.log" | tr -d '\r' | grep -ao '\[ *[0-9]*\.[0-9]*\] .*' \
		> "$OUT/$name.console.log"
	[ -s "$OUT/$name.console.log" ] || return 0
	echo "--- guest console (kernel warnings and errors)"
	cat "$OUT/$name.console.log"
}

# roce_dump's decoding of the capture of $1 has a line matching each
# extended regular expression $2...: the fields of the operations under test,
# as the other side put them on the wire.
dump_shows() {
	local name=$1 re ok=0

	shift
	"$ROCE_DUMP" "$OUT/$name.pcap" > "$OUT/$name.dump" 2>&1
	for re in "$@"; do
		if grep -Eq -- "$re" "$OUT/$name.dump"; then
			echo "roce_dump: $(grep -Em1 -- "$re" "$OUT/$name.dump")"
		else
			echo "roce_dump shows no line matching: $re"
			ok=1
		fi
	done
	return $ok
}

# The rkey that the SEND with Invalidate named, as the initiator printed it
# (the guest, when we bind).
vp_inv_rkey() {
	sed -n 's/^SEND_WITH_INV of rkey 0x\([0-9a-f]*\):.*/\1/p' "$1" | head -1
}

# The first 8 bytes of verbs_peer's data of seed 1 (vp_pattern), as an
# ATOMIC_WRITE carries them (A19: in memory order).
VP_ATOMIC_DATA=1f262d343b424950

mw_scenario() {
	local name=$1 target=$2 cases=("${MW_RXE_TARGET_CASES[@]}") shows rkey

	[ "$target" = host ] && cases=("${MW_CASES[@]}")
	verbs_peer_scenario "$name" "$target" "${cases[@]}" || return 1
	shows=("RC_ACKNOWLEDGE .* NAK remote_access_error")
	if [ "$target" = host ]; then
		rkey=$(vp_inv_rkey "$OUT/$name.guest.log")
	else
		rkey=$(vp_inv_rkey "$OUT/$name.host.log")
	fi
	[ -n "$rkey" ] && shows+=("RC_SEND_ONLY_WITH_INVALIDATE .* inv_rkey 0x0*$rkey( |$)")
	dump_shows "$name" "${shows[@]}"
}
scen_mw_guest_binds() { mw_scenario mw_guest_binds guest; }
scen_mw_host_binds() { mw_scenario mw_host_binds host; }
# rxe of Linux 6.12 as the target, the invalidations included.
scen_mw_guest_binds_612() { mw_scenario mw_guest_binds_612 guest; }
# Linux 6.2+ (the bookworm-backports guest, BACKPORTS_KERNEL): our ATOMIC_WRITE and
# FLUSH to rxe's responder, and rxe's ATOMIC_WRITE (rdma-core 44's rxe
# provider has ibv_wr_atomic_write) to ours.
# Our FLUSHes carry rxe's ICRC (quirk_rxe_flush_icrc): capture_check wants
# roce_dump to find it on the three of them (one per FLUSH case, more if
# retransmitted).
scen_a19_host_to_guest() {
	local rc

	DROPIN_CONF_KEYS=("quirk_rxe_flush_icrc = yes")
	ICRC_RXE_FLUSH_MIN=3
	verbs_peer_scenario a19_host_to_guest guest "${A19_HOST_CASES[@]}" &&
		dump_shows a19_host_to_guest "RC_ATOMIC_WRITE .* data 0x$VP_ATOMIC_DATA"
	rc=$?
	DROPIN_CONF_KEYS=()
	return $rc
}
scen_a19_guest_to_host() {
	verbs_peer_scenario a19_guest_to_host host "${A19_GUEST_CASES[@]}" &&
		dump_shows a19_guest_to_host "RC_ATOMIC_WRITE .* data 0x$VP_ATOMIC_DATA"
}

# The guest kernel each scenario needs: bookworm's (6.1) unless listed here.
BACKPORTS_KERNEL=bookworm-backports
BACKPORTS_SCENARIOS=(a19_host_to_guest a19_guest_to_host mw_guest_binds_612)
scenario_kernel() {
	local s

	for s in "${BACKPORTS_SCENARIOS[@]}"; do
		[ "$s" = "$1" ] && { echo "$BACKPORTS_KERNEL"; return; }
	done
	echo "$SUITE"
}

# Scenario, then the least number of good RoCEv2 frames its capture must hold.
SCENARIOS=(
	guest_rxe 0
	arp_nd_ping 0
	rdma_cm_req 1
	ud_raw_v4_guest_server $((2 * UD_ITERS))
	ud_raw_v4_guest_client $((2 * UD_ITERS))
	ud_raw_v6_guest_server $((2 * UD_ITERS))
	ud_raw_v6_guest_client $((2 * UD_ITERS))
	ud_raw_mtu4096 $((2 * UD_ITERS))
	neigh_probe_v4 $((2 * NEIGH_ITERS))
	neigh_probe_v6 $((2 * NEIGH_ITERS))
	rc_pingpong_v4_guest_server 1
	rc_pingpong_v4_guest_client 1
	rc_pingpong_v6_guest_server 1
	rc_pingpong_v6_guest_client 1
	rc_pingpong_mtu4096_v4_guest_server 1
	rc_pingpong_mtu4096_v4_guest_client 1
	rc_pingpong_mtu4096_v6_guest_server 1
	rc_pingpong_mtu4096_v6_guest_client 1
	rc_pingpong_loss 1
	rc_pingpong_reorder 1
	rc_pingpong_dup 1
	rc_pingpong_fault_guest_server 1
	rc_pingpong_fault_guest_client 1
	rc_pingpong_fault_netem 1
	ud_pingpong_v4_guest_server 1
	ud_pingpong_v4_guest_client 1
	ud_pingpong_v6_guest_server 1
	ud_pingpong_v6_guest_client 1
	uc_pingpong_v4_guest_server 1
	uc_pingpong_v4_guest_client 1
	srq_pingpong_v4_guest_server 1
	srq_pingpong_v4_guest_client 1
	rping_v4_guest_server 1
	rping_v4_guest_client 1
	rping_v6_guest_server 1
	rping_v6_guest_client 1
	rping_rejected_by_guest 1
	rping_rejected_by_host 1
	rping_unreachable 0
	rping_guest_killed 1
	rping_guest_lost 1
	ucmatose_v4_guest_server 1
	ucmatose_v4_guest_client 1
	ucmatose_loss_guest_server 1
	ucmatose_loss_guest_client 1
	udaddy_v4_guest_server 1
	udaddy_v4_guest_client 1
	udaddy_v6_guest_server 1
	udaddy_v6_guest_client 1
	udaddy_unsupported_by_guest 1
	udaddy_rejected_by_host 1
	nvmf_v4_guest_host 1
	nvmf_srq_v4_guest_host 1
	nvmf_v6_guest_host 1
	nvmf_spdk_v4_guest_host 1
	mw_guest_binds 10
	mw_host_binds 10
	mw_guest_binds_612 10
	a19_host_to_guest 2
	a19_guest_to_host 2
)
for t in "${PERF_TOOLS[@]}"; do
	SCENARIOS+=("perftest_${t#ib_}_guest_server" 1 "perftest_${t#ib_}_guest_client" 1)
done
for t in "${PERF_CM_TOOLS[@]}"; do
	SCENARIOS+=("perftest_cm_${t#ib_}_guest_server" 1 "perftest_cm_${t#ib_}_guest_client" 1)
done
for t in "${DROPIN_PERF_TOOLS[@]}"; do
	SCENARIOS+=("perftest_dropin_${t#ib_}_guest_server" 1 "perftest_dropin_${t#ib_}_guest_client" 1)
done
SCENARIOS+=(rping_dropin_v4_guest_server 1 rping_dropin_v4_guest_client 1)

# ROCE_INTEROP_SUBSET=ci (.ci/run): what CI's budget affords, a few minutes
# on its 2 cores: the basics, the neighbour probes, RC both roles at both MTUs, RC under the
# guest's impairments (netem) and ours (--fault, in the role where the guest's
# last ACK can be lost: final_ack_dropped), UD both ways, perftest in both
# roles, rdma_cm (rping) in both roles and both IP versions, the Linux
# NVMe-oF host (nvme-cli) against roce_nvmf, rxe's accesses through our
# memory windows and its invalidations (mw_host_binds, about 25 s), and the
# drop-in layer with Debian's unmodified tools on the host (roce-run): an
# ib_send_lat client against the guest's server, an rping server against the
# guest's client (200 pings of 64 B, 3 of 64 KiB; the guest's rxe is then
# never the requester of a multi-packet message, the role in which its early
# retransmission failed perftest_dropin_write_bw_guest_client once, doc/interop.md).
# Not BACKPORTS_SCENARIOS: they need a second guest image (about 10 minutes
# to build on a loaded machine) and boot (about a minute).
# The full suite (the default) runs everything above.
CI_SCENARIOS=(guest_rxe arp_nd_ping rdma_cm_req ud_raw_v4_guest_client neigh_probe_v4
	rc_pingpong_v4_guest_server rc_pingpong_v6_guest_client
	rc_pingpong_mtu4096_v4_guest_client rc_pingpong_loss
	rc_pingpong_fault_guest_client
	ud_pingpong_v4_guest_server ud_pingpong_v6_guest_client
	perftest_write_bw_guest_server perftest_send_lat_guest_client
	rping_v4_guest_server rping_v6_guest_client nvmf_v4_guest_host mw_host_binds
	perftest_dropin_send_lat_guest_server rping_dropin_v4_guest_client)

# ---- main -----------------------------------------------------------------------

skip_all() {
	if [ "${ROCE_INTEROP_REQUIRE:-0}" = 1 ]; then
		echo "Bail out! $1 (ROCE_INTEROP_REQUIRE=1)"
		exit 1
	fi
	echo "1..0 # SKIP $1"
	exit 0
}

run_scenario() {
	local num=$1 name=$2 min=$3 t0 rc

	t0=$(now)
	SKIP_REASON=
	CORRUPTED=0
	ICRC_RXE_FLUSH_MIN=0
	FINAL_ACK_CLAIMS=
	KX_LOG=
	capture_start "$name" || { echo "not ok $num - $name # no capture"; return 1; }
	"scen_$name" > "$OUT/$name.txt" 2>&1
	rc=$?
	# A host program still running (the scenario failed before it was
	# stopped) must not answer the next scenario's peer for our address.
	peer_stop >> "$OUT/$name.txt" 2>&1
	capture_stop
	[ $rc = 0 ] && [ -n "$FINAL_ACK_CLAIMS" ] && { final_ack_check "$name" >> "$OUT/$name.txt" 2>&1 || rc=1; }
	if [ $rc = 77 ]; then
		echo "ok $num - $name # SKIP $SKIP_REASON"
		return 0
	fi
	[ $rc = 0 ] && { capture_check "$name" "$min" >> "$OUT/$name.txt" 2>&1 || rc=1; }
	[ $rc = 0 ] && [ -n "$VEC_DIR" ] && { kx_keep "$name" "$VEC_DIR" || rc=1; }
	sed 's/^/# /' "$OUT/$name.txt"
	if [ $rc = 0 ]; then
		echo "ok $num - $name ($(elapsed "$t0") s)"
	else
		echo "not ok $num - $name ($(elapsed "$t0") s; $OUT/$name.txt)"
	fi
	return $rc
}

# The guest image of kernel suite $1 (build-guest.sh), booted: the guest that
# runs now, if any, is stopped first. $2 = 2: a second guest (vectors only).
guest_up() {
	local kernel=$1 guests=$2 image t0 sfx=''

	[ "$kernel" = "$SUITE" ] || sfx=-$kernel
	t0=$(now)
	image=$("$INTEROP_DIR/build-guest.sh" "$kernel" 2>"$OUT/build-guest$sfx.log") ||
		{ cat "$OUT/build-guest$sfx.log" >&2; echo "Bail out! guest image build failed"; return 1; }
	log "guest image $image ($(tr '\n' ' ' < "$image/versions")) in $(elapsed "$t0") s"
	cp "$image/versions" "$OUT/versions$sfx"
	if [ -n "$QEMU_PID" ]; then
		guest_stop "$QEMU_PID" "$RUN/guest.ctl"
		QEMU_PID=
		rm -f "$RUN/console.log" "$RUN/guest.console" "$RUN/guest.ctl"
	fi
	guest_boot "$image" || { echo "Bail out! guest did not boot (see $OUT/console.log)"; return 1; }
	if [ "$guests" = 2 ]; then
		guest_boot "$image" 2 || { echo "Bail out! guest2 did not boot (see $OUT/console2.log)"; return 1; }
		mkdir -p "$VEC_DIR" && kx_header "$image" "$VEC_DIR"
	fi
}

# The lab for this run, until it exits: one run at a time machine-wide (the
# interface names are fixed), what a killed run left behind removed, and
# everything this run creates removed at its exit.
lab_take() {
	exec 9>"$CACHE/lock"
	# Another run (a second build dir, a developer's run beside CI) goes first.
	flock -w 900 9 || { echo "Bail out! another interop run held $CACHE/lock for 15 minutes"; exit 1; }
	# What a killed run (SIGKILL) left behind: its guest, by the PID it recorded.
	[ -f "$RUN/qemu.pid" ] && QEMU_PID=$(cat "$RUN/qemu.pid")
	[ -f "$RUN/qemu2.pid" ] && QEMU2_PID=$(cat "$RUN/qemu2.pid")
	teardown
	trap teardown EXIT
	trap 'exit 130' INT TERM
}

VEC_DIR=
main() {
	local wanted=("$@") i num=0 failed=0 t0 names=() guests=1 kernel group name

	if [ "${1:-}" = --record-vectors ]; then
		[ -n "${2:-}" ] && VEC_DIR=$(realpath -m "$2") ||
			{ echo "usage: run.sh --record-vectors DIR [--list | kx_NAME...]" >&2; exit 2; }
		shift 2
		wanted=("$@")
		SCENARIOS=("${KX_VECTORS[@]}")
		CAPTURE_FILTER="udp port 4791 or arp or icmp6"
		guests=2
	fi
	for ((i = 0; i < ${#SCENARIOS[@]}; i += 2)); do
		names+=("${SCENARIOS[$i]}")
	done
	if [ "${1:-}" = --list ]; then
		printf '%s\n' "${names[@]}"
		exit 0
	fi
	if [ "${1:-}" = --down ]; then
		[ -f "$RUN/qemu.pid" ] && QEMU_PID=$(cat "$RUN/qemu.pid")
		[ -f "$RUN/qemu2.pid" ] && QEMU2_PID=$(cat "$RUN/qemu2.pid")
		teardown
		exit 0
	fi
	if [ ${#wanted[@]} = 0 ] && [ "${ROCE_INTEROP_SUBSET:-full}" = ci ]; then
		wanted=("${CI_SCENARIOS[@]}")
	fi
	[ ${#wanted[@]} -gt 0 ] || wanted=("${names[@]}")

	[ "$(id -u)" = 0 ] || skip_all "needs root (bridge, tap, tcpdump)"
	for tool in qemu-system-x86_64 mmdebstrap tcpdump; do
		command -v "$tool" >/dev/null || skip_all "$tool missing: run devtools/install-interop-deps.sh"
	done
	[ -x "$PEER" ] && [ -x "$ROCE_DUMP" ] || skip_all "build first: $PEER, $ROCE_DUMP"
	mkdir -p "$OUT" "$CACHE"
	lab_take

	echo "1..${#wanted[@]}"
	t0=$(now)
	net_up "$guests" || { echo "Bail out! cannot create $BR/$TAP/$VETH"; exit 1; }
	# The scenarios of one guest kernel after the other: bookworm's, then
	# the backports one (BACKPORTS_SCENARIOS), each booted only if needed.
	for kernel in "$SUITE" "$BACKPORTS_KERNEL"; do
		group=()
		for name in "${wanted[@]}"; do
			[ "$(scenario_kernel "$name")" = "$kernel" ] && group+=("$name")
		done
		[ ${#group[@]} = 0 ] && continue
		guest_up "$kernel" "$guests" || exit 1
		for name in "${group[@]}"; do
			num=$((num + 1))
			for ((i = 0; i < ${#SCENARIOS[@]}; i += 2)); do
				[ "${SCENARIOS[$i]}" = "$name" ] && break
			done
			if [ $i -ge ${#SCENARIOS[@]} ]; then
				echo "not ok $num - $name # no such scenario"
				failed=1
				continue
			fi
			run_scenario "$num" "$name" "${SCENARIOS[$((i + 1))]}" || failed=1
		done
	done
	log "interop: $(elapsed "$t0") s in total; captures and logs in $OUT"
	if [ "${ROCE_INTEROP_KEEP:-0}" = 1 ]; then
		trap - EXIT
		log "guest and network left up (ROCE_INTEROP_KEEP=1): run.sh --down removes them"
	fi
	return $failed
}

# Sourced (devtools/pyverbs-reference.sh), it only defines the functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
fi
