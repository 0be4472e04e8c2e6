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
import queue
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

EAL_ARGS = ["--no-huge", "-m", "256", "--no-shconf", "--no-pci",
            "--no-telemetry"]
SERVER_IP = "198.18.0.1"        # RFC 2544 benchmarking range
CLIENT_IP = "198.18.0.2"
PREFIX = "/24"
SERVER_IP6 = "2001:db8::1"      # RFC 3849 documentation range
CLIENT_IP6 = "2001:db8::2"
PREFIX6 = "/64"
STARTUP_S = 30                  # until the server listens
RUN_S = 120                     # a whole run, both processes
REFUSE_S = 15                   # a run expected to fail fast
KILL_WAIT_S = 5

RE_ADDR = re.compile(r"^  (local|remote) address: +LID 0x([0-9a-f]{4}), "
                     r"QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (\S+)$")
RE_BW = re.compile(r"^(\d+) bytes in (\d+\.\d\d) seconds = (\d+\.\d\d) Mbit/sec$")
RE_LAT = re.compile(r"^(\d+) iters in (\d+\.\d\d) seconds = (\d+\.\d\d) usec/iter$")


class Proc:
    """A child process whose output lines are collected by reader threads."""

    def __init__(self, argv):
        self.argv = argv
        self.lines = queue.Queue()
        self.out = []
        self.err = []
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.readers = [
            threading.Thread(target=self._read, args=(self.p.stdout, self.out, True)),
            threading.Thread(target=self._read, args=(self.p.stderr, self.err, False)),
        ]
        for t in self.readers:
            t.start()

    def _read(self, stream, store, notify):
        for line in stream:
            line = line.rstrip("\n")
            store.append(line)
            if notify:
                self.lines.put(line)
        if notify:
            self.lines.put(None)

    def wait_line(self, pattern, timeout):
        """Wait for a stdout line matching pattern; False at EOF or timeout."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return False
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return False
            if line is None:
                return False
            if re.search(pattern, line):
                return True

    def finish(self, timeout):
        """Exit status, or None after killing the process for overstaying."""
        try:
            rc = self.p.wait(timeout=max(timeout, 0))
        except subprocess.TimeoutExpired:
            self.kill()
            rc = None
        for t in self.readers:
            t.join(KILL_WAIT_S)
        return rc

    def kill(self):
        if self.p.poll() is None:
            os.kill(self.p.pid, 9)
            self.p.wait(KILL_WAIT_S)

    def text(self):
        return "\n".join(self.out + self.err)


class Harness:
    def __init__(self, binary, roce_dump, tmpdir, transport):
        self.binary = binary
        self.transport = transport
        self.roce_dump = roce_dump
        self.tmpdir = tmpdir
        self.runs = 0

    def argv(self, role, ip, opts, server=None):
        sock = os.path.join(self.tmpdir, "memif%d.sock" % self.runs)
        argv = [self.binary] + EAL_ARGS + [
            "--file-prefix", "pp_%s_%d_%d" % (role, os.getpid(), self.runs),
            "--vdev", "net_memif0,role=%s,socket=%s" % (role, sock),
            "--"] + (["--ip", ip] if ip is not None else []) + opts
        if server is not None:
            argv.append(server)
        return argv

    def pair(self, opts, timeout=RUN_S, ips=(SERVER_IP + PREFIX, CLIENT_IP + PREFIX),
             client_opts=(), server_opts=()):
        """Run a server and a client; returns (server rc, client rc, server, client)."""
        self.runs += 1
        port = free_tcp_port()
        popts = ["-p", str(port)] + opts
        srv = Proc(self.argv("server", ips[0], popts + list(server_opts)))
        cli = None
        try:
            if not srv.wait_line(r"^  local address:", STARTUP_S):
                srv.kill()
                return srv.finish(0), None, srv, None
            cli = Proc(self.argv("client", ips[1], popts + list(client_opts), "127.0.0.1"))
            end = time.monotonic() + timeout
            crc = cli.finish(end - time.monotonic())
            src = srv.finish(end - time.monotonic())
            return src, crc, srv, cli
        finally:
            srv.kill()
            if cli is not None:
                cli.kill()

    def single(self, role, ip, opts, server=None, timeout=REFUSE_S):
        """One process alone (ip None: no --ip); returns (rc, elapsed seconds, proc)."""
        self.runs += 1
        start = time.monotonic()
        proc = Proc(self.argv(role, ip, opts, server))
        try:
            rc = proc.finish(timeout)
        finally:
            proc.kill()
        return rc, time.monotonic() - start, proc


def free_tcp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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


class Fail(Exception):
    pass


def check(cond, why):
    if not cond:
        raise Fail(why)


def check_success(h, size, iters, opts, results, v6=False, client_opts=()):
    ips = (SERVER_IP6 + PREFIX6, CLIENT_IP6 + PREFIX6) if v6 else \
        (SERVER_IP + PREFIX, CLIENT_IP + PREFIX)
    gids = (SERVER_IP6, CLIENT_IP6) if v6 else ("::ffff:" + SERVER_IP, "::ffff:" + CLIENT_IP)
    src, crc, srv, cli = h.pair(["-s", str(size), "-n", str(iters)] + opts, ips=ips,
                                client_opts=list(client_opts))
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


def case_size(size, iters, opts=(), v6=False):
    def run(h, results):
        check_success(h, size, iters, list(opts), results, v6)
    return run


def case_validate(h, results):
    """-c: the client marks one byte per page, the server checks them."""
    srv, _ = check_success(h, 1024 if h.transport == "ud" else 65536, 20, ["-c"], results)
    check(not any("invalid data" in l for l in srv.err), "server found invalid data")


def case_validate_detects(h, results):
    """-c on the server only: the client leaves its pages at 0x7b, the server must say so."""
    pages = 1 if h.transport == "ud" else 2     # UD messages fit in the 1024-byte MTU
    src, crc, srv, cli = h.pair(["-s", str(1024 if pages == 1 else 8192), "-n", "5"],
                                server_opts=["-c"])
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
    check(re.search(r"Failed to modify QP to RTR", srv.text()),
          "server says why:\n%s" % srv.text())
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
    size, opcodes, first_op, last_op = WIRE[h.transport]
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
    if h.transport == "rc":
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
            check((m.group(6) is not None) == (h.transport == "rc"),
                  "AckReq on every RC SEND_LAST, never on UC/UD: %s" % line)
    # (dest QPN, first PSN) of each side's first SEND = (peer's QPN, own exchanged PSN).
    check(first.get(CLIENT_IP) == (s["local"][1], c["local"][2]),
          "client's first SEND %s, exchanged %s" % (first.get(CLIENT_IP), (s["local"], c["local"])))
    check(first.get(SERVER_IP) == (c["local"][1], s["local"][2]),
          "server's first SEND %s, exchanged %s" % (first.get(SERVER_IP), (c["local"], s["local"])))
    results.append("capture: %d frames, %d RoCEv2, all ICRCs right" % (js["frames"], js["roce"]))


def refused(opts, pattern, ip=SERVER_IP + PREFIX):
    def run(h, results):
        rc, secs, proc = h.single("server", ip, opts)
        check(rc not in (0, None), "exit status %s after %.1f s" % (rc, secs))
        check(re.search(pattern, proc.text()), "message:\n%s" % proc.text())
        check(not any(RE_ADDR.match(l) for l in proc.out), "refused before any exchange")
    return run




def cases_for(t):
    """The cases of tool t ("rc", "uc" or "ud"), named after it."""
    pp = t + "_pingpong"
    sized = [
        ("memif_size_1", case_size(1, 1000)),
        ("memif_size_0", case_size(0, 100)),
        ("memif_ipv6", case_size(1024 if t == "ud" else 4096, 200, v6=True)),
        ("memif_chk_validates", case_validate),
        ("memif_chk_detects_unmarked_pages", case_validate_detects),
        ("memif_wire_matches_exchange", case_wire),
        ("memif_server_absent", case_server_absent),
    ]
    if t == "ud":
        sized += [
            ("memif_size_1024_default", case_size(1024, 1000, ["-s", "1024"])),
            ("memif_size_512_rx_depth_2_named_dev",
             case_size(512, 200, ["-r", "2", "-d", "net_memif0"])),
            ("size_above_port_mtu_refused",
             refused(["-s", "1025"], r"Requested size larger than port MTU \(1024\)")),
            ("mtu_option_usage", refused(["-m", "1024"], r"Usage")),
        ]
    else:
        sized += [
            ("memif_size_4096_default", case_size(4096, 1000)),
            ("memif_size_65536", case_size(65536, 100)),
            ("memif_size_1MiB", case_size(1 << 20, 20)),
            ("memif_mtu_256_named_dev", case_size(4096, 200, ["-m", "256", "-d", "net_memif0"])),
            ("memif_mtu_512_rx_depth_2", case_size(8192, 200, ["-m", "512", "-r", "2"])),
            ("memif_mtu_above_port_refused", case_mtu_above_port),
            ("bad_mtu_usage", refused(["-m", "1000"], r"Usage")),
        ]
    if t == "rc":
        sized += [
            ("odp_refused", refused(["-o"], r"on demand paging.*not supported")),
            ("ts_refused", refused(["-t"], r"timestamps.*not supported")),
            ("dm_refused", refused(["-j"], r"device memory.*not supported")),
        ]
    else:
        # Options only ibv_rc_pingpong has.
        sized += [("odp_option_usage", refused(["-o"], r"Usage"))]
    sized += [
        ("bad_ip_refused", refused([], r"--ip", ip="198.18.0")),
        ("bad_prefix_refused", refused([], r"--ip", ip="198.18.0.1/33")),
        ("missing_ip_refused", refused(["-n", "1"], r"--ip ADDR", ip=None)),
        ("events_refused", refused(["-e"], r"-e/--events.*not supported")),
        ("ib_port_2_refused",
         refused(["-i", "2"], r"Failed to modify QP to INIT|Couldn.t get port info")),
        ("unknown_dev_refused", refused(["-d", "net_nope0"], r"IB device net_nope0 not found")),
        ("empty_gid_refused", refused(["-g", "9"], r"can't read sgid of index 9")),
        ("bad_port_usage", refused(["-p", "70000"], r"Usage")),
        ("bad_eth_mtu_usage", refused(["--eth-mtu", "10"], r"Usage")),
        ("memif_eth_mtu_refused",
         refused(["--eth-mtu", "4200"], r"Couldn't create a RoCE port on ethdev 0")),
    ]
    return [(pp + "_" + name, fn) for name, fn in sized]


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    binary, roce_dump = sys.argv[1], sys.argv[2]
    transport = os.path.basename(binary)[:2]
    if transport not in WIRE:
        print(__doc__)
        return 2
    cases = [c for c in cases_for(transport) if len(sys.argv) == 3 or sys.argv[3] in c[0]]
    print("1..%d" % len(cases))
    failed = 0
    results = []
    with tempfile.TemporaryDirectory(prefix=transport + "_pingpong_") as tmpdir:
        h = Harness(binary, roce_dump, tmpdir, transport)
        for i, (name, fn) in enumerate(cases, 1):
            try:
                fn(h, results)
                print("ok %d - %s" % (i, name))
            except Fail as e:
                failed += 1
                print("not ok %d - %s" % (i, name))
                for line in str(e).splitlines():
                    print("#   " + line)
            sys.stdout.flush()
    for r in results:
        print("# " + r)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
