#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Functional tests of roce_dump on the kernel rxe captures (TAP output).

usage: test_roce_dump.py ROCE_DUMP VECTORS_DIR

Every count roce_dump reports is compared with an independent count made
here by walking the pcap records (Ethernet, 802.1Q, IPv4/IPv6, UDP port
4791, BTH opcode byte, QP1 MAD header), so both sides are checked. Broken
copies of the captures (bad ICRC, bad UDP length, cut frames, cut files,
wrong link type) check the error paths and the exit status.
Python 3 standard library only.
"""

import glob
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import types
import zlib

ROCEV2_PORT = 4791
ETH_HLEN = 14
VLAN_HLEN = 4
ETHERTYPE_VLAN = (0x8100, 0x88A8)
ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD
ETHERTYPE_ARP = 0x0806
IPPROTO_UDP = 17
IPV4_FRAG_OFFSET = 0x1FFF
IPV6_HLEN = 40
UDP_HLEN = 8
BTH_LEN = 12
DETH_LEN = 8
ICRC_LEN = 4
PCAP_GLOBAL_LEN = 24
PCAP_REC_LEN = 16
PCAP_MAGIC_US = 0xA1B2C3D4
PCAP_MAGIC_NS = 0xA1B23C4D
LINKTYPE_ETHERNET = 1
OPCODE_UD_SEND_ONLY = 0x64
GSI_QPN = 1
MGMT_CLASS_CM = 0x07
# K:core/cm_msgs.h, doc/wire-format.md §12.2
CM_ATTRS = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU",
            0x15: "DREQ", 0x16: "DREP", 0x17: "SIDR_REQ", 0x18: "SIDR_REP",
            0x19: "LAP", 0x1A: "APR"}
CM_REQ_SERVICE_ID = 8   # in the CM data after the 24-byte MAD header
MAD_HDR_LEN = 24
EXIT_OK, EXIT_BAD, EXIT_UNUSABLE = 0, 1, 2


# ---------------------------------------------------------------- pcap ---

class Pcap:
    """A classic pcap file: its global header and its records."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        magic = struct.unpack("<I", data[:4])[0]
        self.endian = "<" if magic in (PCAP_MAGIC_US, PCAP_MAGIC_NS) else ">"
        self.header = data[:PCAP_GLOBAL_LEN]
        self.records = []   # [ts_sec, ts_frac, orig_len, bytearray frame]
        off = PCAP_GLOBAL_LEN
        while off < len(data):
            sec, frac, incl, orig = struct.unpack(
                self.endian + "IIII", data[off:off + PCAP_REC_LEN])
            frame = bytearray(data[off + PCAP_REC_LEN:
                                   off + PCAP_REC_LEN + incl])
            self.records.append([sec, frac, orig, frame])
            off += PCAP_REC_LEN + incl

    def write(self, path, endian=None, linktype=None):
        e = endian or self.endian
        magic, vmaj, vmin, zone, sigfigs, snap, link = struct.unpack(
            self.endian + "IHHiIII", self.header)
        if linktype is not None:
            link = linktype
        out = [struct.pack(e + "IHHiIII", magic, vmaj, vmin, zone, sigfigs,
                           snap, link)]
        for sec, frac, orig, frame in self.records:
            out.append(struct.pack(e + "IIII", sec, frac, len(frame), orig))
            out.append(bytes(frame))
        with open(path, "wb") as f:
            f.write(b"".join(out))


def l3_offset(frame):
    """(ethertype, offset of the L3 header), VLAN tags skipped."""
    off = ETH_HLEN
    et = struct.unpack("!H", frame[12:14])[0]
    while et in ETHERTYPE_VLAN:
        et = struct.unpack("!H", frame[off + 2:off + 4])[0]
        off += VLAN_HLEN
    return et, off


def bth_offset(frame):
    """Offset of the BTH if the frame is IPv4/IPv6 UDP to 4791, else None."""
    if len(frame) < ETH_HLEN:
        return None
    et, off = l3_offset(frame)
    if et == ETHERTYPE_IPV4 and len(frame) >= off + 20:
        if frame[off + 9] != IPPROTO_UDP:
            return None
        if struct.unpack("!H", frame[off + 6:off + 8])[0] & IPV4_FRAG_OFFSET:
            return None                 # a later fragment: no UDP header
        udp = off + (frame[off] & 0x0F) * 4
    elif et == ETHERTYPE_IPV6 and len(frame) >= off + IPV6_HLEN:
        if frame[off + 6] != IPPROTO_UDP:
            return None
        udp = off + IPV6_HLEN
    else:
        return None
    if len(frame) < udp + UDP_HLEN:
        return None
    if struct.unpack("!H", frame[udp + 2:udp + 4])[0] != ROCEV2_PORT:
        return None
    return udp + UDP_HLEN


