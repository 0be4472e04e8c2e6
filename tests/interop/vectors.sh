# SPDX-License-Identifier: BSD-3-Clause
# Kernel-to-kernel captures for tests/vectors (sourced by run.sh):
#
#   run.sh --record-vectors DIR [kx_NAME...]    every vector by default
#   run.sh --record-vectors DIR --list          their names
#
# A second guest (GUEST2_IP on TAP2) is booted beside the first; unmodified
# rdma-core and perftest tools run between the two kernels' rdma_rxe, and
# RoCEv2 (UDP port 4791), ARP and ICMPv6 (neighbour discovery) are captured
# on TAP, the first guest's bridge port, which every frame between them
# crosses (not their TCP exchange). librte_roce takes no part:
# every frame is one the kernel built. Each capture must decode cleanly
# (roce_dump: no malformed frame, no bad ICRC) and hold what the vector is
# for (the KX_EXPECT tokens); then it is copied to DIR/NAME.pcap (without
# the kx_ prefix) and its command lines, frame count and the guest's package
# versions are written to DIR/recorded.txt. tests/vectors/README.md says
# what each one covers.

# Iteration counts keep each capture at a few hundred KiB at most.
KX_PP="-p $OOB_PORT"
KX_PERF="-d rxe0 -p $OOB_PORT"
# Loss and duplication on the second guest's egress (the requester's frames):
# the first guest's responder sees the PSN gaps and duplicates.
KX_LOSS="loss 3%"
KX_DUP="duplicate 5%"

# Vector, then the least number of good RoCEv2 frames its capture must hold
# (run_scenario's format).
KX_VECTORS=(
	kx_rc_pingpong 80
	kx_rc_pingpong_ipv6 40
	kx_rc_pingpong_mtu4096 40
	kx_uc_pingpong 40
	kx_ud_pingpong 40
	kx_ud_pingpong_ipv6 20
	kx_srq_pingpong 40
	kx_write_bw 80
	kx_rstream 80
	kx_read_bw 40
	kx_send_bw 80
	kx_atomic 40
	kx_rping 10
	kx_ucmatose 6
	kx_loss_write_bw 100
	kx_loss_send_bw 100
	kx_dup_rc_pingpong 80
	kx_rnr 20
)

# What each capture must show (roce_dump --json): op:0xNN (BTH opcode),
# aeth:KIND, cm:ATTR, ipv6 (every frame), big (a frame of IB MTU 4096).
declare -A KX_EXPECT=(
	[kx_rc_pingpong]="op:0x00 op:0x01 op:0x02 op:0x11"
	[kx_rc_pingpong_ipv6]="ipv6 op:0x04 op:0x11"
	[kx_rc_pingpong_mtu4096]="big op:0x00 op:0x02 op:0x11"
	[kx_uc_pingpong]="op:0x20 op:0x21 op:0x22"
	[kx_ud_pingpong]="op:0x64"
	[kx_ud_pingpong_ipv6]="ipv6 op:0x64"
	[kx_srq_pingpong]="op:0x04 op:0x11"
	[kx_write_bw]="op:0x06 op:0x07 op:0x08 op:0x11"
	[kx_rstream]="op:0x06 op:0x09 op:0x0b op:0x11 cm:REQ"
	[kx_read_bw]="op:0x0c op:0x0d op:0x0f"
	[kx_send_bw]="op:0x00 op:0x02 op:0x11"
	[kx_atomic]="op:0x13 op:0x14 op:0x12"
	[kx_rping]="cm:REQ cm:REP cm:RTU cm:DREQ cm:DREP op:0x0a op:0x0c"
	[kx_ucmatose]="cm:REQ cm:REP cm:RTU cm:DREQ cm:DREP"
	[kx_loss_write_bw]="aeth:psn_sequence_error op:0x06"
	[kx_loss_send_bw]="aeth:psn_sequence_error op:0x00"
	[kx_dup_rc_pingpong]="op:0x00 op:0x11"
	[kx_rnr]="aeth:rnr_nak op:0x04"
)

# The commands of each vector, for DIR/recorded.txt.
KX_LOG=

# One tool pair: $2 in the first guest (the server), then $3 in the second
# (the client); $4 = how to tell the server is ready: tcp (listens on
# OOB_PORT) or cm (an rdma_cm ID listens). $1 names the logs.
kx_pair() {
	local name=$1 srv=$2 cli=$3 ready=${4:-tcp} ok=0

	KX_LOG+="  first guest  (server, $GUEST_IP): $srv"$'\n'
	KX_LOG+="  second guest (client, $GUEST2_IP): $cli"$'\n'
	gx "ip neigh flush dev eth0" && on_guest2 gx "ip neigh flush dev eth0" || return 1
	guest_bg "$name.srv" "$srv"
	if [ "$ready" = cm ]; then
		gx "for i in \$(seq 100); do rdma res show cm_id | grep -q LISTEN && exit 0; sleep 0.1; done; exit 1" ||
			return 1
	else
		guest_listening "$OOB_PORT" || return 1
	fi
	on_guest2 guest_bg "$name.cli" "$cli"
	on_guest2 guest_bg_wait "$name.cli" 120 || ok=1
	guest_bg_wait "$name.srv" "$(guest_wait_s $ok 30)" || ok=1
	cat "$OUT/$name.srv.guest.log" "$OUT/$name.cli.guest.log"
	return $ok
}

