#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""UCX (Debian's libucx0) on librte_roce through roce-run (TAP output).

usage: test_verbs_ucx.py ROCE_RUN LIBRTE_ROCE_VERBS [NAME_PART]

ucx_info and ucx_perftest (package ucx-utils, unmodified) under roce-run
(doc/verbs-abi.md, "UCX"). UCX 1.13 lists a device only when
/dev/infiniband/DEV is a character device; roce-run --dev-nodes makes
those nodes in a private mount namespace (root only). Checks: without
--dev-nodes ucx_info -d shows no roce0 memory domain; with it roce0 and its
transports rc_verbs and ud_verbs on roce0:1; two ucx_perftest processes, each
with its own configuration file and net_af_packet on one end of a veth pair
the test makes, run the transport-level
put bandwidth test (64 KiB zero-copy RDMA WRITEs) and active-message
latency test over rc_verbs, the latter over ud_verbs (UCX's GRH check off),
and UCP's tag-matching latency test (rc_verbs, ud_verbs for wire-up); the
client reports every iteration.
Skipped, saying why, when ucx-utils is not installed, the tests do not run
as root, or the library is built with a sanitizer. Python 3 standard
library only.
"""

import os
import re
import subprocess
import sys

from pp_memif import check, free_tcp_port
from test_verbs_preload import CLIENT_IP, SERVER_IP, main

TOOLS = ("ucx_info", "ucx_perftest")
DEV_NODES = ["--dev-nodes"]
# "Final:                  1000    133.051   676.975   676.975       92.32      92.32        1479        1479"
RE_FINAL = re.compile(r"^Final:\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$")


def ucx_info(env, opts):
    rc, proc = env.run(env.ring_config(), ["ucx_info", "-d"], opts=opts)
    check(rc == 0, "exit status %s:\n%s" % (rc, proc.text()))
    return "\n".join(proc.out), proc


def case_no_node(env, results):
    """UCX skips a device without /dev/infiniband/DEV: the proof that the node is needed."""
    text, proc = ucx_info(env, ())
    check("# Memory domain: roce0" not in text, "roce0 listed without its node:\n%s" % text)


def case_info(env, results):
    text, proc = ucx_info(env, DEV_NODES)
    check("# Memory domain: roce0" in text, "no roce0 memory domain:\n%s" % proc.text())
    for tl in ("rc_verbs", "ud_verbs"):
        check(re.search(r"Transport: %s\n#\s+Device: roce0:1\n" % tl, text),
              "no %s on roce0:1:\n%s" % (tl, text))


class Veth:
    """A veth pair of names unique to this process, up, no kernel IPv6 on it: one end for
    each ucx_perftest process (net_af_packet). DPDK 22.11's memif client connects once, when
    its port starts, and ucx_perftest opens its device on both sides at once, after its TCP
    handshake: a memif pair would race (doc/verbs-abi.md, "UCX")."""

    def __init__(self):
        self.names = ["rucx%da" % os.getpid(), "rucx%db" % os.getpid()]
        cmds = ["ip link add %s type veth peer name %s" % tuple(self.names)] + \
               ["echo 1 > /proc/sys/net/ipv6/conf/%s/disable_ipv6 && ip link set %s up" % (n, n)
                for n in self.names]
        for cmd in cmds:
            subprocess.run(cmd, shell=True, check=True, capture_output=True)

    def delete(self):
        subprocess.run(["ip", "link", "del", self.names[0]], capture_output=True)


# UCX's ud_verbs drops a UD receive whose GRH destination does not match its GIDs, reading
# the packet type (IPv4 or IPv6) from the completion's sl as mlx5 reports it; verbs' sl
# carries no such thing (doc/verbs-abi.md, "UCX"): the check is turned off.
UD_ENV = {"UCX_UD_VERBS_ETH_DGID_CHECK": "n"}
# UCP's tag matching on the device: rc_verbs, with ud_verbs for its wire-up.
UCP_ENV = dict(UD_ENV, UCX_NET_DEVICES="roce0:1", UCX_TLS="rc_verbs,ud_verbs,self")


def perftest(test, size, iters, opts=(), env_vars=None):
    """ucx_perftest: a transport-level test on tl, or a UCP one (opts without -d)."""
    def run(env, results):
        port = free_tcp_port()
        veth = Veth()
        os.environ.update(env_vars or {})
        try:
            srv_conf, cli_conf = (env.config("[port %s]\ndev = net_af_packet%d,iface=%s\n"
                                             "addr = %s/24\n" % (side, i, veth.names[i], ip))
                                  for i, (side, ip) in enumerate((("s", SERVER_IP),
                                                                  ("c", CLIENT_IP))))
            argv = ["ucx_perftest", "-p", str(port), "-t", test, "-n", str(iters), "-s",
                    str(size)] + list(opts)
            srv, cli = env.pair(srv_conf, cli_conf, argv, port, DEV_NODES)
        finally:
            veth.delete()
            for k in env_vars or {}:
                os.environ.pop(k)
        final = [m for m in map(RE_FINAL.match, cli.out) if m]
        check(len(final) == 1 and int(final[0].group(1)) == iters,
              "client result:\n%s" % cli.text())
        f = final[0]
        what = ("%s MB/s" % f.group(5) if test.endswith("_bw") else
                "median %s usec" % f.group(2))
        results.append("ucx_perftest -t %s %s %d x %d B: %s" % (test, " ".join(opts), iters,
                                                                size, what))
    return run


CASES = [
    ("ucx_info -d without --dev-nodes: no roce0", case_no_node),
    ("ucx_info -d with --dev-nodes: roce0, rc_verbs and ud_verbs", case_info),
    ("ucx_perftest put_bw 64 KiB zcopy over rc_verbs",
     perftest("put_bw", 65536, 1000, ("-d", "roce0:1", "-x", "rc_verbs", "-D", "zcopy"))),
    ("ucx_perftest am_lat 64 B over rc_verbs",
     perftest("am_lat", 64, 1000, ("-d", "roce0:1", "-x", "rc_verbs"))),
    ("ucx_perftest am_lat 64 B over ud_verbs (GRH check off)",
     perftest("am_lat", 64, 1000, ("-d", "roce0:1", "-x", "ud_verbs"), env_vars=UD_ENV)),
    ("ucx_perftest tag_lat 64 B (UCP on rc_verbs, ud_verbs wire-up)",
     perftest("tag_lat", 64, 1000, env_vars=UCP_ENV)),
]


if __name__ == "__main__":
    if len(sys.argv) in (3, 4) and os.geteuid() != 0:
        print("1..0 # SKIP roce-run --dev-nodes makes device nodes in a mount namespace: root only")
        sys.exit(0)
    sys.exit(main(__doc__, CASES, TOOLS, "ucx-utils"))