def independent_counts(pcap):
    """Frames, RoCE frames, opcodes, MADs, CM attributes, counted here."""
    roce, opcodes, cm, service_ids, mads = 0, {}, {}, [], 0
    for _, _, _, frame in pcap.records:
        bth = bth_offset(frame)
        if bth is None:
            continue
        roce += 1
        op = frame[bth]
        key = "0x%02x" % op
        opcodes[key] = opcodes.get(key, 0) + 1
        dqpn = int.from_bytes(frame[bth + 5:bth + 8], "big")
        if op != OPCODE_UD_SEND_ONLY or dqpn != GSI_QPN:
            continue
        mad = frame[bth + BTH_LEN + DETH_LEN:-ICRC_LEN]
        if len(mad) < MAD_HDR_LEN:
            continue
        mads += 1
        attr = struct.unpack("!H", mad[16:18])[0]
        if mad[1] == MGMT_CLASS_CM and attr in CM_ATTRS:
            cm[CM_ATTRS[attr]] = cm.get(CM_ATTRS[attr], 0) + 1
            if CM_ATTRS[attr] == "REQ":
                sid = mad[MAD_HDR_LEN + CM_REQ_SERVICE_ID:
                          MAD_HDR_LEN + CM_REQ_SERVICE_ID + 8]
                service_ids.append("0x" + sid.hex())
    return types.SimpleNamespace(frames=len(pcap.records), roce=roce,
                                 opcodes=opcodes, cm=cm, mads=mads,
                                 service_ids=service_ids)


def first_roce(pcap):
    """(record, BTH offset) of the first RoCEv2 frame."""
    for rec in pcap.records:
        bth = bth_offset(rec[3])
        if bth is not None:
            return rec, bth
    raise AssertionError("no RoCEv2 frame in capture")


# --------------------------------------------- synthetic frame builder ---
# Written from doc/wire-format.md §1-§4, independently of librte_roce's builder.

IPV4_HLEN = 20
DEFAULT_PKEY = 0xFFFF


def ipv4_checksum(hdr):
    s = sum(struct.unpack("!10H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return struct.pack("!H", ~s & 0xFFFF)


def icrc_covered(ip_udp_ib):
    """What the ICRC of an IPv4 RoCEv2 packet covers (IBA A17.3.3; doc/wire-format.md §4)."""
    m = bytearray(ip_udp_ib)
    m[1] = 0xFF                                 # TOS
    m[8] = 0xFF                                 # TTL
    m[10:12] = b"\xff\xff"                      # header checksum
    m[IPV4_HLEN + 6:IPV4_HLEN + 8] = b"\xff\xff"  # UDP checksum
    m[IPV4_HLEN + UDP_HLEN + 4] = 0xFF          # FECN, BECN, resv6
    return b"\xff" * 8 + bytes(m)


def icrc(ip_udp_ib):
    return struct.pack("<I", zlib.crc32(icrc_covered(ip_udp_ib)))


def icrc_rxe_flush(ip_udp_ib):
    """Linux rxe's ICRC of a FLUSH: its headers from the BTH on a second time (doc/interop.md)."""
    return struct.pack("<I", zlib.crc32(icrc_covered(ip_udp_ib) +
                                        bytes(ip_udp_ib[IPV4_HLEN + UDP_HLEN:])))


def roce_frame(opcode, ext=b"", payload=b"", dqpn=0x11, psn=0x123456,
               se=False, mig=False, ackreq=False, fecn=False, becn=False,
               pkey=DEFAULT_PKEY):
    """A whole IPv4 RoCEv2 frame with a correct ICRC."""
    pad = -len(payload) % 4
    bth = struct.pack("!BBHII", opcode,
                      se << 7 | mig << 6 | pad << 4, pkey,
                      fecn << 31 | becn << 30 | dqpn,
                      ackreq << 31 | psn)
    ib = bth + ext + payload + bytes(pad)
    udp_len = UDP_HLEN + len(ib) + ICRC_LEN
    udp = struct.pack("!HHHH", 0xC000, ROCEV2_PORT, udp_len, 0)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, IPV4_HLEN + udp_len,
                               1, 0x4000, 64, IPPROTO_UDP, 0,
                               bytes([198, 18, 0, 1]), bytes([198, 18, 0, 2])))
    ip[10:12] = ipv4_checksum(bytes(ip))
    l3 = bytes(ip) + udp + ib
    eth = bytes.fromhex("020000000002" "020000000001") + struct.pack("!H", ETHERTYPE_IPV4)
    return eth + l3 + icrc(l3)


