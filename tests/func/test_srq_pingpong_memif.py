#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""srq_pingpong in two processes over net_memif (TAP output).

usage: test_srq_pingpong_memif.py SRQ_PINGPONG ROCE_DUMP [NAME_PART]
       (NAME_PART: run only the cases whose name contains it)

Server and client as in pp_memif.py. Each run checks both exit statuses,
one local and one remote address line per QP (each side's remote list is
the other's local list, in order), and the result lines (bytes = size x
iters x 2), for 1 to 256 QPs, IPv4 and IPv6, messages of one and of many
packets. The TCP exchange is checked byte for byte through a proxy: 256
records of 52 bytes each way, those beyond num_qp zero records; the proxy
then replaces the server's records beyond num_qp with garbage, as the
original tool may send, and the run must still pass. A capture read back
with roce_dump shows SENDs to every exchanged QPN and no NAK. Negative
cases: a peer with fewer QPs, -q 0 and 257, rx_depth below num_qp, -s 0,
-e. Python 3 standard library only.
"""

import json
import os
import random
import re
import socket
import subprocess
import sys
import threading

from pp_memif import (CLIENT_IP, CLIENT_IP6, PREFIX, PREFIX6, RE_ADDR, RE_BW, RE_LAT, REFUSE_S,
                      SERVER_IP, SERVER_IP6, check, free_tcp_port, refused, run_cases)

MAX_QP = 256                    # records each way, whatever -q (doc/wire-format.md §11.1)
RECORD_LEN = 52
DONE = b"done\0"
ZERO_RECORD = b"0000:000000:000000:" + b"0" * 32 + b"\0"
PROXY_TIMEOUT_S = 30


def parse_run(proc):
    """Address lines in order, and the two result lines, of one side."""
    found = {"local": [], "remote": [], "bw": None, "lat": None}
    for line in proc.out:
        m = RE_ADDR.match(line)
        if m:
            found[m.group(1)].append((int(m.group(2), 16), int(m.group(3), 16),
                                      int(m.group(4), 16), m.group(5)))
        m = RE_BW.match(line)
        if m:
            found["bw"] = int(m.group(1))
        m = RE_LAT.match(line)
        if m:
            found["lat"] = (int(m.group(1)), float(m.group(3)))
    return found


def check_run(h, nqp, size, iters, opts=(), v6=False, client_opts=(), results=None):
    ips = (SERVER_IP6 + PREFIX6, CLIENT_IP6 + PREFIX6) if v6 else \
        (SERVER_IP + PREFIX, CLIENT_IP + PREFIX)
    gid = (lambda ip: ip) if v6 else (lambda ip: "::ffff:" + ip)
    src, crc, srv, cli = h.pair(["-q", str(nqp), "-s", str(size), "-n", str(iters)] + list(opts),
                                ips=ips, client_opts=list(client_opts))
    detail = "\n[server]\n%s\n[client]\n%s" % (srv.text(), cli.text() if cli else "")
    check(src == 0 and crc == 0, "exit statuses server %s client %s%s" % (src, crc, detail))
    s, c = parse_run(srv), parse_run(cli)
    for side, name, ip in ((s, "server", ips[0]), (c, "client", ips[1])):
        check(len(side["local"]) == nqp and len(side["remote"]) == nqp,
              "%s: %d local, %d remote lines, want %d%s" %
              (name, len(side["local"]), len(side["remote"]), nqp, detail))
        check(side["bw"] == size * iters * 2, "%s: %s bytes" % (name, side["bw"]))
        check(side["lat"] is not None and side["lat"][0] == iters, "%s: iters" % name)
        check(all(a[0] == 0 and a[3] == gid(ip.split("/")[0]) for a in side["local"]),
              "%s: LID 0 and the --ip GID on every QP" % name)
        check(len({a[1] for a in side["local"]}) == nqp, "%s: distinct QPNs" % name)
    check(s["remote"] == c["local"] and c["remote"] == s["local"],
          "each side's remote list is the other's local list%s" % detail)
    if results is not None:
        results.append("%s %d QPs size %d iters %d %s: %.2f usec/iter" %
                       ("IPv6" if v6 else "IPv4", nqp, size, iters, " ".join(opts),
                        c["lat"][1]))
    return srv, cli, s, c


def case_run(nqp, size, iters, opts=(), v6=False):
    def run(h, results):
        check_run(h, nqp, size, iters, opts, v6, results=results)
    return run


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError("closed after %d of %d bytes" % (len(data), n))
        data += chunk
    return data


class Proxy:
    """Client -> proxy -> server: checks the records, garbles the server's beyond num_qp."""

    def __init__(self, server_port, nqp):
        self.server_port = server_port
        self.nqp = nqp
        self.errors = []
        self.seen = {}
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(1)
        self.lsock.settimeout(PROXY_TIMEOUT_S)
        self.port = self.lsock.getsockname()[1]
        self.thread = threading.Thread(target=self._run)
        self.thread.start()

    def _records(self, data, who):
        recs = [data[i * RECORD_LEN:(i + 1) * RECORD_LEN] for i in range(MAX_QP)]
        for i, r in enumerate(recs[:self.nqp]):
            if not re.fullmatch(rb"[0-9a-f]{4}:[0-9a-f]{6}:[0-9a-f]{6}:[0-9a-f]{32}\0", r):
                self.errors.append("%s record %d malformed: %r" % (who, i, r))
        extra = [i for i, r in enumerate(recs[self.nqp:], self.nqp) if r != ZERO_RECORD]
        if extra:
            self.errors.append("%s records beyond num_qp not zero records: %s" % (who, extra[:5]))
        self.seen[who] = recs

    def _run(self):
        try:
            cli, _ = self.lsock.accept()
            cli.settimeout(PROXY_TIMEOUT_S)
            srv = socket.create_connection(("127.0.0.1", self.server_port), PROXY_TIMEOUT_S)
            data = recv_exact(cli, MAX_QP * RECORD_LEN)
            self._records(data, "client")
            srv.sendall(data)
            data = recv_exact(srv, MAX_QP * RECORD_LEN)
            self._records(data, "server")
            rnd = random.Random(42)
            garbage = bytes(rnd.randrange(256) for _ in range((MAX_QP - self.nqp) * RECORD_LEN))
            cli.sendall(data[:self.nqp * RECORD_LEN] + garbage)
            done = recv_exact(cli, len(DONE))
            if done != DONE:
                self.errors.append("client's closing message %r" % done)
            srv.sendall(done)
            cli.close()
            srv.close()
        except (OSError, EOFError) as e:
            self.errors.append("proxy: %s" % e)
        finally:
            self.lsock.close()

    def join(self):
        self.thread.join(PROXY_TIMEOUT_S)


