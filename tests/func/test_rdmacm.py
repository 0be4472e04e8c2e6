#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unmodified Debian librdmacm programs on librte_roce through roce-run (TAP output).

usage: test_rdmacm.py ROCE_RUN LIBRTE_ROCE_VERBS [NAME_PART]

rping, ucmatose, rdma_server/rdma_client, udaddy (package rdmacm-utils) and
perftest's ib_send_bw and ib_write_bw with -R (rdma_cm), as Debian builds
them, run as a server and a client process (and ib_write_bw -R against
app/roce_perf -R, each role, roce_perf on librte_roce_cm directly), each under roce-run with its
own configuration file, over net_memif; their rdma_* calls are
librte_roce_verbs' on librte_roce_cm (doc/verbs-abi.md, "librdmacm"). The
client starts once the server's layer logged its listen. Checks: both exit
0 and report what they moved (rping -V verifies every ping on both sides;
ucmatose several connections; udaddy several UD ids resolved by SIDR;
perftest the client's result line; a pair whose client lost perftest's
own listen race runs once more, see lost_listen_race). udaddy's failures:
the server's application rejects (UNREACHABLE, status 2). Bad use,
one process on net_ring (which receives what it sends): a connect to a port
nobody listens on ends in RDMA_CM_EVENT_REJECTED with reason 8 (invalid
service ID), a SIDR_REQ to a port nobody serves in UNREACHABLE
with status 1; a bind to an address of no port, udaddy's RDMA_PS_IPOIB and
rstream's rsocket() are refused with a log naming why; without a
configuration the preloaded library hands rdma_cm to the real librdmacm.
Skipped, saying why, when
rdmacm-utils or perftest is not installed or the library is built with a
sanitizer. Python 3 standard library only.
"""

import os
import re
import sys

from pp_memif import Proc, check, free_tcp_port
from test_verbs_preload import CLIENT_IP, EAL_ARGS, RUN_S, SERVER_IP, STARTUP_S, main

TOOLS = ("rping", "ucmatose", "rdma_server", "rdma_client", "udaddy", "rstream", "ib_send_bw",
         "ib_write_bw")
RE_LISTEN = r"ROCE verbs: .* listens on"
PINGS = 50
UDADDY_CONNS = 4


class Cm:
    """The pair of processes: their configuration files and argv."""

    def __init__(self, env, srv_worker=True):
        """srv_worker False: the server's progress is inline (poll_cq, the layer's CM thread)."""
        sock = os.path.join(env.tmpdir, "memif%d.sock" % env.runs)
        self.env = env
        self.srv_conf = env.config("[port s]\ndev = net_memif0,role=server,socket=%s\n"
                                   "addr = %s/24\nreport_active = yes\n%s"
                                   % (sock, SERVER_IP, "workers = 0\n" if srv_worker else ""))
        self.cli_conf = env.config("[port c]\ndev = net_memif0,role=client,socket=%s\n"
                                   "addr = %s/24\nworkers = 1\n" % (sock, CLIENT_IP))

    def argv(self, conf, prog):
        """The layer's log (stderr) and the tool's lines (stdout, line-buffered) in one stream."""
        return ["sh", "-c", 'exec "$@" 2>&1', "sh", "sh", self.env.roce_run, "--config", conf,
                "--eal-args", EAL_ARGS + " --log-level=lib.roce.verbs:info", "--",
                "stdbuf", "-oL"] + prog

    def pair(self, srv_prog, cli_prog, exits=(0, 0), lost=None):
        """Server, then the client once the server listens: their exit statuses are exits
        (lost: as for pair_when)."""
        return self.env.pair_when(self.argv(self.srv_conf, srv_prog),
                                  self.argv(self.cli_conf, cli_prog),
                                  lambda srv: srv.wait_line(RE_LISTEN, STARTUP_S), exits, lost)


def count(proc, pattern):
    """Lines of the process (stdout and stderr) that match."""
    return sum(1 for line in proc.out + proc.err if re.search(pattern, line))


def case_rping(env, results):
    port = str(free_tcp_port())
    srv, cli = Cm(env).pair(["rping", "-s", "-a", SERVER_IP, "-p", port, "-C", str(PINGS),
                             "-v", "-V"],
                            ["rping", "-c", "-a", SERVER_IP, "-p", port, "-C", str(PINGS),
                             "-v", "-V"])
    check(count(cli, r"^ping data: rdma-ping-") == PINGS and
          count(srv, r"^server ping data: rdma-ping-") == PINGS,
          "pings:\n--- server\n%s\n--- client\n%s" % (srv.text(), cli.text()))
    results.append("rping -V: %d pings verified both ways" % PINGS)


def case_ucmatose(env, results):
    port = str(free_tcp_port())
    srv, cli = Cm(env).pair(["ucmatose", "-b", SERVER_IP, "-p", port, "-c", "8", "-C", "10"],
                            ["ucmatose", "-s", SERVER_IP, "-p", port, "-c", "8", "-C", "10"])
    for side, proc in (("server", srv), ("client", cli)):
        check(count(proc, r"^test complete") == 1 and count(proc, r"^return status 0") == 1,
              "%s:\n%s" % (side, proc.text()))
    results.append("ucmatose: 8 connections, 10 messages each way on each")


def case_rdma_server(env, results):
    port = str(free_tcp_port())
    srv, cli = Cm(env).pair(["rdma_server", "-p", port],
                            ["rdma_client", "-s", SERVER_IP, "-p", port])
    check(count(srv, r"^rdma_server: end 0") == 1 and count(cli, r"^rdma_client: end 0") == 1,
          "--- server\n%s\n--- client\n%s" % (srv.text(), cli.text()))


def lost_listen_race(cli):
    """perftest 4.5 -R's server listens for the data connection only after the handshake on its
    first one, so the client's connect can come first and be rejected (reason 8, as a kernel
    rdma_cm does); the client's retry then uses the ids it freed and dies (doc/verbs-abi.md)."""
    return count(cli, r"^Event: RDMA_CM_EVENT_REJECTED; error: 8\.") == 1 and \
        not any(re.match(r"^\s*\d+\s+200\s", l) for l in cli.out)