def reth(va, rkey, length):
    return struct.pack("!QII", va, rkey, length)


def aeth(syndrome, msn):
    return struct.pack("!I", syndrome << 24 | msn)


# (frame, strings its text line must contain); opcodes absent from the
# kernel captures, every AETH kind, every BTH flag.
SYNTHETIC = [
    (roce_frame(0x05, struct.pack("!I", 0x12345678), b"hello", se=True, ackreq=True),
     ["RC_SEND_ONLY_WITH_IMMEDIATE", "[SE,A]", "imm 0x12345678", "payload 5"]),
    (roce_frame(0x0B, reth(0x1000, 0xAB, 8) + struct.pack("!I", 0xCAFE), bytes(8)),
     ["RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", "va 0x1000 rkey 0x000000ab len 8", "imm 0x0000cafe"]),
    (roce_frame(0x17, struct.pack("!I", 0x4242), b"inv!"),
     ["RC_SEND_ONLY_WITH_INVALIDATE", "inv_rkey 0x00004242"]),
    (roce_frame(0x1C, struct.pack("!I", 0x11) + reth(0x2000, 0x77, 64)),
     ["RC_FLUSH", "placement global selectivity mr", "va 0x2000 rkey 0x00000077 len 64"]),
    (roce_frame(0x1C, struct.pack("!I", 0x03) + reth(0x2000, 0x77, 64)),
     ["RC_FLUSH", "placement global,persistent selectivity range"]),
    (roce_frame(0x1C, struct.pack("!I", 0x24) + reth(0x2000, 0x77, 64)),
     ["RC_FLUSH", "placement 0x4 selectivity 2"]),
    (roce_frame(0x1D, reth(0x3000, 0x88, 8), bytes.fromhex("0102030405060708")),
     ["RC_ATOMIC_WRITE", "len 8", "payload 8 data 0x0102030405060708"]),
    (roce_frame(0x13, struct.pack("!QIQQ", 0x4000, 0x99, 5, 3)),
     ["RC_COMPARE_SWAP", "va 0x4000 rkey 0x00000099 swap_add 0x5 compare 0x3"]),
    (roce_frame(0x12, aeth(0x1F, 9) + struct.pack("!Q", 0xFEED)),
     ["RC_ATOMIC_ACKNOWLEDGE", "ACK credit 31 (none) msn 9", "orig 0xfeed"]),
    (roce_frame(0x11, aeth(0x05, 1)), ["ACK credit 5 msn 1"]),
    (roce_frame(0x11, aeth(0x20, 2)), ["RNR NAK timer 0 (655360 us) msn 2"]),
    (roce_frame(0x11, aeth(0x2C, 2)), ["RNR NAK timer 12 (640 us)"]),
    (roce_frame(0x11, aeth(0x60, 3)), ["NAK psn_sequence_error msn 3"]),
    (roce_frame(0x11, aeth(0x61, 3)), ["NAK invalid_request"]),
    (roce_frame(0x11, aeth(0x62, 3)), ["NAK remote_access_error"]),
    (roce_frame(0x11, aeth(0x63, 3)), ["NAK remote_operational_error"]),
    (roce_frame(0x11, aeth(0x64, 3)), ["NAK invalid_rd_request"]),
    (roce_frame(0x11, aeth(0x45, 3)), ["reserved syndrome 0x45"]),
    (roce_frame(0x65, struct.pack("!II", 0x11111111, 0x000033) + struct.pack("!I", 1), b"ud"),
     ["UD_SEND_ONLY_WITH_IMMEDIATE", "qkey 0x11111111 srcqp 0x000033", "imm 0x00000001"]),
    (roce_frame(0x81, bytes(16), dqpn=0xD2, psn=0, becn=True),
     ["CNP qp 0x0000d2 psn 0x000000 [BECN]"]),
    (roce_frame(0x24, payload=b"x" * 20, mig=True, fecn=True, pkey=0x8001),
     ["UC_SEND_ONLY", "[M,FECN]", "pkey 0x8001", "payload 20"]),
]
SYNTHETIC_AETH = {"ack": 2, "rnr_nak": 2, "psn_sequence_error": 1,
                  "invalid_request": 1, "remote_access_error": 1,
                  "remote_operational_error": 1, "invalid_rd_request": 1,
                  "reserved": 1}


# ------------------------------------------------------------- helpers ---

