#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""examples/rping and examples/ucmatose in two processes over net_memif (TAP output).

usage: test_rping_memif.py RPING UCMATOSE [NAME_PART]
       (NAME_PART: run only the cases whose name contains it)

Both sides are ours, connected by librte_roce_cm (the IB CM on QP1, rdma_cm's
REQ header and service ID): rping server and client, IPv4 and IPv6, -V on
both sides and -v counted (every ping printed once by each side), the
largest size; a REQ to a port nobody listens on (REJECTED, reason 8 invalid
service ID, from our CM); an address nobody has (ADDR_ERROR after rping's
resolve timeout, from the port's ARP going unanswered); ucmatose with 8
connections at once. Against the kernel's rdma_cm the same programs run in
tests/interop (doc/interop.md).
Python 3 standard library only.
"""

import sys

from pp_memif import (CLIENT_IP, CLIENT_IP6, PREFIX, PREFIX6, RUN_S, STARTUP_S, SERVER_IP,
                      SERVER_IP6, Harness, Proc, check, free_tcp_port, run_cases)

ABSENT_IP = "198.18.0.3"        # on the link's subnet, held by nobody


def run_pair(h, binary, server_opts, client_opts, ready, v6=False):
    """Server (until ready is printed), then client; (server rc, client rc, server, client)."""
    ips = (SERVER_IP6 + PREFIX6, CLIENT_IP6 + PREFIX6) if v6 else \
        (SERVER_IP + PREFIX, CLIENT_IP + PREFIX)
    h.binary = binary
    h.runs += 1
    srv = Proc(h.argv("server", ips[0], server_opts))
    cli = None
    try:
        if not srv.wait_line(ready, STARTUP_S):
            srv.kill()
            return srv.finish(0), None, srv, None
        cli = Proc(h.argv("client", ips[1], client_opts))
        crc = cli.finish(RUN_S)
        return srv.finish(RUN_S), crc, srv, cli
    finally:
        srv.kill()
        if cli is not None:
            cli.kill()


def rping(size, count, v6=False):
    """A case: rping -V -v (-v only for small sizes) both ways, count pings of size bytes."""
    def run(h, _results):
        port = str(free_tcp_port())
        server = SERVER_IP6 if v6 else SERVER_IP
        opts = ["-p", port, "-V", "-S", str(size)] + (["-v"] if size <= 64 else [])
        src, crc, srv, cli = run_pair(h, h.rping, ["-s", "-a", server] + opts,
                                      ["-c", "-a", server, "-C", str(count)] + opts,
                                      r"^rping: listening on port", v6)
        text = "server:\n%s\nclient:\n%s" % (srv.text(), cli.text() if cli else "")
        check(src == 0 and crc == 0, "exit %s / %s\n%s" % (src, crc, text))
        if size <= 64:
            pings = [l for l in cli.out if l.startswith("ping data: rdma-ping-")]
            served = [l for l in srv.out if l.startswith("server ping data: rdma-ping-")]
            check(len(pings) == count and len(served) == count,
                  "%d and %d pings printed of %d\n%s" % (len(pings), len(served), count, text))
            check(pings[-1].startswith("ping data: rdma-ping-%d: " % (count - 1)), pings[-1])
        check(any("server DISCONNECT EVENT" in l for l in srv.err), text)
    return run


def rejected(h, _results):
    """A REQ for a port nobody listens on: our CM's REJ, reason 8; the client exits 1."""
    port = free_tcp_port()
    src, crc, srv, cli = run_pair(h, h.rping, ["-s", "-a", SERVER_IP, "-p", str(port),
                                               "--timeout", "5"],
                                  ["-c", "-a", SERVER_IP, "-p", str(port + 1 & 0xffff), "-C", "1"],
                                  r"^rping: listening on port")
    text = "server:\n%s\nclient:\n%s" % (srv.text(), cli.text() if cli else "")
    check(crc == 1, "client exit %s\n%s" % (crc, text))
    check("cma event RDMA_CM_EVENT_REJECTED, error 8" in cli.err, text)


def addr_error(h, _results):
    """A destination nobody answers ARP for: ADDR_ERROR -110 after rping's 2 s; the client exits 1.

    The server runs (the memif link is up, the ARP requests go out) but owns another address."""
    port = free_tcp_port()
    src, crc, srv, cli = run_pair(h, h.rping, ["-s", "-a", SERVER_IP, "-p", str(port),
                                               "--timeout", "8"],
                                  ["-c", "-a", ABSENT_IP, "-p", str(port), "-C", "1"],
                                  r"^rping: listening on port")
    text = "server:\n%s\nclient:\n%s" % (srv.text(), cli.text() if cli else "")
    check(crc == 1, "client exit %s\n%s" % (crc, text))
    check("cma event RDMA_CM_EVENT_ADDR_ERROR, error -110" in cli.err, text)
    check("timeout waiting for RDMA_CM_EVENT_CONNECT_REQUEST" in srv.err, "a REQ came\n" + text)


def ucmatose(h, _results):
    """ucmatose -c 8: eight connections at once, 10 SENDs each way on each, disconnects;
    --cm-stats: each side's CM counted eight connections established."""
    port = str(free_tcp_port())
    conns = ["-c", "8", "-p", port, "--cm-stats"]
    src, crc, srv, cli = run_pair(h, h.ucmatose, conns, ["-s", SERVER_IP] + conns,
                                  r"^cmatose: starting server")
    text = "server:\n%s\nclient:\n%s" % (srv.text(), cli.text() if cli else "")
    check(src == 0 and crc == 0, "exit %s / %s\n%s" % (src, crc, text))
    for p in (srv, cli):
        check("return status 0" in p.out and "data transfers complete" in p.out, text)
        stats = [l for l in p.out if l.startswith("cm counters:")]
        check(len(stats) == 1 and " cm_established 8 " in stats[0] + " ", text)


CASES = [
    ("rping IPv4, 200 pings of 64 B", rping(64, 200)),
    ("rping IPv6, 20 pings of 65535 B", rping(65535, 20, v6=True)),
    ("rping to a port nobody listens on: REJECTED 8", rejected),
    ("rping to an address nobody has: ADDR_ERROR -110", addr_error),
    ("ucmatose, 8 connections", ucmatose),
]


def make(rping, ucmatose, tmpdir):
    """The harness of pp_memif, told where both programs are."""
    h = Harness(rping, None, tmpdir)
    h.rping, h.ucmatose = rping, ucmatose
    return h


if __name__ == "__main__":
    sys.exit(run_cases(__doc__, CASES, make))