def perftest(tool, size):
    def run(env, results):
        for lost in (lost_listen_race, None):   # one more pair after perftest's own race
            port = str(free_tcp_port())
            argv = [tool, "-R", "-p", port, "-n", "200", "-s", str(size)]
            srv, cli = Cm(env).pair(argv, argv + [SERVER_IP], lost=lost)
            if lost is None or cli.p.returncode == 0:
                break
            results.append("%s -R: the client lost perftest's listen race, run again" % tool)
        res = [l.split() for l in cli.out if re.match(r"^\s*%d\s+200\s" % size, l)]
        check(len(res) == 1, "client result:\n%s" % cli.text())
        results.append("%s -R 200 x %d B: average %s MB/s" % (tool, size, res[0][3]))
    return run


def roce_perf_argv(env, role, ip, sock, args):
    """app/roce_perf on its own memif end (ROCE_PERF, set by meson), stderr into stdout."""
    env.runs += 1
    return ["sh", "-c", 'exec "$@" 2>&1', "sh", os.environ["ROCE_PERF"], "--no-huge", "-m", "512",
            "--no-shconf", "--no-pci", "--no-telemetry", "--log-level=lib.eal:warning",
            "--file-prefix", "rp%d_%d" % (os.getpid(), env.runs),
            "--vdev", "net_memif0,role=%s,socket=%s" % (role, sock), "--",
            "--ip", ip + "/24", "-R"] + args


def roce_perf_vs(tool, perftest_serves):
    """Unmodified perftest -R against app/roce_perf -R, perftest serving or connecting."""
    def run(env, results):
        port = str(free_tcp_port())
        sock = os.path.join(env.tmpdir, "memif%d.sock" % env.runs)  # the one Cm makes
        cm = Cm(env)
        args = ["-p", port, "-n", "200", "-s", "65536"]
        if perftest_serves:
            srv_argv = cm.argv(cm.srv_conf, [tool, "-R"] + args)
            cli_argv = roce_perf_argv(env, "client", CLIENT_IP, sock,
                                      ["--test", tool[3:]] + args + [SERVER_IP])
            ready = RE_LISTEN
        else:
            srv_argv = roce_perf_argv(env, "server", SERVER_IP, sock,
                                      ["--test", tool[3:]] + args)
            cli_argv = cm.argv(cm.cli_conf, [tool, "-R"] + args + [SERVER_IP])
            ready = r"roce_perf: -R: listening on port"
        srv, cli = env.pair_when(srv_argv, cli_argv, lambda s: s.wait_line(ready, STARTUP_S))
        rows = [l.split() for p in (srv, cli) for l in p.out if re.match(r"^\s*65536\s+200\s", l)]
        check(len(rows) == 2, "result lines:\n--- server\n%s\n--- client\n%s"
              % (srv.text(), cli.text()))
        results.append("%s -R %s, roce_perf -R %s: 200 x 64 KiB" % (
            tool, "serving" if perftest_serves else "connecting",
            "connecting" if perftest_serves else "serving"))
    return run


def case_rejected(env, results):
    rc, proc = env.run(env.ring_config(), ["rping", "-c", "-a", SERVER_IP, "-p",
                                   str(free_tcp_port()), "-C", "1"])
    check(rc not in (0, None) and
          count(proc, r"RDMA_CM_EVENT_REJECTED, error 8") == 1,
          "exit %s:\n%s" % (rc, proc.text()))


def case_bad_address(env, results):
    rc, proc = env.run(env.ring_config(), ["rping", "-s", "-a", "192.0.2.1", "-C", "1"])
    check(rc not in (0, None) and
          count(proc, r"192\.0\.2\.1 is on no port of ROCE_VERBS_CONFIG") == 1 and
          count(proc, r"rdma_bind_addr: Cannot assign requested address") == 1,
          "exit %s:\n%s" % (rc, proc.text()))