class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def run(*args):
    p = subprocess.run([ROCE_DUMP] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def run_json(*paths):
    rc, out, err = run("--json", *paths)
    objs = [json.loads(line) for line in out.decode().splitlines()]
    return rc, objs, err


def frame_lines(out):
    """The lines of text output that start a frame: "INDEX TIMESTAMP ..."."""
    return [l for l in out.decode().splitlines() if l.split(" ", 1)[0].isdigit()]


def tmp(name):
    return os.path.join(TMPDIR, name)


def vector(name):
    path = os.path.join(VECTORS, name)
    check(os.path.exists(path), "%s missing from the vectors" % name)
    return path


# --------------------------------------------------------------- tests ---

def check_vector(path):
    c = independent_counts(Pcap(path))
    frames, roce, opcodes, cm = c.frames, c.roce, c.opcodes, c.cm
    rc, objs, err = run_json(path)
    check(rc == EXIT_OK, "exit %d, stderr %r" % (rc, err))
    check(len(objs) == 1, "%d JSON objects" % len(objs))
    o = objs[0]
    check(o["file"] == path, "file %r" % o["file"])
    check(o["frames"] == frames, "frames %d, counted %d" % (o["frames"], frames))
    check(o["roce"] > 0, "no RoCEv2 frame decoded")
    check(o["roce"] == roce, "roce %d, counted %d" % (o["roce"], roce))
    check(o["non_roce"] == frames - roce, "non_roce %d" % o["non_roce"])
    check(o["malformed"] == 0, "malformed %r" % o["malformed_reasons"])
    check(o["icrc_bad"] == 0, "icrc_bad %d" % o["icrc_bad"])
    check(o["icrc_ok"] == roce, "icrc_ok %d of %d" % (o["icrc_ok"], roce))
    check(o["opcodes"] == opcodes, "opcodes %r, counted %r"
          % (o["opcodes"], opcodes))
    check(o["cm"] == cm, "cm %r, counted %r" % (o["cm"], cm))
    check(o["ipv4"] + o["ipv6"] == roce, "ipv4 + ipv6 != roce")
    check(o["mads"] == c.mads, "mads %d, counted %d" % (o["mads"], c.mads))


def test_cm_connections():
    for name in ("rping.pcap", "ucmatose.pcap", "rstream.pcap"):
        path = vector(name)
        cm = independent_counts(Pcap(path)).cm
        for attr in ("REQ", "REP", "RTU"):
            check(cm.get(attr, 0) >= 1, "%s: no CM %s in capture" % (name, attr))
        rc, objs, _ = run_json(path)
        check(rc == EXIT_OK, "%s: exit %d" % (name, rc))
        check(objs[0]["cm"] == cm, "%s: cm %r, counted %r"
              % (name, objs[0]["cm"], cm))
        check(objs[0]["mads"] == sum(cm.values()), "%s: mads %d"
              % (name, objs[0]["mads"]))


def test_all_vectors_at_once():
    paths = sorted(glob.glob(os.path.join(VECTORS, "*.pcap")))
    rc, objs, err = run_json(*paths)
    check(rc == EXIT_OK, "exit %d: %s" % (rc, err))
    check([o["file"] for o in objs] == paths, "one object per file, in order")


def test_text_output():
    path = vector("rc_pingpong.pcap")
    c = independent_counts(Pcap(path))
    frames, roce = c.frames, c.roce
    rc, out, err = run(path)
    text = out.decode()
    lines = frame_lines(out)
    check(rc == EXIT_OK, "exit %d: %s" % (rc, err))
    check(len(lines) == frames, "%d lines for %d frames" % (len(lines), frames))
    check(sum("icrc ok" in l for l in lines) == roce, "not one 'icrc ok' per RoCE frame")
    check("ICRC BAD" not in text, "ICRC BAD on a good capture")
    for name in ("SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "ACKNOWLEDGE"):
        check(name in text, "opcode name %s not printed" % name)
    check(" qp " in text and " psn " in text, "no QPN/PSN fields")
    summary = [l for l in text.splitlines() if l.startswith(path + ": ")]
    check(summary and summary[0].startswith(path + ": %d frames" % frames),
          "summary line %r" % summary)


def test_verbose_output():
    rc, out, _ = run("-v", vector("write_bw.pcap"))
    text = out.decode()
    check(rc == EXIT_OK, "write_bw exit %d" % rc)
    check("RETH" in text and "rkey" in text, "-v shows no RETH")
    check("AETH" in text, "-v shows no AETH")
    path = vector("rping.pcap")
    sids = independent_counts(Pcap(path)).service_ids
    rc, out, _ = run("-v", path)
    text = out.decode()
    check(rc == EXIT_OK, "rping exit %d" % rc)
    check("DETH" in text and "qkey" in text, "-v shows no DETH")
    check("MAD CM REQ" in text and "MAD CM RTU" in text, "CM attributes not named")
    for sid in sids:
        check("service_id " + sid in text, "REQ service ID %s not shown" % sid)
    rc, out_plain, _ = run(path)
    check(len(out.splitlines()) > len(out_plain.splitlines()),
          "-v adds no lines")
    # rsockets' data: RDMA WRITE with immediate, from the kernel.
    rc, out, _ = run("-v", vector("rstream.pcap"))
    text = out.decode()
    check(rc == EXIT_OK, "rstream exit %d" % rc)
    for name in ("RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE"):
        check(name in text, "opcode name %s not printed" % name)
    check("\tImmDt imm 0x" in text, "-v shows no ImmDt")


def test_verbose_json_combined():
    rc, out, _ = run("-v", "--json", vector("rping.pcap"))
    check(rc == EXIT_OK, "exit %d" % rc)
    check(len(out.decode().splitlines()) == 1, "-v changed the JSON output")
    json.loads(out)


def corrupt_copy(name, out_name, mutate):
    pcap = Pcap(vector(name))
    rec, bth = first_roce(pcap)
    mutate(rec, bth)
    path = tmp(out_name)
    pcap.write(path)
    return path


def test_icrc_bad_payload():
    def flip(rec, bth):
        rec[3][bth + BTH_LEN] ^= 0x01   # first byte after the BTH
    path = corrupt_copy("rc_pingpong.pcap", "bad_payload.pcap", flip)
    rc, objs, _ = run_json(path)
    check(rc == EXIT_BAD, "exit %d, want 1" % rc)
    check(objs[0]["icrc_bad"] == 1, "icrc_bad %d" % objs[0]["icrc_bad"])
    check(objs[0]["malformed"] == 0, "flipped payload counted malformed")
    rc, out, _ = run(path)
    check(rc == EXIT_BAD and b"ICRC BAD" in out, "text: exit %d, no ICRC BAD" % rc)


def test_icrc_bad_icrc():
    def flip(rec, bth):
        rec[3][-1] ^= 0x80              # last ICRC byte (no FCS in these)
    path = corrupt_copy("ud_pingpong.pcap", "bad_icrc.pcap", flip)
    rc, objs, _ = run_json(path)
    check(rc == EXIT_BAD, "exit %d, want 1" % rc)
    check(objs[0]["icrc_bad"] >= 1, "icrc_bad %d" % objs[0]["icrc_bad"])


def test_icrc_rxe_flush():
    """A FLUSH with rxe's ICRC is counted apart; any other frame with it is bad."""
    pcap = Pcap(vector("atomic.pcap"))
    frames = []
    for opcode, ext in ((0x1C, struct.pack("!I", 0x11) + reth(0x2000, 0x77, 0)),
                        (0x0A, reth(0x2000, 0x77, 0))):
        f = bytearray(roce_frame(opcode, ext))
        f[-ICRC_LEN:] = icrc_rxe_flush(f[ETH_HLEN:-ICRC_LEN])
        frames.append(f)
    pcap.records = [[1, i, len(f), f] for i, f in enumerate(frames)]
    path = tmp("rxe_flush.pcap")
    pcap.write(path)
    rc, objs, _ = run_json(path)
    o = objs[0]
    check(rc == EXIT_BAD, "exit %d, want 1" % rc)
    check(o["icrc_rxe_flush"] == 1 and o["icrc_bad"] == 1 and o["icrc_ok"] == 0,
          "rxe_flush %d, bad %d, ok %d" % (o["icrc_rxe_flush"], o["icrc_bad"], o["icrc_ok"]))
    rc, out, _ = run(path)
    lines = frame_lines(out)
    check("RC_FLUSH" in lines[0] and "ICRC RXE-FLUSH" in lines[0], "line %r" % lines[0])
    check("ICRC BAD" in lines[1], "line %r" % lines[1])


def check_malformed(path):
    rc, objs, _ = run_json(path)
    o = objs[0]
    check(rc == EXIT_BAD, "exit %d, want 1" % rc)
    check(o["malformed"] == 1, "malformed %d" % o["malformed"])
    check(sum(o["malformed_reasons"].values()) == 1, "reasons %r"
          % o["malformed_reasons"])
    rc, out, _ = run(path)
    reason = next(iter(o["malformed_reasons"]))
    check(rc == EXIT_BAD, "text exit %d" % rc)
    check(reason.encode() in out, "drop reason %s not printed" % reason)


def test_malformed_udp_length():
    def shrink(rec, bth):
        # UDP length 8: the datagram claims to carry no BTH at all.
        rec[3][bth - UDP_HLEN + 4:bth - UDP_HLEN + 6] = struct.pack("!H", UDP_HLEN)
    check_malformed(corrupt_copy("rc_pingpong.pcap", "bad_udplen.pcap", shrink))


def test_malformed_cut_frame():
    def cut(rec, bth):
        # Cut inside the BTH, and record that length as the real one.
        del rec[3][bth + BTH_LEN // 2:]
        rec[2] = len(rec[3])
    check_malformed(corrupt_copy("send_bw.pcap", "cut_frame.pcap", cut))


def test_snapped_frame():
    pcap = Pcap(vector("send_bw.pcap"))
    rec, bth = first_roce(pcap)
    del rec[3][bth + BTH_LEN:]          # captured part ends after the BTH
    path = tmp("snapped.pcap")
    pcap.write(path)
    rc, objs, _ = run_json(path)
    check(rc == EXIT_OK, "snaplen cut counted as an error: exit %d" % rc)
    check(objs[0]["snapped"] == 1, "snapped %d" % objs[0]["snapped"])
    check(objs[0]["malformed"] == 0, "snaplen cut counted malformed")


def test_non_roce_frames():
    pcap = Pcap(vector("ud_pingpong.pcap"))
    rec, _ = first_roce(pcap)
    mac = bytes(rec[3][:12])
    arp = mac + struct.pack("!H", ETHERTYPE_ARP) + bytes(28)
    dns = bytearray(rec[3][:ETH_HLEN + 20 + UDP_HLEN + 16])
    _, l3 = l3_offset(dns)
    dns[l3 + 20 + 2:l3 + 20 + 4] = struct.pack("!H", 53)
    runt = bytes(6)
    # A later IPv4 fragment whose data looks like UDP to 4791: not RoCE.
    frag = bytearray(rec[3])
    _, l3 = l3_offset(frag)
    frag[l3 + 6:l3 + 8] = struct.pack("!H", 0x00B9)   # offset 185 * 8
    ns = (mac + struct.pack("!H", ETHERTYPE_IPV6)
          + struct.pack("!IHBB", 6 << 28, 24, 58, 255) + bytes(32)
          + bytes([135, 0]) + bytes(22))
    before = len(pcap.records)
    for frame in (arp, dns, runt, frag, ns):
        pcap.records.append([1, 0, len(frame), bytearray(frame)])
    path = tmp("non_roce.pcap")
    pcap.write(path)
    c = independent_counts(pcap)
    frames, roce = c.frames, c.roce
    rc, objs, _ = run_json(path)
    o = objs[0]
    check(rc == EXIT_OK, "non-RoCE frames changed the exit status: %d" % rc)
    check(o["non_roce"] == frames - roce, "non_roce %d, counted %d"
          % (o["non_roce"], frames - roce))
    check(o["malformed"] == 0, "non-RoCE frames counted malformed")
    rc, out, _ = run(path)
    lines = frame_lines(out)
    check(len(lines) == before + 5, "not one line per non-RoCE frame")
    check("ICMPv6 neighbor solicitation" in lines[-1], "ND line %r" % lines[-1])
    check(lines[before].startswith("%d " % (before + 1)) and "ARP" in lines[before],
          "ARP line %r" % lines[before])


def test_vlan_frame():
    pcap = Pcap(vector("rc_pingpong.pcap"))
    rec, _ = first_roce(pcap)
    f = rec[3]
    rec[3] = f[:12] + struct.pack("!HH", 0x8100, 42) + f[12:]
    rec[2] += VLAN_HLEN
    path = tmp("vlan.pcap")
    pcap.write(path)
    rc, objs, _ = run_json(path)
    o = objs[0]
    check(rc == EXIT_OK, "exit %d, reasons %r" % (rc, o.get("malformed_reasons")))
    check(o["vlan"] == 1, "vlan %d" % o["vlan"])
    check(o["icrc_ok"] == o["roce"], "ICRC of the tagged frame not ok")


def test_big_endian_pcap():
    src = vector("rc_pingpong.pcap")
    path = tmp("big_endian.pcap")
    Pcap(src).write(path, endian=">")
    _, a, _ = run_json(src)
    rc, b, _ = run_json(path)
    check(rc == EXIT_OK, "exit %d" % rc)
    del a[0]["file"], b[0]["file"]
    check(a == b, "byte-swapped pcap decodes differently")


def test_missing_file():
    path = tmp("no_such_file.pcap")
    rc, out, err = run(path)
    check(rc == EXIT_UNUSABLE, "exit %d, want 2" % rc)
    check(path in err, "stderr does not name the file: %r" % err)
    rc, objs, _ = run_json(path)
    check(rc == EXIT_UNUSABLE and "error" in objs[0], "JSON error object")


def test_not_a_pcap():
    path = tmp("notes.txt")
    with open(path, "w") as f:
        f.write("this is not a capture file, but it is long enough\n")
    rc, _, err = run(path)
    check(rc == EXIT_UNUSABLE, "exit %d, want 2" % rc)
    check(path in err, "stderr does not name the file: %r" % err)
    empty = tmp("empty.pcap")
    open(empty, "wb").close()
    rc, _, err = run(empty)
    check(rc == EXIT_UNUSABLE and empty in err, "empty file: exit %d" % rc)


def test_truncated_pcap():
    src = vector("rc_pingpong.pcap")
    pcap = Pcap(src)
    with open(src, "rb") as f:
        data = f.read()
    # Keep 3 whole records, then half of the 4th record's data.
    off = PCAP_GLOBAL_LEN
    for _, _, _, frame in pcap.records[:3]:
        off += PCAP_REC_LEN + len(frame)
    cut = off + PCAP_REC_LEN + len(pcap.records[3][3]) // 2
    path = tmp("truncated.pcap")
    with open(path, "wb") as f:
        f.write(data[:cut])
    rc, objs, err = run_json(path)
    check(rc == EXIT_UNUSABLE, "exit %d, want 2" % rc)
    check(path in err, "stderr does not name the file: %r" % err)
    check(objs[0]["frames"] == 3, "frames %d before the cut" % objs[0]["frames"])
    check("error" in objs[0], "no error in the JSON object")


def test_bad_linktype():
    path = tmp("linux_sll.pcap")
    Pcap(vector("atomic.pcap")).write(path, linktype=113)
    rc, _, err = run(path)
    check(rc == EXIT_UNUSABLE and path in err, "exit %d: %r" % (rc, err))


def test_empty_capture():
    path = tmp("header_only.pcap")
    with open(vector("atomic.pcap"), "rb") as f:
        header = f.read(PCAP_GLOBAL_LEN)
    with open(path, "wb") as f:
        f.write(header)
    rc, objs, _ = run_json(path)
    check(rc == EXIT_OK, "exit %d" % rc)
    check(objs[0]["frames"] == 0 and objs[0]["roce"] == 0, "counts %r" % objs[0])


def test_json_escaping():
    src = vector("ucmatose.pcap")
    with open(src, "rb") as f:
        data = f.read()
    for name in ('we"ird\\name.pcap', "tab\tnew\nline.pcap", "caf\u00e9.pcap"):
        path = tmp(name)
        with open(path, "wb") as f:
            f.write(data)
        rc, objs, _ = run_json(path)
        check(rc == EXIT_OK, "%r: exit %d" % (name, rc))
        check(objs[0]["file"] == path, "file %r, want %r" % (objs[0]["file"], path))
    # A name that is not UTF-8 still yields valid JSON.
    bpath = os.fsencode(TMPDIR) + b"/latin1-\xe9.pcap"
    with open(bpath, "wb") as f:
        f.write(data)
    p = subprocess.run([ROCE_DUMP, "--json", bpath], stdout=subprocess.PIPE,
                       timeout=60)
    o = json.loads(p.stdout.decode("utf-8"))
    check(p.returncode == EXIT_OK and o["file"].endswith("latin1-\ufffd.pcap"),
          "non-UTF-8 name: %r" % o["file"])


def test_worst_exit_status():
    good = vector("atomic.pcap")
    def flip(rec, bth):
        rec[3][bth + 1] ^= 0x0F         # TVer: covered by the ICRC
    bad = corrupt_copy("atomic.pcap", "bad_tver.pcap", flip)
    missing = tmp("missing.pcap")
    rc, objs, _ = run_json(good, bad)
    check(rc == EXIT_BAD, "good+bad: exit %d" % rc)
    rc, objs, _ = run_json(bad, missing, good)
    check(rc == EXIT_UNUSABLE, "bad+missing+good: exit %d" % rc)
    check([o["file"] for o in objs] == [bad, missing, good],
          "not every file processed")


def test_mutated_frames():
    """Random damage to every RoCE frame: no crash, every frame accounted."""
    rnd = random.Random(ROCEV2_PORT)     # fixed seed: reproducible
    pcap = Pcap(vector("rc_pingpong.pcap"))
    for rec in pcap.records:
        frame = rec[3]
        if bth_offset(frame) is None:
            continue
        if rnd.random() < 0.2:
            del frame[rnd.randrange(ETH_HLEN, len(frame)):]
            rec[2] = len(frame)
        for _ in range(rnd.randrange(1, 4)):
            frame[rnd.randrange(ETH_HLEN, len(frame))] ^= 1 << rnd.randrange(8)
    path = tmp("mutated.pcap")
    pcap.write(path)
    rc, objs, err = run_json(path)
    o = objs[0]
    check(rc in (EXIT_OK, EXIT_BAD), "exit %d: %s" % (rc, err))
    check(o["frames"] == len(pcap.records), "frames %d" % o["frames"])
    check(o["icrc_ok"] + o["icrc_bad"] + o["malformed"] + o["snapped"] == o["roce"],
          "RoCE frames not all accounted: %r" % o)
    check(o["malformed"] == sum(o["malformed_reasons"].values()),
          "malformed %d, reasons %r" % (o["malformed"], o["malformed_reasons"]))
    check(o["malformed"] > 0 and o["icrc_bad"] > 0, "damage not seen: %r" % o)
    rc_text, out, _ = run("-v", path)
    check(rc_text == rc, "text exit %d, JSON exit %d" % (rc_text, rc))
    check(len(frame_lines(out)) == o["frames"], "text lines != frames")


def test_synthetic_opcodes():
    """Every extension header, AETH kind and BTH flag, built here."""
    pcap = Pcap(vector("atomic.pcap"))
    pcap.records = [[1, i, len(f), bytearray(f)]
                    for i, (f, _) in enumerate(SYNTHETIC)]
    path = tmp("synthetic.pcap")
    pcap.write(path)
    c = independent_counts(pcap)
    rc, objs, err = run_json(path)
    o = objs[0]
    check(rc == EXIT_OK, "exit %d, reasons %r, icrc_bad %d: %s"
          % (rc, o.get("malformed_reasons"), o.get("icrc_bad"), err))
    check(o["icrc_ok"] == len(SYNTHETIC), "icrc_ok %d" % o["icrc_ok"])
    check(o["opcodes"] == c.opcodes, "opcodes %r" % o["opcodes"])
    check(o["aeth"] == SYNTHETIC_AETH, "aeth %r" % o["aeth"])
    rc, out, _ = run("-v", path)
    lines = frame_lines(out)
    check(len(lines) == len(SYNTHETIC), "%d frame lines" % len(lines))
    for line, (_, want) in zip(lines, SYNTHETIC):
        for w in want:
            check(w in line, "%r not in %r" % (w, line))
    text = out.decode()
    for hdr in ("RETH", "AETH", "AtomicETH", "AtomicAckETH", "DETH", "ImmDt",
                "IETH", "FETH"):
        check("\t" + hdr + " " in text, "-v shows no %s line" % hdr)


def test_usage():
    rc, out, _ = run("-h")
    check(rc == EXIT_OK and b"usage" in out, "-h: exit %d" % rc)
    rc, out, _ = run("--help")
    check(rc == EXIT_OK and b"--json" in out, "--help: exit %d" % rc)
    rc, _, err = run()
    check(rc == EXIT_UNUSABLE and "usage" in err, "no file: exit %d" % rc)
    rc, out, _ = run("-vj", vector("atomic.pcap"))
    check(rc == EXIT_OK and json.loads(out)["roce"] > 0, "-vj: exit %d" % rc)
    rc, _, err = run("--bogus", vector("atomic.pcap"))
    check(rc == EXIT_UNUSABLE, "bad option: exit %d" % rc)


def run_cases(tests, tmp_prefix, set_tmpdir):
    """Run (name, fn) cases as TAP in a fresh temporary directory; the exit status."""
    print("1..%d" % len(tests))
    failed = 0
    with tempfile.TemporaryDirectory(prefix=tmp_prefix) as tmpdir:
        set_tmpdir(tmpdir)
        for i, (name, fn) in enumerate(tests, 1):
            try:
                fn()
                print("ok %d - %s" % (i, name))
            except Exception as e:     # any error fails this case only
                failed += 1
                print("not ok %d - %s" % (i, name))
                print("# %s: %s" % (type(e).__name__, e))
            sys.stdout.flush()
    return 1 if failed else 0


def tap_main(module, tmp_prefix, first_cases=list):
    """usage: PROGRAM ROCE_DUMP VECTORS_DIR: first_cases(), then module's test_* functions."""
    if len(sys.argv) != 3:
        print(module["__doc__"], file=sys.stderr)
        return 2
    module.update(ROCE_DUMP=sys.argv[1], VECTORS=sys.argv[2])
    tests = first_cases() + [(name[len("test_"):], fn) for name, fn in module.items()
                             if name.startswith("test_") and callable(fn)]
    return run_cases(tests, tmp_prefix, lambda d: module.update(TMPDIR=d))


def vector_cases():
    vectors = sorted(glob.glob(os.path.join(VECTORS, "*.pcap")))
    tests = [("vectors_present", lambda: check(vectors, "no pcap in " + VECTORS))]
    return tests + [("vector_" + os.path.basename(v), lambda v=v: check_vector(v))
                    for v in vectors]


if __name__ == "__main__":
    sys.exit(tap_main(globals(), "roce_dump_test.", vector_cases))