def case_exchange_through_proxy(h, results):
    """256 records each way, zeros beyond -q; garbage there from the peer is ignored."""
    nqp = 5
    port = free_tcp_port()
    proxy = Proxy(port, nqp)
    try:
        check_run(h, nqp, 4096, 100, ["-p", str(port)], client_opts=["-p", str(proxy.port)])
    finally:
        proxy.join()
    check(not proxy.errors, "\n".join(proxy.errors))
    check(set(proxy.seen) == {"client", "server"}, "the proxy saw both sides")


RE_FRAME = re.compile(r"^\d+ \S+ IPv4 ([\d.]+)\.\d+ > ([\d.]+)\.4791: (RC_\w+) "
                      r"qp 0x([0-9a-f]{6}) psn 0x([0-9a-f]{6})")


def case_wire(h, results):
    """The client's capture: clean frames, SENDs to every exchanged server QPN, no NAK."""
    nqp = 8
    pcap = os.path.join(h.tmpdir, "srq_client.pcap")
    srv, cli, s, c = check_run(h, nqp, 2000, 80, client_opts=["--pcap", pcap])
    summary = subprocess.run([h.roce_dump, "--json", pcap], capture_output=True, text=True,
                             timeout=REFUSE_S)
    check(summary.returncode == 0, "roce_dump exit %d: %s" % (summary.returncode, summary.stderr))
    js = json.loads(summary.stdout)
    check(js["roce"] == js["icrc_ok"] and js["malformed"] == 0, "clean capture: %s" % js)
    check(js["aeth"].get("nak", 0) == 0, "no NAK: %s" % js)
    text = subprocess.run([h.roce_dump, pcap], capture_output=True, text=True, timeout=REFUSE_S)
    dests = {CLIENT_IP: set(), SERVER_IP: set()}
    for line in text.stdout.splitlines():
        m = RE_FRAME.match(line)
        if m and m.group(3).startswith("RC_SEND"):
            dests[m.group(1)].add(int(m.group(4), 16))
    check(dests[CLIENT_IP] == {a[1] for a in s["local"]},
          "client SENDs to %s, server QPNs %s" % (sorted(dests[CLIENT_IP]), s["local"]))
    check(dests[SERVER_IP] == {a[1] for a in c["local"]},
          "server SENDs to %s, client QPNs %s" % (sorted(dests[SERVER_IP]), c["local"]))
    results.append("capture: %d frames, %d RoCEv2, all ICRCs right" % (js["frames"], js["roce"]))


def case_peer_fewer_qps(h, results):
    """The server runs 8 QPs, the client 4: its zero records 4..7 are refused, both fail."""
    src, crc, srv, cli = h.pair(["-n", "10", "-q", "4"], timeout=REFUSE_S,
                                server_opts=["-q", "8"])
    check(src not in (0, None) and crc not in (0, None),
          "exit statuses server %s client %s" % (src, crc))
    check(re.search(r"The peer has no QP 4: run both sides with the same -q", srv.text()),
          "server says why:\n%s" % srv.text())



CASES = [
    ("srq_pingpong_memif_1_qp", case_run(1, 4096, 200)),
    ("srq_pingpong_memif_4_qps", case_run(4, 4096, 400)),
    ("srq_pingpong_memif_16_qps_defaults", case_run(16, 4096, 1000)),
    ("srq_pingpong_memif_64_qps_size_1", case_run(64, 1, 1000, ["-r", "128"])),
    ("srq_pingpong_memif_256_qps", case_run(256, 64, 1024)),
    ("srq_pingpong_memif_mtu_256_multi_packet", case_run(8, 3000, 200, ["-m", "256"])),
    ("srq_pingpong_memif_ipv6", case_run(4, 4096, 200, v6=True)),
    ("srq_pingpong_memif_events_16_qps", case_run(16, 4096, 1000, ["-e"])),
    ("srq_pingpong_memif_exchange_through_proxy", case_exchange_through_proxy),
    ("srq_pingpong_memif_wire_matches_exchange", case_wire),
    ("srq_pingpong_memif_peer_fewer_qps_refused", case_peer_fewer_qps),
    ("srq_pingpong_num_qp_0_usage", refused(["-q", "0"], r"Usage")),
    ("srq_pingpong_num_qp_257_usage", refused(["-q", "257"], r"Usage")),
    ("srq_pingpong_rx_depth_below_num_qp_refused",
     refused(["-q", "4", "-r", "2"], r"rx_depth 2 is too small for 4 QPs")),
    ("srq_pingpong_size_0_usage", refused(["-s", "0"], r"Usage")),
]


def main():
    return run_cases(__doc__, CASES)


if __name__ == "__main__":
    sys.exit(main())