def case_udaddy(env, results):
    """udaddy -c 4: four UD ids resolved by SIDR, 10 SENDs each way on each.

    The client sends to the QPN and Q_Key of its ESTABLISHED event through an
    AH made from the event's ah_attr; the server answers through AHs made by
    ibv_create_ah_from_wc() from the GRH of what it received."""
    conns = ["-c", str(UDADDY_CONNS)]
    srv, cli = Cm(env).pair(["udaddy", "-b", SERVER_IP] + conns,
                            ["udaddy", "-s", SERVER_IP] + conns)
    for side, proc in (("server", srv), ("client", cli)):
        check(count(proc, r"^data transfers complete") == 1 and
              count(proc, r"^return status 0") == 1, "%s:\n%s" % (side, proc.text()))
    results.append("udaddy: %d UD ids, 10 messages each way on each" % UDADDY_CONNS)


def case_udaddy_rejected(env, results):
    """The server's udaddy rejects (rdma_reject: its message size is above the
    active MTU): SIDR_REP status 2, the client's UNREACHABLE with it, exit 2.

    The server exits right after rdma_reject, with inline progress: the
    SIDR_REP leaves all the same (the layer's exit waits for its CMs' MADs)."""
    srv, cli = Cm(env, srv_worker=False).pair(["udaddy", "-b", SERVER_IP, "-S", "5000"],
                            ["udaddy", "-s", SERVER_IP], exits=(0, 2))
    check(count(srv, r"^udaddy: failing connection request") == 1 and
          count(cli, r"^udaddy: event: RDMA_CM_EVENT_UNREACHABLE, error: 2$") == 1,
          "--- server\n%s\n--- client\n%s" % (srv.text(), cli.text()))


def case_udaddy_unsupported(env, results):
    """A SIDR_REQ for a port nobody serves: our CM's SIDR_REP status 1 (service
    ID not supported), UNREACHABLE with it, as Linux's rdma_cm reports it."""
    rc, proc = env.run(env.ring_config(), ["udaddy", "-s", SERVER_IP])
    check(rc == 1 and count(proc, r"^udaddy: event: RDMA_CM_EVENT_UNREACHABLE, error: 1$") == 1,
          "exit %s:\n%s" % (rc, proc.text()))


def case_ipoib_refused(env, results):
    rc, proc = env.run(env.ring_config(), ["udaddy", "-P", "ipoib", "-s", SERVER_IP])
    check(rc not in (0, None) and count(proc, r"RDMA_PS_IPOIB takes its Q_Key from an IPoIB "
                                               r"group: no IPoIB on RoCE") == 1,
          "exit %s:\n%s" % (rc, proc.text()))


def case_rsockets_refused(env, results):
    """rstream's first call, rsocket(), fails with ENOSYS and the log says why: no crash."""
    rc, proc = env.run(env.ring_config(), ["rstream", "-s", SERVER_IP])
    check(rc not in (0, None) and count(proc, r"rsockets .* are not served") == 1,
          "exit %s:\n%s" % (rc, proc.text()))


def case_no_config(env, results):
    """Without a configuration, rping behaves as the real librdmacm makes it."""
    argv = ["rping", "-c", "-a", "127.0.0.1", "-C", "1"]
    plain = Proc(argv)
    prc = plain.finish(RUN_S)
    pre = Proc(["env", "-u", "ROCE_VERBS_CONFIG", "LD_PRELOAD=" + env.lib] + argv)
    rc = pre.finish(RUN_S)
    check(rc == prc and pre.out == plain.out, "exit %s (plain %s):\n%s\n--- plain\n%s"
          % (rc, prc, pre.text(), plain.text()))


CASES = [
    ("rping -V over memif", case_rping),
    ("ucmatose, 8 connections, over memif", case_ucmatose),
    ("rdma_server and rdma_client over memif", case_rdma_server),
    ("ib_send_bw -R over memif", perftest("ib_send_bw", 4096)),
    ("ib_write_bw -R over memif", perftest("ib_write_bw", 65536)),
    ("ib_write_bw -R server, roce_perf -R client", roce_perf_vs("ib_write_bw", True)),
    ("roce_perf -R server, ib_write_bw -R client", roce_perf_vs("ib_write_bw", False)),
    ("connect to a port nobody listens on: REJECTED, reason 8", case_rejected),
    ("bind to an address of no port: refused, named", case_bad_address),
    ("udaddy -c 4 over memif", case_udaddy),
    ("udaddy rejected by the server's application: UNREACHABLE, status 2", case_udaddy_rejected),
    ("udaddy to a port nobody serves: UNREACHABLE, status 1", case_udaddy_unsupported),
    ("udaddy -P ipoib (RDMA_PS_IPOIB): refused, named", case_ipoib_refused),
    ("rstream (rsockets): refused, named", case_rsockets_refused),
    ("without a configuration rdma_cm is the real librdmacm", case_no_config),
]


if __name__ == "__main__":
    sys.exit(main(__doc__, CASES, TOOLS, "rdmacm-utils, perftest"))
