#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""libfabric's verbs provider (Debian's libfabric1) on librte_roce through roce-run (TAP output).

usage: test_verbs_libfabric.py ROCE_RUN LIBRTE_ROCE_VERBS [NAME_PART]

fi_info and fi_pingpong (package libfabric-bin, unmodified) under roce-run
(doc/verbs-abi.md, "libfabric"). Checks: fi_info -p verbs lists roce0 for
FI_EP_MSG (domain roce0), FI_EP_DGRAM (roce0-dgram) and FI_EP_RDM (the
ofi_rxd utility provider over roce0-dgram); two fi_pingpong processes, each
with its own configuration file, exchange 100 messages with data checks
(-c) over net_memif as DGRAM (UD QPs) and as RDM, and both report all of
them acknowledged; fi_pingpong -e msg's server, whose source address the
provider can take only from a kernel interface, fails with fi_getinfo's
ENODATA, not a crash. Skipped, saying why, when libfabric-bin is not
installed or the library is built with a sanitizer. Python 3 standard
library only.
"""

import re
import sys

from pp_memif import check, free_tcp_port
from test_verbs_preload import STARTUP_S, main, wait_listening

TOOLS = ("fi_info", "fi_pingpong")
ITERS = 100
SIZE = 64
# "64      100     =100     12k         0.06s      0.23     280.83       0.00"
RE_PP = re.compile(r"^\s*(\d+)\s+(\d+)\s+=(\d+)\s+\S+\s+\S+s\s+(\S+)\s+(\S+)\s+\S+\s*$")


def case_fi_info(env, results):
    rc, proc = env.run(env.ring_config(), ["fi_info", "-p", "verbs"])
    check(rc == 0, "exit status %s:\n%s" % (rc, proc.text()))
    text = "\n".join(proc.out)
    for domain, ep_type in (("roce0", "FI_EP_MSG"), ("roce0-dgram", "FI_EP_DGRAM"),
                            ("roce0-dgram", "FI_EP_RDM")):
        check(re.search(r"domain: %s\n\s+version: [\d.]+\n\s+type: %s\n" % (domain, ep_type), text),
              "no %s entry on %s:\n%s" % (ep_type, domain, proc.text()))


def pingpong(ep_type):
    def run(env, results):
        port = free_tcp_port()
        srv_conf, cli_conf = env.memif_pair_configs()
        argv = ["fi_pingpong", "-p", "verbs", "-e", ep_type, "-I", str(ITERS), "-S", str(SIZE),
                "-c"]
        # The server may not exit: in a fresh Debian root it stays after the client has
        # had all its answers and left (doc/verbs-abi.md, libfabric: open). The client's
        # row proves the traffic both ways; the server's row is checked when it exits.
        srv, cli = env.pair_when(env.argv(srv_conf, argv + ["-B", str(port)]),
                                 env.argv(cli_conf, argv + ["-P", str(port), "127.0.0.1"]),
                                 lambda srv: wait_listening(srv, port, STARTUP_S),
                                 exits=((0, None), 0))
        sides = (("server", srv), ("client", cli)) if srv.p.returncode == 0 else (("client", cli),)
        if srv.p.returncode != 0:
            results.append("fi_pingpong -e %s: the server did not exit after the client (open)"
                           % ep_type)
        for side, proc in sides:
            res = [m for m in map(RE_PP.match, proc.out) if m]
            check(len(res) == 1 and res[0].group(1, 2, 3) == (str(SIZE), str(ITERS), str(ITERS)),
                  "%s result:\n%s" % (side, proc.text()))
        results.append("fi_pingpong -e %s %d x %d B: %s usec/xfer (client)"
                       % (ep_type, ITERS, SIZE, res[0].group(5)))
    return run


def case_msg_refused(env, results):
    """The MSG server asks for "localhost" (the provider's fi_verbs.c, vrb_get_rdmacm_rai()),
    a bind the layer refuses, then for a kernel interface holding a port's address: none.
    It gets so far only once its client connected to its TCP control port."""
    port = free_tcp_port()
    srv_conf, cli_conf = env.memif_pair_configs()
    argv = ["fi_pingpong", "-p", "verbs", "-e", "msg"]
    # fi_pingpong exits with -ret: 61 (ENODATA); the client, its control socket closed, 103.
    srv, cli = env.pair_when(env.argv(srv_conf, argv + ["-B", str(port)]),
                             env.argv(cli_conf, argv + ["-P", str(port), "127.0.0.1"]),
                             lambda srv: wait_listening(srv, port, STARTUP_S), exits=(61, 103))
    check(re.search(r"fi_getinfo\(\).*ret=-61", srv.text()), "server:\n%s" % srv.text())


CASES = [
    ("fi_info -p verbs: roce0 for MSG, DGRAM and RDM", case_fi_info),
    ("fi_pingpong -e dgram over memif (UD)", pingpong("dgram")),
    ("fi_pingpong -e rdm over memif (ofi_rxd on UD)", pingpong("rdm")),
    ("fi_pingpong -e msg: the server finds no source address, ENODATA", case_msg_refused),
]


if __name__ == "__main__":
    sys.exit(main(__doc__, CASES, TOOLS, "libfabric-bin"))
