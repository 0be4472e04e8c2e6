#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""roce_dump's reading: pcapng, standard input, BPF filters (TAP output).

usage: test_roce_dump_read.py ROCE_DUMP VECTORS_DIR

The pcapng files are written here, block by block (draft-ietf-opsawg-pcapng),
from the frames of the kernel rxe captures and from frames built by
test_roce_dump.py (with their own ICRC code): both byte orders, µs and ns
timestamps, several interfaces with names, interfaces that are not
Ethernet, several sections, Simple and obsolete Packet Blocks, unknown
block types, and every kind of damage (truncation at every byte of a block,
bad lengths, a packet of an undescribed interface). Each pcapng must decode
exactly as the classic pcap of the same frames. Python 3 standard library
only: no editcap (wireshark-common brings ~110 MB of libwireshark).
"""

import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_roce_dump as trd  # noqa: E402

EXIT_OK, EXIT_BAD, EXIT_UNUSABLE = 0, 1, 2
SHB, IDB, PB, SPB, ISB, EPB = 0x0A0D0D0A, 1, 2, 3, 5, 6
BYTE_ORDER_MAGIC = 0x1A2B3C4D
OPT_END, OPT_IF_NAME, OPT_IF_TSRESOL = 0, 2, 9
LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL = 1, 113
SNAPLEN = 262144
ETH_HLEN = 14
NS = 1000000000


# ------------------------------------------------------------- pcapng ---

def pad4(b):
    return b + bytes(-len(b) % 4)


def block(e, btype, body):
    total = 12 + len(pad4(body))
    return struct.pack(e + "II", btype, total) + pad4(body) + struct.pack(e + "I", total)


def option(e, code, value):
    return struct.pack(e + "HH", code, len(value)) + pad4(value)


def shb(e):
    return block(e, SHB, struct.pack(e + "IHHq", BYTE_ORDER_MAGIC, 1, 0, -1))


def idb(e, linktype=LINKTYPE_ETHERNET, name=None, ns=True, snaplen=SNAPLEN):
    opts = b""
    if name is not None:
        opts += option(e, OPT_IF_NAME, name.encode())
    if ns:
        opts += option(e, OPT_IF_TSRESOL, bytes([9]))
    if opts:
        opts += option(e, OPT_END, b"")
    return block(e, IDB, struct.pack(e + "HHI", linktype, 0, snaplen) + opts)


def epb(e, ifid, ts, frame, origlen=None):
    origlen = len(frame) if origlen is None else origlen
    return block(e, EPB, struct.pack(e + "IIIII", ifid, ts >> 32, ts & 0xFFFFFFFF,
                                     len(frame), origlen) + frame)


def pb(e, ifid, ts, frame):
    return block(e, PB, struct.pack(e + "HHIIII", ifid, 0, ts >> 32, ts & 0xFFFFFFFF,
                                    len(frame), len(frame)) + frame)


def spb(e, frame):
    return block(e, SPB, struct.pack(e + "I", len(frame)) + frame)


def records_ns(pcap):
    """[(ts_ns, orig_len, frame)] of a trd.Pcap, whatever its resolution."""
    magic = struct.unpack(pcap.endian + "I", pcap.header[:4])[0]
    unit = 1 if magic == trd.PCAP_MAGIC_NS else 1000
    return [(sec * NS + frac * unit, orig, bytes(f)) for sec, frac, orig, f in pcap.records]


def pcapng_of(pcap, e="<", ns=True):
    """The classic pcap's frames as a one-interface pcapng."""
    out = [shb(e), idb(e, name="eth0", ns=ns)]
    for ts, orig, frame in records_ns(pcap):
        out.append(epb(e, 0, ts if ns else ts // 1000, frame, orig))
    return b"".join(out)


def synthetic_pcap():
    """A trd.Pcap of the synthetic frames, no vector needed (ns, little-endian)."""
    p = trd.Pcap.__new__(trd.Pcap)
    p.endian = "<"
    p.header = struct.pack("<IHHiIII", trd.PCAP_MAGIC_NS, 2, 4, 0, 0, SNAPLEN,
                           LINKTYPE_ETHERNET)
    p.records = [[1700000000 + i, 123456789, len(f), bytearray(f)]
                 for i, (f, _) in enumerate(trd.SYNTHETIC)]
    return p


# ------------------------------------------------------------ helpers ---

def run(*args, stdin=None):
    p = subprocess.run([ROCE_DUMP] + [str(a) for a in args], input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def run_json(*args, stdin=None):
    rc, out, err = run("--json", *args, stdin=stdin)
    return rc, [json.loads(line) for line in out.splitlines()], err


def write(name, data):
    path = os.path.join(TMPDIR, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def write_pcap(name, pcap):
    path = os.path.join(TMPDIR, name)
    pcap.write(path)
    return path


def counters(obj):
    """The decoding counters of a JSON summary, without what differs by format."""
    return {k: v for k, v in obj.items()
            if k not in ("file", "format", "interfaces", "filtered", "skipped",
                         "unknown_blocks")}


def frame_lines(text):
    return [l for l in text.splitlines() if l.split(" ", 1)[0].isdigit()]


check = trd.check


def same_decode(path_a, path_b, what):
    """Both files give the same counters and the same frame lines."""
    rc_a, a, _ = run_json(path_a)
    rc_b, b, err = run_json(path_b)
    check(rc_a == rc_b, "%s: exit %d, want %d: %s" % (what, rc_b, rc_a, err))
    check(counters(a[0]) == counters(b[0]), "%s: %r != %r" % (what, b[0], a[0]))
    _, ta, _ = run(path_a)
    _, tb, _ = run(path_b)
    check(frame_lines(ta) == frame_lines(tb), "%s: frame lines differ" % what)
    return b[0]


def vector_pcaps():
    names = ("rc_pingpong.pcap", "rping.pcap", "rc_pingpong_ipv6.pcap")
    return [(n, trd.Pcap(os.path.join(VECTORS, n))) for n in names
            if os.path.exists(os.path.join(VECTORS, n))]


# -------------------------------------------------------------- tests ---

def test_pcapng_decodes_as_pcap():
    """Same frames in pcapng, both byte orders, ns and µs: same decoding."""
    cases = [("synthetic", synthetic_pcap())] + vector_pcaps()
    check(len(cases) > 1, "no kernel rxe vector in " + VECTORS)
    for name, pcap in cases:
        ref = write_pcap(name + ".ref.pcap", pcap)
        for e in "<>":
            ng = write(name + e.replace("<", "le").replace(">", "be") + ".pcapng",
                       pcapng_of(pcap, e))
            o = same_decode(ref, ng, "%s %s" % (name, e))
            check(o["format"] == "pcapng" and o["interfaces"] == 1, "format %r" % o)
    # µs resolution (no if_tsresol): the vectors are µs, so nothing is lost.
    name, pcap = cases[-1]
    ng = write(name + ".us.pcapng", pcapng_of(pcap, "<", ns=False))
    same_decode(write_pcap(name + ".ref.pcap", pcap), ng, name + " in µs")


def test_classic_pcap_resolutions_and_orders():
    """Classic pcap: ns and µs magics, both byte orders, same frame lines."""
    pcap = synthetic_pcap()
    ref = write_pcap("ns_le.pcap", pcap)
    big = os.path.join(TMPDIR, "ns_be.pcap")
    pcap.write(big, endian=">")
    same_decode(ref, big, "big-endian ns pcap")
    late = synthetic_pcap()
    late.records[0][0] = 0xFFFFFFF0         # 2106: unsigned, as the format has it
    _, out, _ = run(write_pcap("late.pcap", late))
    first = frame_lines(out)[0].split()
    check(first[1] == "4294967280.123456789", "time after 2038 read as %s" % first[1])
    us = synthetic_pcap()
    us.header = struct.pack("<I", trd.PCAP_MAGIC_US) + us.header[4:]
    for r in us.records:
        r[1] //= 1000
    _, out, _ = run(write_pcap("us.pcap", us))
    first = frame_lines(out)[0].split()
    check(first[1] == "1700000000.123456000", "µs timestamp read as %s" % first[1])


def two_interfaces(e="<"):
    """eth0 and eth1 (Ethernet), 'any' (Linux cooked): frames on all three."""
    frames = [f for f, _ in trd.SYNTHETIC[:6]]
    blocks = [shb(e), idb(e, name="net_ring_a"), idb(e, LINKTYPE_LINUX_SLL, name="any"),
              idb(e, name="net_ring_b")]
    layout = [0, 1, 2, 1, 0, 2]           # interface of each frame, in order
    for i, (ifid, f) in enumerate(zip(layout, frames)):
        # On 'any', a 16-byte Linux cooked header instead of Ethernet's.
        blocks.append(epb(e, ifid, 1700000000 * NS + i,
                          f if ifid != 1 else bytes(16) + f[ETH_HLEN:]))
    return b"".join(blocks)


def test_pcapng_interfaces():
    """Names under -v, the right interface per frame, 'any' skipped and said."""
    for e in "<>":
        data = two_interfaces(e)
        path = write("ifaces%s.pcapng" % ("le" if e == "<" else "be"), data)
        rc, objs, err = run_json(path)
        o = objs[0]
        check(rc == EXIT_OK, "exit %d: %s" % (rc, err))
        check(o["interfaces"] == 3 and o["skipped"] == 2, "counts %r" % o)
        check(o["frames"] == 4 and o["icrc_ok"] == 4, "decoded %r" % o)
        check("interface 1 any" in err and "113" in err and "skipped" in err,
              "no notice of the skipped interface: %r" % err)
        rc, out, _ = run("-v", path)
        lines = out.splitlines()
        seen = []
        for i, l in enumerate(lines):
            if l.split(" ", 1)[0].isdigit():
                seen.append((int(l.split()[0]), lines[i + 1]))
        # File record numbers (skipped ones counted) and their interfaces.
        want = [(1, "\tinterface 0 net_ring_a"), (3, "\tinterface 2 net_ring_b"),
                (5, "\tinterface 0 net_ring_a"), (6, "\tinterface 2 net_ring_b")]
        check(seen == want, "frames and interfaces %r" % seen)
        check("2 skipped (interface not Ethernet)" in out, "summary: %r" % out[-300:])
        rc, out, _ = run(path)
        check("\tinterface" not in out, "interface line without -v")


def test_pcapng_no_ethernet_interface():
    e = "<"
    f = trd.SYNTHETIC[0][0]
    path = write("sll_only.pcapng", shb(e) + idb(e, LINKTYPE_LINUX_SLL, name="any")
                 + epb(e, 0, 1, bytes(16) + f[ETH_HLEN:]))
    rc, objs, err = run_json(path)
    check(rc == EXIT_UNUSABLE and "no Ethernet interface" in err and path in err,
          "exit %d: %r" % (rc, err))
    check(objs[0]["skipped"] == 1 and "error" in objs[0], "JSON %r" % objs[0])


def test_pcapng_sections():
    """Two sections (cat a.pcapng b.pcapng): interfaces are per section."""
    e = "<"
    f = [x for x, _ in trd.SYNTHETIC[:3]]
    a = shb(e) + idb(e, name="first") + epb(e, 0, 1, f[0])
    b = (shb(e) + idb(e, LINKTYPE_LINUX_SLL, name="cooked") + idb(e, name="second")
         + epb(e, 1, 2, f[1]) + epb(e, 0, 3, bytes(16) + f[2][ETH_HLEN:]))
    rc, out, err = run("-v", write("sections.pcapng", a + b))
    check(rc == EXIT_OK, "exit %d: %s" % (rc, err))
    check("\tinterface 0 first" in out and "\tinterface 1 second" in out,
          "interfaces of the second section: %r" % out)
    check("1 skipped" in out, "frame of the cooked interface not skipped: %r" % out)


def test_pcapng_other_packet_blocks():
    """Simple Packet Blocks (interface 0, no time) and obsolete Packet Blocks."""
    e = "<"
    f = [x for x, _ in trd.SYNTHETIC[:2]]
    path = write("spb_pb.pcapng", shb(e) + idb(e) + spb(e, f[0]) + pb(e, 0, 5, f[1]))
    rc, objs, err = run_json(path)
    check(rc == EXIT_OK and objs[0]["icrc_ok"] == 2, "exit %d %r: %s" % (rc, objs, err))


def test_pcapng_unknown_and_statistics_blocks():
    """Unknown block types are skipped and counted; statistics blocks are not counted."""
    e = "<"
    f = [x for x, _ in trd.SYNTHETIC[:2]]
    isb = block(e, ISB, struct.pack(e + "III", 0, 0, 0))
    path = write("unknown.pcapng", shb(e) + idb(e) + block(e, 0x1234, b"future")
                 + epb(e, 0, 1, f[0]) + block(e, 0x80000001, b"local use") + isb
                 + epb(e, 0, 2, f[1]))
    rc, objs, err = run_json(path)
    o = objs[0]
    check(rc == EXIT_OK and o["icrc_ok"] == 2, "exit %d %r: %s" % (rc, o, err))
    check(o["unknown_blocks"] == 2, "unknown_blocks %r" % o)
    rc, out, _ = run(path)
    check("2 pcapng blocks of unknown type skipped" in out, "summary %r" % out)


def test_pcapng_truncated_everywhere():
    """Cut at every byte: a cut between blocks is a clean end, any other exit 2."""
    e = "<"
    f = [x for x, _ in trd.SYNTHETIC[:2]]
    head = shb(e) + idb(e, name="eth0")
    blocks = [epb(e, 0, 1, f[0]), epb(e, 0, 2, f[1])]
    data = head + b"".join(blocks)
    ends = {len(head): 0, len(head) + len(blocks[0]): 1, len(data): 2}
    path = os.path.join(TMPDIR, "cut.pcapng")
    for cut in range(len(head), len(data) + 1):
        with open(path, "wb") as fh:
            fh.write(data[:cut])
        rc, objs, err = run_json(path)
        o = objs[0]
        if cut in ends:
            check(rc == EXIT_OK and o["frames"] == ends[cut], "cut %d: exit %d %r"
                  % (cut, rc, o))
        else:
            whole = max(n for c, n in ends.items() if c < cut)
            check(rc == EXIT_UNUSABLE and path in err and "error" in o,
                  "cut %d: exit %d: %s" % (cut, rc, err))
            check(o["frames"] == whole, "cut %d: %d frames before the cut" % (cut, o["frames"]))
    # Inside the header blocks: the capture cannot be opened.
    for cut in (3, 4, 10, len(shb(e)) + 5):
        with open(path, "wb") as fh:
            fh.write(data[:cut])
        rc, _, err = run(path)
        check(rc == EXIT_UNUSABLE and path in err, "header cut %d: exit %d" % (cut, rc))


def test_pcapng_bad_blocks():
    """Damaged blocks: libpcap's reason on stderr, exit 2, frames before still decoded."""
    e = "<"
    f = trd.SYNTHETIC[0][0]
    good = shb(e) + idb(e) + epb(e, 0, 1, f)
    bad_len = bytearray(epb(e, 0, 2, f))
    bad_len[4:8] = struct.pack(e + "I", len(bad_len) - 2)      # not a multiple of 4
    trailer = bytearray(epb(e, 0, 2, f))
    trailer[-4:] = struct.pack(e + "I", len(trailer) + 4)        # header != trailer
    tiny = struct.pack(e + "II", EPB, 8)                         # shorter than a block
    huge = struct.pack(e + "II", EPB, 0x7FFFFFF0) + bytes(64)    # larger than libpcap takes
    cases = {"bad_len": bytes(bad_len), "trailer": bytes(trailer), "tiny": tiny,
             "huge": huge, "no_idb": epb(e, 3, 2, f), "short_epb": block(e, EPB, b"\0" * 8),
             "bad_bom": block(e, SHB, struct.pack(e + "IHHq", 0x12345678, 1, 0, -1))}
    for name, tail in cases.items():
        path = write("bad_%s.pcapng" % name, good + tail)
        rc, objs, err = run_json(path)
        check(rc == EXIT_UNUSABLE and path in err, "%s: exit %d: %s" % (name, rc, err))
        check(objs[0].get("frames") == 1 and "error" in objs[0], "%s: %r" % (name, objs[0]))


def test_stdin():
    """'-' and '-r -' read standard input, pcapng and pcap; through a real pipe too."""
    pcap = synthetic_pcap()
    ref = write_pcap("stdin_ref.pcap", pcap)
    _, want, _ = run_json(ref)
    ng = pcapng_of(pcap)
    with open(ref, "rb") as fh:
        classic = fh.read()
    for args, data in ((["-"], ng), (["-r", "-"], ng), (["-"], classic)):
        rc, objs, err = run_json(*args, stdin=data)
        check(rc == EXIT_OK and objs[0]["file"] == "-", "%r: exit %d: %s" % (args, rc, err))
        check(counters(objs[0]) == counters(want[0]), "%r: %r" % (args, objs[0]))
    cat = subprocess.Popen(["cat", write("pipe.pcapng", ng)], stdout=subprocess.PIPE)
    p = subprocess.run([ROCE_DUMP, "--json", "-"], stdin=cat.stdout, stdout=subprocess.PIPE,
                       timeout=120)
    cat.stdout.close()
    cat.wait()
    check(p.returncode == EXIT_OK and json.loads(p.stdout)["icrc_ok"] == len(trd.SYNTHETIC),
          "pipe: exit %d %r" % (p.returncode, p.stdout))
    rc, objs, err = run_json("-", stdin=b"")
    check(rc == EXIT_UNUSABLE and "error" in objs[0], "empty stdin: exit %d" % rc)


def vlan_tagged(frame, vid):
    return frame[:12] + struct.pack("!HH", 0x8100, vid) + frame[12:]


def test_filter():
    """A filter after the file (tcpdump's way), or after -r; VLAN needs 'vlan and'."""
    roce = [f for f, _ in trd.SYNTHETIC[:3]]
    arp = roce[0][:12] + struct.pack("!H", trd.ETHERTYPE_ARP) + bytes(28)
    tagged = vlan_tagged(roce[1], 42)
    e = "<"
    frames = roce + [arp, tagged]
    path = write("filter.pcapng", shb(e) + idb(e) + b"".join(
        epb(e, 0, i, f) for i, f in enumerate(frames)))
    expect = {("udp port 4791",): 3, ("udp", "port", "4791"): 3, ("arp",): 1,
              ("vlan 42 and udp port 4791",): 1, ("host 198.18.0.2 and not vlan",): 3,
              ("host 198.18.0.9",): 0}
    for words, n in expect.items():
        for args in ([path] + list(words), ["-r", path] + list(words)):
            rc, objs, err = run_json(*args)
            o = objs[0] if objs else {}
            check(rc == EXIT_OK and o.get("frames") == n, "%r: exit %d %r %s"
                  % (args, rc, o, err))
            check(o["filtered"] == len(frames) - n, "%r: filtered %r" % (args, o))
    rc, out, _ = run(path, "vlan", "and", "udp")
    lines = frame_lines(out)
    check(len(lines) == 1 and lines[0].startswith("5 "), "record number kept: %r" % lines)
    check("4 not matching the filter" in out, "summary %r" % out)


def test_bad_filter():
    path = write("bf.pcapng", pcapng_of(synthetic_pcap()))
    for words in (["udp port 4791 and hst x"], ["-r", path, "udp", "prot", "4791"]):
        args = words if words[0] == "-r" else [path] + words
        rc, out, err = run(*args)
        check(rc == EXIT_UNUSABLE and out == "", "%r: exit %d, out %r" % (args, rc, out))
        check("filter" in err and ("syntax error" in err or "unknown" in err),
              "%r: libpcap's reason missing: %r" % (args, err))
    # A mistyped file name after the first: taken as a filter, and said so.
    rc, _, err = run(path, os.path.join(TMPDIR, "no_such.pcapng"))
    check(rc == EXIT_UNUSABLE and "no file has that name" in err, "exit %d: %r" % (rc, err))


def test_files_before_filter():
    """A missing file between existing ones is a file, not a filter: all processed."""
    good = write_pcap("good.pcap", synthetic_pcap())
    missing = os.path.join(TMPDIR, "missing.pcapng")
    rc, objs, err = run_json(good, missing, good, "udp")
    check(rc == EXIT_UNUSABLE and [o["file"] for o in objs] == [good, missing, good],
          "exit %d %r" % (rc, objs))
    check(objs[2]["frames"] == len(trd.SYNTHETIC), "filter 'udp' not applied %r" % objs[2])


def test_classic_fcs_linktype():
    """Ethernet frames with an FCS (link type extension): refused, exit 2."""
    pcap = synthetic_pcap()
    path = os.path.join(TMPDIR, "fcs.pcap")
    pcap.write(path, linktype=LINKTYPE_ETHERNET | 0x44000000)   # F bit, 4-byte FCS
    rc, _, err = run(path)
    check(rc == EXIT_UNUSABLE and "FCS" in err, "exit %d: %r" % (rc, err))


def test_help():
    rc, out, _ = run("--help")
    check(rc == EXIT_OK and "pcapng" in out and "FILTER" in out and "-r FILE" in out,
          "help %r" % out)


if __name__ == "__main__":
    sys.exit(trd.tap_main(globals(), "roce_dump_read."))