# netem $1 on the second guest's egress while kx_pair ${@:2} runs.
kx_netem() {
	local spec=$1 ok=0

	shift
	KX_LOG+="  netem on the second guest's eth0 egress: $spec"$'\n'
	on_guest2 gx "tc qdisc replace dev eth0 root netem $spec" || return 1
	kx_pair "$@" || ok=1
	on_guest2 gx "tc -s qdisc show dev eth0; tc qdisc del dev eth0 root" || ok=1
	return $ok
}

# Ethernet MTU $1 on every link of both guests (rxe's active_mtu follows).
kx_mtu() {
	set_mtu "$1" && ip link set "$TAP2" mtu "$1" &&
		on_guest2 gx "ip link set eth0 mtu $1 && sleep 0.5 && ibv_devinfo -d rxe0 | grep active_mtu"
}

scen_kx_rc_pingpong() {
	kx_pair rc "ibv_rc_pingpong -d rxe0 -g $GID_V4 $KX_PP -s 4096 -n 10" \
		"ibv_rc_pingpong -d rxe0 -g $GID_V4 $KX_PP -s 4096 -n 10 $GUEST_IP"
}
scen_kx_rc_pingpong_ipv6() {
	kx_pair rc6 "ibv_rc_pingpong -d rxe0 -g $GID_V6 $KX_PP -s 1024 -n 10" \
		"ibv_rc_pingpong -d rxe0 -g $GID_V6 $KX_PP -s 1024 -n 10 $GUEST_IP"
}
scen_kx_rc_pingpong_mtu4096() {
	local ok=0

	KX_LOG+="  Ethernet MTU $JUMBO_MTU on both guests and the bridge (rxe active_mtu 4096)"$'\n'
	kx_mtu "$JUMBO_MTU" || return 1
	kx_pair rcj "ibv_rc_pingpong -d rxe0 -g $GID_V4 $KX_PP -m 4096 -s 8192 -n 5" \
		"ibv_rc_pingpong -d rxe0 -g $GID_V4 $KX_PP -m 4096 -s 8192 -n 5 $GUEST_IP" || ok=1
	kx_mtu "$DEFAULT_MTU" || ok=1
	return $ok
}
scen_kx_uc_pingpong() {
	kx_pair uc "ibv_uc_pingpong -d rxe0 -g $GID_V4 $KX_PP -s 4096 -n 10" \
		"ibv_uc_pingpong -d rxe0 -g $GID_V4 $KX_PP -s 4096 -n 10 $GUEST_IP"
}
scen_kx_ud_pingpong() {
	kx_pair ud "ibv_ud_pingpong -d rxe0 -g $GID_V4 $KX_PP -s 512 -n 20" \
		"ibv_ud_pingpong -d rxe0 -g $GID_V4 $KX_PP -s 512 -n 20 $GUEST_IP"
}
scen_kx_ud_pingpong_ipv6() {
	kx_pair ud6 "ibv_ud_pingpong -d rxe0 -g $GID_V6 $KX_PP -s 512 -n 10" \
		"ibv_ud_pingpong -d rxe0 -g $GID_V6 $KX_PP -s 512 -n 10 $GUEST_IP"
}
scen_kx_srq_pingpong() {
	kx_pair srq "ibv_srq_pingpong -d rxe0 -g $GID_V4 $KX_PP -q 4 -s 1024 -n 10" \
		"ibv_srq_pingpong -d rxe0 -g $GID_V4 $KX_PP -q 4 -s 1024 -n 10 $GUEST_IP"
}
scen_kx_write_bw() {
	kx_pair write "ib_write_bw $KX_PERF -x $GID_V4 -s 4096 -n 20" \
		"ib_write_bw $KX_PERF -x $GID_V4 -s 4096 -n 20 $GUEST_IP"
}
# rsockets moves data with RDMA WRITE with immediate (perftest 4.5 in
# bookworm has no --write_with_imm): rstream, 10 verified 4 KiB transfers.
scen_kx_rstream() {
	kx_pair rstream "rstream -b $GUEST_IP -S 4096 -C 10 -I 1 -T v" \
		"rstream -s $GUEST_IP -S 4096 -C 10 -I 1 -T v" cm
}
scen_kx_read_bw() {
	kx_pair read "ib_read_bw $KX_PERF -x $GID_V4 -s 2048 -n 20" \
		"ib_read_bw $KX_PERF -x $GID_V4 -s 2048 -n 20 $GUEST_IP"
}
scen_kx_send_bw() {
	kx_pair send "ib_send_bw $KX_PERF -x $GID_V4 -s 4096 -n 20" \
		"ib_send_bw $KX_PERF -x $GID_V4 -s 4096 -n 20 $GUEST_IP"
}
scen_kx_atomic() {
	local a

	for a in FETCH_AND_ADD CMP_AND_SWAP; do
		kx_pair "atomic_$a" "ib_atomic_bw $KX_PERF -x $GID_V4 -A $a -n 20" \
			"ib_atomic_bw $KX_PERF -x $GID_V4 -A $a -n 20 $GUEST_IP" || return 1
	done
}
# rdma_cm: CM REQ/REP/RTU to QP1, the pings (SEND, WRITE, READ), DREQ/DREP.
scen_kx_rping() {
	kx_pair rping "rping -s -a $GUEST_IP -C 2 -v" "rping -c -a $GUEST_IP -C 2 -v" cm
}
scen_kx_ucmatose() {
	kx_pair ucmatose "ucmatose -b $GUEST_IP -c 1 -C 2" "ucmatose -s $GUEST_IP -c 1 -C 2" cm
}
scen_kx_loss_write_bw() {
	kx_netem "$KX_LOSS" loss_write "ib_write_bw $KX_PERF -x $GID_V4 -s 4096 -n 30 -t 16" \
		"ib_write_bw $KX_PERF -x $GID_V4 -s 4096 -n 30 -t 16 $GUEST_IP"
}
scen_kx_loss_send_bw() {
	kx_netem "$KX_LOSS" loss_send "ib_send_bw $KX_PERF -x $GID_V4 -s 4096 -n 30 -t 16" \
		"ib_send_bw $KX_PERF -x $GID_V4 -s 4096 -n 30 -t 16 $GUEST_IP"
}
scen_kx_dup_rc_pingpong() {
	kx_netem "$KX_DUP" dup "ibv_rc_pingpong -d rxe0 -g $GID_V4 $KX_PP -s 4096 -n 20" \
		"ibv_rc_pingpong -d rxe0 -g $GID_V4 $KX_PP -s 4096 -n 20 $GUEST_IP"
}
# One receive posted at a time on the server: the client's SENDs find none.
scen_kx_rnr() {
	kx_pair rnr "ib_send_bw $KX_PERF -x $GID_V4 --rx-depth=1 -s 64 -n 20" \
		"ib_send_bw $KX_PERF -x $GID_V4 -s 64 -n 20 $GUEST_IP"
}

