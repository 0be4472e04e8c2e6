#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unmodified Debian libibverbs programs on librte_roce through roce-run (TAP output).

usage: test_verbs_preload.py ROCE_RUN LIBRTE_ROCE_VERBS [NAME_PART]

ibv_devices, ibv_devinfo -v and ibv_rc_pingpong (package ibverbs-utils, as
Debian builds them) run under roce-run, which preloads librte_roce_verbs.so
in front of the real libibverbs (doc/verbs-abi.md). Checks: the device list
names roce0 with the EUI-64 GUID of the configured MAC; ibv_devinfo shows
the port ACTIVE on Ethernet and the GID table as RoCE v2 entries; two
ibv_rc_pingpong processes, each with its own configuration file, connect
over net_memif (polling, and with -e through a completion channel) and
report the bytes moved, and so do ibv_uc_pingpong, ibv_srq_pingpong and
ibv_ud_pingpong; a memif server with no peer waits link_wait_ms at open,
then shows PORT_DOWN and names the keys, or with report_active shows
PORT_ACTIVE at once; without a configuration the preloaded library
changes nothing; a broken configuration is refused naming its line, and
roce-run refuses a missing one; a memif peer (ibv_devinfo) that exits while
verbs_peer_gone polls with a worker lcore leaves that port ACTIVE and
nothing faults. Skipped, saying why, when ibverbs-utils is
not installed or the library is built with a sanitizer (ROCE_TEST_SANITIZE). Python 3 standard library only.
"""

import os
import re
import shutil
import subprocess
import sys
import time

from pp_memif import RE_ADDR, RE_BW, RE_LAT, Proc, Skip, check, free_tcp_port, run_cases

EAL_ARGS = "--no-huge -m 256 --no-telemetry --log-level=lib.eal:warning"
MAC = "02:00:00:00:00:0a"
GUID = "000000fffe00000a"            # EUI-64 of MAC, U/L bit inverted (as rxe)
SERVER_IP = "198.18.0.1"             # RFC 2544 benchmarking range
CLIENT_IP = "198.18.0.2"
IP6 = "2001:db8::1"                  # RFC 3849 documentation range
TOOLS = ("ibv_devices", "ibv_devinfo", "ibv_rc_pingpong", "ibv_uc_pingpong", "ibv_srq_pingpong",
         "ibv_ud_pingpong")
RUN_S = 120
STARTUP_S = 60
ITERS = 200
SIZE = 4096


class Env:
    def __init__(self, roce_run, lib, tmpdir):
        self.roce_run = roce_run
        self.lib = lib
        self.tmpdir = tmpdir
        self.runs = 0
        os.environ["ROCE_VERBS_LIB"] = lib

    def config(self, text):
        self.runs += 1
        path = os.path.join(self.tmpdir, "roce%d.conf" % self.runs)
        with open(path, "w") as f:
            f.write(text)
        return path

    def argv(self, conf, prog, opts=()):
        """prog under roce-run; opts: more roce-run options (--dev-nodes)."""
        argv = ["sh", self.roce_run]
        if conf is not None:
            argv += ["--config", conf]
        return argv + ["--eal-args", EAL_ARGS] + list(opts) + ["--"] + prog

    def run(self, conf, prog, timeout=RUN_S, opts=()):
        """One program under roce-run: (exit status or None if killed, proc)."""
        proc = Proc(self.argv(conf, prog, opts))
        try:
            rc = proc.finish(timeout)
        finally:
            proc.kill()
        return rc, proc

    def pair(self, srv_conf, cli_conf, prog, port, opts=()):
        """A server, then once it listens on port a client to 127.0.0.1: both exited 0."""
        return self.pair_when(self.argv(srv_conf, prog, opts),
                              self.argv(cli_conf, prog + ["127.0.0.1"], opts),
                              lambda srv: wait_listening(srv, port, STARTUP_S))

    def memif_pair_configs(self):
        """A memif server's and client's configuration files, on a socket of their own
        (the server with report_active: it starts first, its peer later)."""
        sock = os.path.join(self.tmpdir, "memif%d.sock" % self.runs)
        return (self.config("[port s]\ndev = net_memif0,role=server,socket=%s\naddr = %s/24\n"
                            "report_active = yes\n" % (sock, SERVER_IP)),
                self.config("[port c]\ndev = net_memif0,role=client,socket=%s\naddr = %s/24\n"
                            % (sock, CLIENT_IP)))

    def pair_when(self, srv_argv, cli_argv, ready, exits=(0, 0), lost=None):
        """A server, then once ready(server) is true a client: their exit statuses are exits
        (an element may be a tuple of the statuses accepted; None: still running, killed).
        lost(client), if given, tells a client that failed by losing a race its program has
        on any rdma_cm: the pair is then returned unchecked, the server stopped."""
        srv = Proc(srv_argv)
        cli = None
        try:
            check(ready(srv), "server did not start:\n%s" % srv.text())
            cli = Proc(cli_argv)
            crc = cli.finish(RUN_S)
            if lost is not None and crc != exits[1] and lost(cli):
                return srv, cli
            src = srv.finish(RUN_S)
        finally:
            srv.kill()
            if cli is not None:
                cli.kill()
        check(all(got in (want if isinstance(want, tuple) else (want,))
                  for got, want in zip((src, crc), exits)), "exit statuses %s %s:\n--- server\n%s\n--- client\n%s"
              % (src, crc, srv.text(), cli.text()))
        return srv, cli

    def ring_config(self):
        return self.config("[port a]\ndev = net_ring0\naddr = %s/24\naddr = %s/64\nmac = %s\n"
                           % (SERVER_IP, IP6, MAC))


def case_devices(env, results):
    rc, proc = env.run(env.ring_config(), ["ibv_devices"])
    check(rc == 0, "exit status %s:\n%s" % (rc, proc.text()))
    rows = [l.split() for l in proc.out if l.strip().startswith("roce")]
    check(rows == [["roce0", GUID]], "device rows %s:\n%s" % (rows, proc.text()))


def case_devinfo(env, results):
    rc, proc = env.run(env.ring_config(), ["ibv_devinfo", "-v"])
    out = "\n".join(proc.out)
    check(rc == 0, "exit status %s:\n%s" % (rc, proc.text()))
    for pattern in (r"hca_id:\s+roce0", r"node_guid:\s+0000:00ff:fe00:000a",
                    r"phys_port_cnt:\s+1", r"state:\s+PORT_ACTIVE \(4\)",
                    r"active_mtu:\s+\d+ \(\d\)", r"link_layer:\s+Ethernet",
                    r"GID\[\s*0\]:\s+fe80::ff:fe00:a, RoCE v2",
                    r"GID\[\s*1\]:\s+::ffff:%s, RoCE v2" % re.escape(SERVER_IP),
                    r"GID\[\s*2\]:\s+%s, RoCE v2" % re.escape(IP6)):
        check(re.search(pattern, out), "no line matching %r:\n%s" % (pattern, proc.text()))


def case_passthrough(env, results):
    """No configuration: ibv_devices says what it says without the preload."""
    plain = Proc(["ibv_devices"])
    prc = plain.finish(RUN_S)
    os.environ.pop("ROCE_VERBS_CONFIG", None)
    proc = Proc(["env", "LD_PRELOAD=" + env.lib, "ibv_devices"])
    rc = proc.finish(RUN_S)
    check(rc == prc and proc.out == plain.out and proc.err == plain.err,
          "preloaded: %s %s / plain: %s %s" % (rc, proc.text(), prc, plain.text()))


def case_bad_config(env, results):
    conf = env.config("[port a]\ndev = net_ring0\naddr = 300.1.2.3/24\n")
    rc, proc = env.run(conf, ["ibv_devices"])
    check(re.search(r"roce\d+\.conf:3: addr", proc.text()), "no FILE:LINE reason:\n%s"
          % proc.text())
    check(not any(l.strip().startswith("roce") for l in proc.out), "a device was listed")


def case_no_config(env, results):
    os.environ.pop("ROCE_VERBS_CONFIG", None)
    rc, proc = env.run(None, ["ibv_devices"])
    check(rc == 2 and re.search(r"no configuration", proc.text()),
          "exit status %s:\n%s" % (rc, proc.text()))


def memif_alone(extra):
    """ibv_devinfo on a memif server with no peer: (exit status, seconds, its output)."""
    def run(env):
        sock = os.path.join(env.tmpdir, "alone%d.sock" % env.runs)
        conf = env.config("[port s]\ndev = net_memif0,role=server,socket=%s\naddr = %s/24\n%s"
                          % (sock, SERVER_IP, extra))
        start = time.monotonic()
        rc, proc = env.run(conf, ["ibv_devinfo"])
        return rc, time.monotonic() - start, proc
    return run


def case_link_wait(env, results):
    """Opening waits link_wait_ms for a link that does not come, then says which knob."""
    rc, secs, proc = memif_alone("link_wait_ms = 1500\n")(env)
    check(rc == 0 and re.search(r"state:\s+PORT_DOWN", proc.text()),
          "exit status %s:\n%s" % (rc, proc.text()))
    check(secs >= 1.5 and re.search(r"link_wait_ms.*report_active = yes", proc.text()),
          "%.1f s, message:\n%s" % (secs, proc.text()))


def case_report_active(env, results):
    """report_active: ACTIVE with no peer, and no wait (well under the 10 s default)."""
    rc, secs, proc = memif_alone("report_active = yes\n")(env)
    check(rc == 0 and re.search(r"state:\s+PORT_ACTIVE", proc.text()),
          "exit status %s:\n%s" % (rc, proc.text()))
    check(secs < 10 and "link_wait_ms" not in proc.text(), "%.1f s:\n%s" % (secs, proc.text()))


def listening(port):
    """Whether a TCP socket listens on port (the server's stdout is a pipe: buffered until exit)."""
    with open("/proc/net/tcp") as f:
        return any(fields[1].endswith(":%04X" % port) and fields[3] == "0A"
                   for fields in (l.split() for l in list(f)[1:]))


def wait_listening(proc, port, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.p.poll() is None:
        if listening(port):
            return True
        time.sleep(0.1)
    return False


def unix_listening(path):
    """Whether a UNIX socket is bound to path, abstract (memif's default) or not."""
    with open("/proc/net/unix") as f:
        return any(l.split()[-1] in (path, "@" + path) for l in list(f)[1:] if len(l.split()) > 7)


def case_peer_gone(env, results):
    """A memif peer that exits while we poll: our port stays ACTIVE, nothing faults.

    DPDK 22.11's memif unmaps the rings in the EAL interrupt thread when the
    peer leaves, racing the worker that polls them (SIGSEGV, 1 in 25 rping
    runs under load); the layer keeps that thread once the link is up, so
    the leaving is never processed (doc/verbs-abi.md). VERBS_PEER_GONE
    (tests/func/verbs_peer_gone.c) polls with a worker lcore, ibv_devinfo is
    the peer."""
    prog = os.environ.get("VERBS_PEER_GONE")
    if not prog:
        raise Skip("VERBS_PEER_GONE is not set (meson sets it)")
    sock = os.path.join(env.tmpdir, "gone%d.sock" % env.runs)
    srv_conf = env.config("[port s]\ndev = net_memif0,role=server,socket=%s\naddr = %s/24\n"
                          "workers = 1\nlink_wait_ms = %d\n" % (sock, SERVER_IP, STARTUP_S * 1000))
    cli_conf = env.config("[port c]\ndev = net_memif0,role=client,socket=%s\naddr = %s/24\n"
                          % (sock, CLIENT_IP))
    srv = Proc(env.argv(srv_conf, [prog]), stdin=subprocess.PIPE)
    try:
        end = time.monotonic() + STARTUP_S
        while not unix_listening(sock) and time.monotonic() < end and srv.p.poll() is None:
            time.sleep(0.1)
        check(unix_listening(sock), "no memif socket:\n%s" % srv.text())
        rc, peer = env.run(cli_conf, ["ibv_devinfo"])
        check(rc == 0, "the peer's ibv_devinfo: exit %s:\n%s" % (rc, peer.text()))
        check(srv.wait_line(r"^up$", STARTUP_S), "the server's open:\n%s" % srv.text())
        srv.p.stdin.write("gone\n")
        srv.p.stdin.close()
        src = srv.finish(RUN_S)
    finally:
        srv.kill()
    check(src == 0 and any(l.startswith("port ACTIVE for") for l in srv.out),
          "exit status %s:\n%s" % (src, srv.text()))


def pingpong(tool, opts, size=SIZE):
    def run(env, results):
        port = free_tcp_port()
        srv_conf, cli_conf = env.memif_pair_configs()
        pp = [tool, "-g", "1", "-p", str(port), "-n", str(ITERS), "-s", str(size)] + opts
        srv, cli = env.pair(srv_conf, cli_conf, pp, port)
        for side, proc, local, remote in (("server", srv, SERVER_IP, CLIENT_IP),
                                          ("client", cli, CLIENT_IP, SERVER_IP)):
            addrs = {m.group(1): m.group(5) for m in map(RE_ADDR.match, proc.out) if m}
            # ibv_ud_pingpong prints its local line with ": GID", not ", GID": RE_ADDR skips it.
            check(addrs.get("remote") == "::ffff:" + remote and
                  addrs.get("local", "::ffff:" + local) == "::ffff:" + local,
                  "%s addresses %s" % (side, addrs))
            bw = [m for m in map(RE_BW.match, proc.out) if m]
            check(len(bw) == 1 and int(bw[0].group(1)) == size * ITERS * 2,
                  "%s result:\n%s" % (side, proc.text()))
        lat = [m.group(3) for m in map(RE_LAT.match, cli.out) if m]
        results.append("%s %s%d x %d B: %s usec/iter (client)"
                       % (tool, " ".join(opts) + " " if opts else "", ITERS, size, lat[0]))
    return run


CASES = [
    ("ibv_devices lists roce0 with its GUID", case_devices),
    ("ibv_devinfo -v: port, MTU, RoCE v2 GID table", case_devinfo),
    ("without a configuration the preload changes nothing", case_passthrough),
    ("a broken configuration is refused with its line", case_bad_config),
    ("roce-run refuses to run without a configuration", case_no_config),
    ("a memif server alone: open waits link_wait_ms, then PORT_DOWN", case_link_wait),
    ("a memif server alone with report_active: PORT_ACTIVE at once", case_report_active),
    ("ibv_rc_pingpong over memif, polling", pingpong("ibv_rc_pingpong", [])),
    ("ibv_rc_pingpong over memif, -e (completion channel)", pingpong("ibv_rc_pingpong", ["-e"])),
    ("ibv_uc_pingpong over memif", pingpong("ibv_uc_pingpong", [])),
    ("ibv_srq_pingpong over memif", pingpong("ibv_srq_pingpong", [])),
    ("ibv_ud_pingpong over memif, 512 B (one packet)", pingpong("ibv_ud_pingpong", [], 512)),
    ("a memif peer exits while we poll: the port stays ACTIVE", case_peer_gone),
]


def skip_reason(tools, package):
    """Why the cases cannot run here, or None."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        return ("%s not installed (Debian package %s; devtools/install-deps.sh installs it)"
                % (", ".join(missing), package))
    sanitize = os.environ.get("ROCE_TEST_SANITIZE", "none")
    if sanitize not in ("", "none"):
        # Debian's binaries are not instrumented: a sanitized library preloaded
        # into them finds no sanitizer runtime. The gcc build runs these cases.
        return "library built with -fsanitize=%s cannot be preloaded into Debian's tools" % sanitize
    return None


def main(doc, cases, tools, package):
    """TAP over the cases, or a skip line saying why they cannot run."""
    why = skip_reason(tools, package)
    if len(sys.argv) in (3, 4) and why is not None:
        print("1..0 # SKIP " + why)
        return 0
    return run_cases(doc, cases, make=Env)


if __name__ == "__main__":
    sys.exit(main(__doc__, CASES, TOOLS, "ibverbs-utils"))
