#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rc_pingpong, uc_pingpong or ud_pingpong in two processes over net_memif (TAP output).

usage: test_rc_pingpong_memif.py PINGPONG ROCE_DUMP [NAME_PART]
       (PINGPONG: the rc_pingpong, uc_pingpong or ud_pingpong binary; its name
       picks the cases. NAME_PART: run only the cases whose name contains it)

A server process (memif role=server) and a client process (role=client)
share a memif socket in a temporary directory and do the ibv_rc_pingpong
TCP exchange over 127.0.0.1 on a port that was free a moment before. Each
case checks both exit statuses, the address lines (each side's remote
address is the other's local one) and the throughput and latency lines
(bytes = size x iters x 2), over IPv4 and IPv6. Negative cases: path MTU above the port's,
server absent, bad or missing --ip, refused options. One run is captured
(--pcap) and read back with roce_dump: every frame parses, every ICRC is
right, and the PSNs and QPNs on the wire are the ones exchanged over TCP (UC and UD: and
no acknowledgement at all). UD: sizes up to the port's MTU, a larger one refused. Every process runs
under a deadline and is killed by its PID if it overstays.
Python 3 standard library only.
"""

import json
import os
import re
import subprocess
import sys
import time

from pp_memif import (CLIENT_IP, CLIENT_IP6, PREFIX, PREFIX6, RE_ADDR, RE_BW, RE_LAT, REFUSE_S,
                      SERVER_IP, SERVER_IP6, STARTUP_S, Proc, check, free_tcp_port, refused,
                      run_cases)


def parse_run(proc):
    """The address lines and the two result lines of one side."""
    found = {"local": None, "remote": None, "bw": None, "lat": None}
    for line in proc.out:
        m = RE_ADDR.match(line)
        if m:
            found[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16),
                                 int(m.group(4), 16), m.group(5))
        m = RE_BW.match(line)
        if m:
            found["bw"] = (int(m.group(1)), float(m.group(2)), float(m.group(3)))
        m = RE_LAT.match(line)
        if m:
            found["lat"] = (int(m.group(1)), float(m.group(2)), float(m.group(3)))
    return found


def check_success(h, size, iters, opts, results, v6=False, client_opts=(), vdev_args=""):
    ips = (SERVER_IP6 + PREFIX6, CLIENT_IP6 + PREFIX6) if v6 else \
        (SERVER_IP + PREFIX, CLIENT_IP + PREFIX)
    gids = (SERVER_IP6, CLIENT_IP6) if v6 else ("::ffff:" + SERVER_IP, "::ffff:" + CLIENT_IP)
    src, crc, srv, cli = h.pair(["-s", str(size), "-n", str(iters)] + opts, ips=ips,
                                client_opts=list(client_opts), vdev_args=vdev_args)
    detail = "\n[server]\n%s\n[client]\n%s" % (srv.text(), cli.text() if cli else "")
    check(src == 0 and crc == 0, "exit statuses server %s client %s%s" % (src, crc, detail))
    s, c = parse_run(srv), parse_run(cli)
    for side, name in ((s, "server"), (c, "client")):
        for key in ("local", "remote", "bw", "lat"):
            check(side[key] is not None, "%s printed no %s line%s" % (name, key, detail))
        check(side["bw"][0] == size * iters * 2,
              "%s: %d bytes, want %d" % (name, side["bw"][0], size * iters * 2))
        check(side["lat"][0] == iters, "%s: %d iters" % (name, side["lat"][0]))
        check(side["local"][0] == 0, "%s: LID 0 on RoCE" % name)
    check(s["remote"] == c["local"] and c["remote"] == s["local"],
          "each side's remote address is the other's local one%s" % detail)
    check((s["local"][3], c["local"][3]) == gids,
          "GIDs are the --ip addresses: %s %s" % (s["local"][3], c["local"][3]))
    results.append("%s size %d iters %d %s: %.2f Mbit/s, %.2f usec/iter" %
                   ("IPv6" if v6 else "IPv4", size, iters, " ".join(opts), c["bw"][2],
                    c["lat"][2]))
    return srv, cli


def case_size(size, iters, opts=(), v6=False, vdev_args=""):
    def run(h, results):
        check_success(h, size, iters, list(opts), results, v6, vdev_args=vdev_args)
    return run


# IB MTU 4096 over memif: an Ethernet MTU of 4176 (4096 + 80, rxe's rule), which
# memif carries but does not report, and buffers that hold a whole frame of it
# (4176 + 18 bytes): a frame chained over two memif buffers may be lost.
MTU4096_OPTS = ["-m", "4096", "--eth-mtu", "4176", "--mtu-unchecked"]
MTU4096_VDEV = ",bsize=8192"


def case_peer_dies(h, results):
    """The client is killed mid-run: the server notices its link go down and exits non-zero."""
    h.runs += 1
    port = free_tcp_port()
    opts = ["-p", str(port), "-s", "1024", "-n", "100000000"]
    srv = Proc(h.argv("server", SERVER_IP + PREFIX, opts))
    cli = None
    try:
        check(srv.wait_line(r"^  local address:", STARTUP_S), "server up:\n%s" % srv.text())
        cli = Proc(h.argv("client", CLIENT_IP + PREFIX, opts, "127.0.0.1"))
        check(cli.wait_line(r"^  remote address:", STARTUP_S), "client ran:\n%s" % cli.text())
        time.sleep(0.5)
        cli.kill()
        start = time.monotonic()
        rc = srv.finish(REFUSE_S)
        secs = time.monotonic() - start
    finally:
        srv.kill()
        if cli is not None:
            cli.kill()
    check(rc not in (0, None), "server exit status %s after %.1f s" % (rc, secs))
    check(re.search(r"Link of ethdev 0 went down: the peer left", srv.text()),
          "server says why:\n%s" % srv.text())
    results.append("server left %.1f s after its peer was killed" % secs)


def write_config(h, text):
    path = os.path.join(h.tmpdir, "roce%d.conf" % h.runs)
    with open(path, "w") as f:
        f.write(text)
    return path


def case_config(h, results):
    """--config: each side's address and device limits from its [port NAME], no --ip."""
    path = write_config(h, "[port srv]\ndev = net_memif0\naddr = %s%s\nmax_qp = 64\n"
                           "[port cli]\ndev = net_memif0\naddr = %s%s\n" %
                        (SERVER_IP, PREFIX, CLIENT_IP, PREFIX))
    src, crc, srv, cli = h.pair(["-s", "64", "-n", "100"], ips=(None, None),
                                server_opts=["--config", path, "--config-port", "srv"],
                                client_opts=["--config", path, "--config-port", "cli"])
    detail = "\n[server]\n%s\n[client]\n%s" % (srv.text(), cli.text() if cli else "")
    check(src == 0 and crc == 0, "exit statuses server %s client %s%s" % (src, crc, detail))
    s, c = parse_run(srv), parse_run(cli)
    check(s["local"] is not None and c["local"] is not None and
          (s["local"][3], c["local"][3]) == ("::ffff:" + SERVER_IP, "::ffff:" + CLIENT_IP),
          "GIDs are the file's addresses%s" % detail)
    results.append("--config: both sides from one file")


def case_config_invalid(h, results):
    """An invalid value in --config: refused with the file, the line and the key."""
    path = write_config(h, "[port a]\ndev = net_memif0\nmtu = 10\n")
    rc, secs, proc = h.single("server", None, ["--config", path])
    check(rc not in (0, None), "exit status %s after %.1f s" % (rc, secs))
    check(path + ":3: mtu: 10 is out of range" in proc.text(), "message:\n%s" % proc.text())
    path = write_config(h, "[port a]\ndev = net_memif0\naddr = 10.0.0.1/24\n")
    rc, secs, proc = h.single("server", None, ["--config", path, "--config-port", "b"])
    check(rc not in (0, None) and "no [port b]" in proc.text(), "message:\n%s" % proc.text())


def transport(h):
    """"rc", "uc" or "ud", from the binary's name."""
    return os.path.basename(h.binary)[:2]


def big(h, size):
    """size, or the UD limit (the port's 1024-byte MTU) for ud_pingpong."""
    return 1024 if transport(h) == "ud" else size


def case_events_client_only(h, results):
    """-e on one side only: the modes interoperate (the wire does not change)."""
    check_success(h, big(h, 65536), 200, [], results, client_opts=["-e"])


def case_validate(h, results):
    """-c: the client marks one byte per page, the server checks them."""
    srv, _ = check_success(h, big(h, 65536), 20, ["-c"], results)
    check(not any("invalid data" in l for l in srv.err), "server found invalid data")


def case_validate_detects(h, results):
    """-c on the server only: the client leaves its pages at 0x7b, the server must say so."""
    pages = 1 if transport(h) == "ud" else 2    # UD messages fit in the 1024-byte MTU
    src, crc, srv, cli = h.pair(["-s", str(big(h, 8192)), "-n", "5"], server_opts=["-c"])
    check(crc == 0, "client exit status %s:\n%s" % (crc, cli.text() if cli else ""))
    check(src == 1, "server exit status %s:\n%s" % (src, srv.text()))
    check([l for l in srv.err if l.startswith("invalid data in page")] ==
          ["invalid data in page %d" % i for i in range(pages)],
          "server's report:\n%s" % srv.text())


def case_mtu_above_port(h, results):
    """memif runs at Ethernet MTU 1500 (IB MTU 1024): -m 4096 is refused at RTR, both fail."""
    src, crc, srv, cli = h.pair(["-m", "4096", "-n", "1"], timeout=REFUSE_S)
    check(src not in (0, None) and crc not in (0, None),
          "exit statuses server %s client %s" % (src, crc))
    check(re.search(r"Failed to modify QP to RTR", srv.text()) and
          re.search(r"path_mtu 4096 is above the port's IB MTU 1024 \(Ethernet MTU 1500.*"
                    r"rte_roce_port_conf::mtu\) to at least 4176", srv.text()),
          "server says why, naming the MTU to set:\n%s" % srv.text())
    check(cli.text() != "" and re.search(r"remote address", cli.text()),
          "client says the exchange failed:\n%s" % cli.text())


def case_server_absent(h, results):
    port = free_tcp_port()
    # memif role=server: a memif client would stop at its own link before the TCP connect.
    rc, secs, proc = h.single("server", CLIENT_IP + PREFIX, ["-p", str(port)], "127.0.0.1")
    check(rc not in (0, None), "exit status %s" % rc)
    check(secs < REFUSE_S, "took %.1f s" % secs)
    check(re.search(r"Couldn't connect to 127\.0\.0\.1:%d" % port, proc.text()),
          "message:\n%s" % proc.text())


RE_FRAME = re.compile(r"^\d+ \S+ IPv4 ([\d.]+)\.\d+ > ([\d.]+)\.4791: ((?:RC|UC|UD)_\w+) "
                      r"qp 0x([0-9a-f]{6}) psn 0x([0-9a-f]{6})( \[A\])?")

# Per tool: message size of the wire case, its opcodes (value: count per message), the opcode
# that starts a message and the one that ends it (roce_dump names).
WIRE = {
    "rc": (4096, {"0x00": 1, "0x01": 2, "0x02": 1}, "RC_SEND_FIRST", "RC_SEND_LAST"),
    "uc": (4096, {"0x20": 1, "0x21": 2, "0x22": 1}, "UC_SEND_FIRST", "UC_SEND_LAST"),
    "ud": (1024, {"0x64": 1}, "UD_SEND_ONLY", "UD_SEND_ONLY"),
}


def case_wire(h, results):
    """The client's capture, read by roce_dump: the SENDs carry the exchanged QPNs and PSNs."""
    iters = 10                  # RC/UC 4096 B at path MTU 1024: FIRST, 2 MIDDLE, LAST
    t = transport(h)
    size, opcodes, first_op, last_op = WIRE[t]
    pcap = os.path.join(h.tmpdir, "client.pcap")
    srv, cli = check_success(h, size, iters, [], results, client_opts=["--pcap", pcap])
    s, c = parse_run(srv), parse_run(cli)
    summary = subprocess.run([h.roce_dump, "--json", pcap], capture_output=True, text=True,
                             timeout=REFUSE_S)
    check(summary.returncode == 0, "roce_dump exit %d: %s" % (summary.returncode, summary.stderr))
    js = json.loads(summary.stdout)
    msgs = 2 * iters
    check(js["roce"] == js["icrc_ok"] and js["malformed"] == 0, "clean capture: %s" % js)
    check(all(js["opcodes"].get(op) == msgs * n for op, n in opcodes.items()),
          "%s per message: %s" % (opcodes, js))
    if t == "rc":
        check(js["aeth"].get("ack", 0) >= 1 and js["aeth"].get("nak", 0) == 0,
              "ACKs, no NAK: %s" % js)
    else:
        check(sum(js["opcodes"].values()) == msgs * sum(opcodes.values()),
              "nothing but the SENDs (no acknowledgement): %s" % js)
    text = subprocess.run([h.roce_dump, pcap], capture_output=True, text=True, timeout=REFUSE_S)
    first = {}
    for line in text.stdout.splitlines():
        m = RE_FRAME.match(line)
        if m and m.group(3) == first_op and m.group(1) not in first:
            first[m.group(1)] = (int(m.group(4), 16), int(m.group(5), 16))
        if m and m.group(3) == last_op:
            check((m.group(6) is not None) == (t == "rc"),
                  "AckReq on every RC SEND_LAST, never on UC/UD: %s" % line)
    # (dest QPN, first PSN) of each side's first SEND = (peer's QPN, own exchanged PSN).
    check(first.get(CLIENT_IP) == (s["local"][1], c["local"][2]),
          "client's first SEND %s, exchanged %s" % (first.get(CLIENT_IP), (s["local"], c["local"])))
    check(first.get(SERVER_IP) == (c["local"][1], s["local"][2]),
          "server's first SEND %s, exchanged %s" % (first.get(SERVER_IP), (c["local"], s["local"])))
    results.append("capture: %d frames, %d RoCEv2, all ICRCs right" % (js["frames"], js["roce"]))


def cases_for(t):
    """The cases of tool t ("rc", "uc" or "ud"), named after it."""
    ud = t == "ud"
    cases = [
        ("memif_size_1", case_size(1, 1000)),
        ("memif_size_0", case_size(0, 100)),
        ("memif_ipv6", case_size(1024 if ud else 4096, 200, v6=True)),
        ("memif_events", case_size(1024 if ud else 4096, 1000, ["-e"])),
        ("memif_events_rx_depth_2_size_1", case_size(1, 2000, ["-e", "-r", "2"])),
        ("memif_events_client_only", case_events_client_only),
        ("memif_chk_validates", case_validate),
        ("memif_chk_detects_unmarked_pages", case_validate_detects),
        ("memif_wire_matches_exchange", case_wire),
        ("memif_server_absent", case_server_absent),
        ("memif_config", case_config),
        ("config_invalid_refused", case_config_invalid),
    ]
    if ud:
        cases += [
            ("memif_size_1024_default", case_size(1024, 1000)),
            ("memif_size_512_rx_depth_2_named_dev",
             case_size(512, 200, ["-r", "2", "-d", "net_memif0"])),
            ("size_above_port_mtu_refused",
             refused(["-s", "1025"], r"Requested size larger than port MTU \(1024\)")),
            ("mtu_option_usage", refused(["-m", "1024"], r"Usage")),
        ]
    else:
        cases += [
            ("memif_size_4096_default", case_size(4096, 1000)),
            ("memif_size_65536", case_size(65536, 100)),
            ("memif_size_1MiB", case_size(1 << 20, 20)),
            ("memif_mtu_256_named_dev", case_size(4096, 200, ["-m", "256", "-d", "net_memif0"])),
            ("memif_mtu_512_rx_depth_2", case_size(8192, 200, ["-m", "512", "-r", "2"])),
            ("memif_mtu_above_port_refused", case_mtu_above_port),
            ("bad_mtu_usage", refused(["-m", "1000"], r"Usage")),
            ("memif_mtu_4096_size_65536",
             case_size(65536, 200, MTU4096_OPTS, vdev_args=MTU4096_VDEV)),
            ("memif_mtu_4096_size_1MiB",
             case_size(1 << 20, 100, MTU4096_OPTS, vdev_args=MTU4096_VDEV)),
            ("memif_mtu_4096_ipv6_size_1MiB",
             case_size(1 << 20, 20, MTU4096_OPTS, v6=True, vdev_args=MTU4096_VDEV)),
            ("memif_mtu_4096_bsize_below_frame_refused",
             refused(MTU4096_OPTS, r"net_memif buffers of 4096 bytes \(vdev argument bsize\).*"
                     r"set bsize=4194 or more", vdev_args=",bsize=4096")),
            ("memif_mtu_4096_mbuf_size_below_frame_refused",
             refused(MTU4096_OPTS + ["--mbuf-size", "4224"],
                     r"hold 4096 bytes after the headroom, a frame at MTU 4176 takes 4194.*"
                     r"rte_roce_port_conf::pool", vdev_args=MTU4096_VDEV)),
        ]
    if t == "rc":
        cases += [
            ("odp_refused", refused(["-o"], r"on demand paging.*not supported")),
            ("ts_refused", refused(["-t"], r"timestamps.*not supported")),
            ("dm_refused", refused(["-j"], r"device memory.*not supported")),
        ]
    else:
        # Options only ibv_rc_pingpong has.
        cases += [("odp_option_usage", refused(["-o"], r"Usage"))]
    cases += [
        ("bad_ip_refused", refused([], r"--ip", ip="198.18.0")),
        ("bad_prefix_refused", refused([], r"--ip", ip="198.18.0.1/33")),
        ("missing_ip_refused", refused(["-n", "1"], r"--ip ADDR", ip=None)),
        ("ib_port_2_refused",
         refused(["-i", "2"], r"Failed to modify QP to INIT|Couldn.t get port info")),
        ("unknown_dev_refused", refused(["-d", "net_nope0"], r"IB device net_nope0 not found")),
        ("empty_gid_refused", refused(["-g", "9"], r"can't read sgid of index 9")),
        ("bad_port_usage", refused(["-p", "70000"], r"Usage")),
        ("bad_eth_mtu_usage", refused(["--eth-mtu", "10"], r"Usage")),
        # memif cannot set an MTU; frames at 2000 would fit its 2048-byte buffers.
        ("memif_eth_mtu_refused",
         refused(["--eth-mtu", "2000"], r"MTU 2000 refused by the PMD.*mtu_unchecked(.|\n)*"
                 r"Couldn't create a RoCE port on ethdev 0")),
        ("memif_server_exits_when_client_dies", case_peer_dies),
    ]
    return [(t + "_pingpong_" + name, fn) for name, fn in cases]


def main():
    t = os.path.basename(sys.argv[1])[:2] if len(sys.argv) > 1 else ""
    if t not in WIRE:
        print(__doc__)
        return 2
    return run_cases(__doc__, cases_for(t))


if __name__ == "__main__":
    sys.exit(main())
