#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unmodified Debian perftest on librte_roce through roce-run (TAP output).

usage: test_verbs_perftest.py ROCE_RUN LIBRTE_ROCE_VERBS [NAME_PART]

Debian's perftest tools (ib_write_bw, ib_send_bw, ib_read_bw, ib_atomic_bw,
ib_write_lat, ib_send_lat), as Debian builds them, run as a server and a
client process, each under roce-run with its own configuration file, over
net_memif (doc/verbs-abi.md, "perftest"), with the configuration files the
README shows (config/verbs-memif-{server,client}.conf, on a socket of the
test's own). The server's port has
report_active (perftest checks the port state before its peer process
exists) and a worker lcore (perftest's servers and its _lat tools wait
without calling verbs); the client's open waits for the memif link. Checks:
both exit 0, both print the same QP numbers crosswise, and the client's
result line reports every iteration of the message size asked for. Small
runs: these are correctness checks, not measurements. Skipped, saying why,
when perftest is not installed or the library is built with a sanitizer.
Python 3 standard library only.
"""

import os
import re
import sys

from pp_memif import check, free_tcp_port
from test_verbs_preload import Env, main

TOOLS = ("ib_write_bw", "ib_send_bw", "ib_read_bw", "ib_atomic_bw", "ib_write_lat",
         "ib_send_lat")
CONFIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "config")
SHIPPED_SOCKET = "/tmp/roce-verbs-memif.sock"
ITERS = 200
# The _lat tools hand every message across four busy threads on the CI's two
# CPUs (milliseconds each, doc/verbs-abi.md "Performance"): fewer of them.
LAT_ITERS = 50

# " 65536      200   12.34   12.30   0.000197" (bw) or
# " 2       200   10.1   90.2   20.3   25.5   6.7   88.1   90.2" (lat): size, iterations, ...
RE_RESULT = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s")
RE_QPN = re.compile(r"^\s*(local|remote) address: LID \w+ QPN (0x[0-9a-f]+)")


def shipped(side):
    with open(os.path.join(CONFIG_DIR, "verbs-memif-%s.conf" % side)) as f:
        text = f.read()
    check(SHIPPED_SOCKET in text, "config/verbs-memif-%s.conf: no %s" % (side, SHIPPED_SOCKET))
    return text


def perftest(tool, size, opts=(), iters=ITERS):
    def run(env, results):
        sock = os.path.join(env.tmpdir, "memif%d.sock" % env.runs)
        port = free_tcp_port()
        srv_conf, cli_conf = (env.config(shipped(side).replace(SHIPPED_SOCKET, sock))
                              for side in ("server", "client"))
        argv = [tool, "-x", "1", "-p", str(port), "-n", str(iters), "-s", str(size)] + list(opts)
        srv, cli = env.pair(srv_conf, cli_conf, argv, port)
        qpn = {side: {m.group(1): m.group(2) for m in map(RE_QPN.match, proc.out) if m}
               for side, proc in (("server", srv), ("client", cli))}
        check(len(qpn["server"]) == 2 and qpn["server"]["local"] == qpn["client"]["remote"] and
              qpn["server"]["remote"] == qpn["client"]["local"], "QP numbers %s" % qpn)
        res = [m for m in map(RE_RESULT.match, cli.out) if m]
        check(len(res) == 1 and int(res[0].group(1)) == size and int(res[0].group(2)) == iters,
              "client result:\n%s" % cli.text())
        unit = "t_min/t_max usec" if tool.endswith("_lat") else "BW peak/average MB/s"
        results.append("%s %d x %d B: %s %s" % (tool, iters, size, unit,
                                                "/".join(res[0].group(3, 4))))
    return run


CASES = [
    ("ib_write_bw 64 KiB", perftest("ib_write_bw", 65536)),
    ("ib_send_bw 4 KiB", perftest("ib_send_bw", 4096)),
    ("ib_read_bw 64 KiB", perftest("ib_read_bw", 65536)),
    ("ib_atomic_bw", perftest("ib_atomic_bw", 8)),
    ("ib_write_lat 64 B", perftest("ib_write_lat", 64, iters=LAT_ITERS)),
    ("ib_send_lat 64 B", perftest("ib_send_lat", 64, iters=LAT_ITERS)),
]


if __name__ == "__main__":
    sys.exit(main(__doc__, CASES, TOOLS, "perftest"))
