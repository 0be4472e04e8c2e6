# SPDX-License-Identifier: BSD-3-Clause
"""Two pingpong processes over net_memif: the pieces every example's harness shares.

A server process (memif role=server) and a client process (role=client)
share a memif socket in a temporary directory and do the tools' TCP
exchange over 127.0.0.1 on a port that was free a moment before. Every
process runs under a deadline and is killed by its PID if it overstays.
Python 3 standard library only.
"""

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

    def __init__(self, argv, stdin=None):
        """stdin: subprocess.PIPE to write to the process (self.p.stdin), else inherited."""
        self.argv = argv
        self.lines = queue.Queue()
        self.out = []
        self.err = []
        self.p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE,
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
    def __init__(self, binary, roce_dump, tmpdir):
        self.binary = binary
        self.roce_dump = roce_dump
        self.tmpdir = tmpdir
        self.runs = 0

    def argv(self, role, ip, opts, server=None, vdev_args=""):
        sock = os.path.join(self.tmpdir, "memif%d.sock" % self.runs)
        argv = [self.binary] + EAL_ARGS + [
            "--file-prefix", "pp_%s_%d_%d" % (role, os.getpid(), self.runs),
            "--vdev", "net_memif0,role=%s,socket=%s%s" % (role, sock, vdev_args),
            "--"] + (["--ip", ip] if ip is not None else []) + opts
        if server is not None:
            argv.append(server)
        return argv

    def pair(self, opts, timeout=RUN_S, ips=(SERVER_IP + PREFIX, CLIENT_IP + PREFIX),
             client_opts=(), server_opts=(), vdev_args=""):
        """Run a server and a client; returns (server rc, client rc, server, client)."""
        self.runs += 1
        port = free_tcp_port()
        popts = ["-p", str(port)] + opts
        srv = Proc(self.argv("server", ips[0], popts + list(server_opts), vdev_args=vdev_args))
        cli = None
        try:
            if not srv.wait_line(r"^  local address:", STARTUP_S):
                srv.kill()
                return srv.finish(0), None, srv, None
            cli = Proc(self.argv("client", ips[1], popts + list(client_opts), "127.0.0.1",
                                 vdev_args))
            end = time.monotonic() + timeout
            crc = cli.finish(end - time.monotonic())
            src = srv.finish(end - time.monotonic())
            return src, crc, srv, cli
        finally:
            srv.kill()
            if cli is not None:
                cli.kill()

    def single(self, role, ip, opts, server=None, timeout=REFUSE_S, vdev_args=""):
        """One process alone (ip None: no --ip); returns (rc, elapsed seconds, proc)."""
        self.runs += 1
        start = time.monotonic()
        proc = Proc(self.argv(role, ip, opts, server, vdev_args))
        try:
            rc = proc.finish(timeout)
        finally:
            proc.kill()
        return rc, time.monotonic() - start, proc


def free_tcp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Skip(Exception):
    """A case that cannot run here; its message says why."""


class Fail(Exception):
    pass


def check(cond, why):
    if not cond:
        raise Fail(why)



def refused(opts, pattern, ip=SERVER_IP + PREFIX, vdev_args=""):
    """A case: the server alone with opts exits non-zero, saying pattern, before any exchange."""
    def run(h, results):
        rc, secs, proc = h.single("server", ip, opts, vdev_args=vdev_args)
        check(rc not in (0, None), "exit status %s after %.1f s" % (rc, secs))
        check(re.search(pattern, proc.text()), "message:\n%s" % proc.text())
        check(not any(RE_ADDR.match(l) for l in proc.out), "refused before any exchange")
    return run


def run_cases(doc, cases, make=Harness):
    """TAP over cases [(name, fn(harness, results))]; argv: BINARY ROCE_DUMP [NAME_PART].

    make(BINARY, ROCE_DUMP, tmpdir) builds the harness the cases get.
    """
    if len(sys.argv) not in (3, 4):
        print(doc)
        return 2
    binary, roce_dump = sys.argv[1], sys.argv[2]
    cases = [c for c in cases if len(sys.argv) == 3 or sys.argv[3] in c[0]]
    print("1..%d" % len(cases))
    failed = 0
    results = []
    with tempfile.TemporaryDirectory(prefix="pingpong_") as tmpdir:
        h = make(binary, roce_dump, tmpdir)
        for i, (name, fn) in enumerate(cases, 1):
            try:
                fn(h, results)
                print("ok %d - %s" % (i, name))
            except Skip as e:
                print("ok %d - %s # SKIP %s" % (i, name, e))
            except Fail as e:
                failed += 1
                print("not ok %d - %s" % (i, name))
                for line in str(e).splitlines():
                    print("#   " + line)
            sys.stdout.flush()
    for r in results:
        print("# " + r)
    return 1 if failed else 0