# Whether capture $1 (its roce_dump JSON) shows every token of KX_EXPECT[$1].
kx_expect() {
	local name=$1 big=0

	big=$(tcpdump -nn -r "$OUT/$name.pcap" "udp port 4791 and greater $IB_MTU_MAX" 2>/dev/null | wc -l)
	python3 - "$OUT/$name.json" "$big" ${KX_EXPECT[$name]} <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
big = int(sys.argv[2])
missing = []
for tok in sys.argv[3:]:
    kind, _, key = tok.partition(":")
    ok = {"op": lambda: d["opcodes"].get(key, 0) > 0,
          "aeth": lambda: d["aeth"].get(key, 0) > 0,
          "cm": lambda: d["cm"].get(key, 0) > 0,
          "ipv6": lambda: d["ipv6"] == d["roce"],
          "big": lambda: big > 0}[kind]()
    if not ok:
        missing.append(tok)
print("expected: %s; missing: %s" % (" ".join(sys.argv[3:]), " ".join(missing) or "none"))
sys.exit(1 if missing else 0)
EOF
}

# DIR/recorded.txt: a header (the guests' versions), then one block per
# capture (its frames, size, date and command lines), sorted by name. $1 =
# the recorded.txt, $2 = the header ("#" lines) or a block ("NAME.pcap: ..."
# first), which replaces the one it updates.
kx_record() {
	python3 - "$1" "$2" <<'EOF'
import os, sys
path, new = sys.argv[1], sys.argv[2].strip("\n")
parts = open(path).read().strip("\n").split("\n\n") if os.path.exists(path) else []
header = [p for p in parts if p.startswith("#")]
blocks = {p.split(":", 1)[0]: p for p in parts if not p.startswith("#")}
if new.startswith("#"):
    header = [new]
else:
    blocks[new.split(":", 1)[0]] = new
with open(path, "w") as f:
    f.write("\n\n".join(header + [blocks[k] for k in sorted(blocks)]) + "\n")
EOF
}

# The header of DIR ($2)/recorded.txt: the image ($1) both guests booted.
kx_header() {
	kx_record "$2/recorded.txt" "# Made by tests/interop/run.sh --record-vectors: two qemu guests (TCG) with kernel
# rdma_rxe; RoCEv2 (UDP port 4791), ARP and ICMPv6 captured on the first guest's bridge port.
$(sed 's/^/# guest: /' "$1/versions")"
}

# After a vector passed: its capture into DIR ($2), its block into DIR/recorded.txt.
kx_keep() {
	local name=$1 dir=$2 frames

	kx_expect "$name" >> "$OUT/$name.txt" 2>&1 || return 1
	cp "$OUT/$name.pcap" "$dir/${name#kx_}.pcap"
	frames=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["roce"])' "$OUT/$name.json")
	kx_record "$dir/recorded.txt" "${name#kx_}.pcap: $frames RoCEv2 frames, $(stat -c %s "$dir/${name#kx_}.pcap") bytes, recorded $(date -u '+%Y-%m-%d %H:%M UTC')
$KX_LOG"
}
