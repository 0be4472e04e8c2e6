#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unmodified SPDK NVMe-oF RDMA target and host on librte_roce through roce-run (TAP output).

usage: test_spdk_nvmf.py ROCE_RUN LIBRTE_ROCE_VERBS [NAME_PART]

SPDK is not in Debian: the cases run when ROCE_SPDK_DIR names a built SPDK
tree (its build/bin and build/lib; doc/nvmf.md, "SPDK", says how it was
built against Debian's DPDK) and are skipped, saying so, otherwise. SPDK's
nvmf_tgt serves a 4 MiB malloc namespace over its RDMA transport, its
spdk_nvme_identify and spdk_nvme_perf are the host; each is a process of
its own under roce-run, over net_memif, so every ibv_* and rdma_* call of
SPDK is librte_roce_verbs' (doc/verbs-abi.md). Checks: the host identifies
the controller (the serial number the target was given), perf moves 64 KiB
reads and writes (RDMA WRITE and READ by the target) for 3 s and exits 0
with a non-zero IOPS figure, bdevperf's verify workload (SPDK's NVMe-oF
bdev as the host: each 64 KiB block written with a pattern, read back and
compared) runs 3 s with no failed or miscompared I/O, the target stops on
SIGTERM with exit 0, and neither process's rte_eal_cleanup() meets one of
our ports still started (DPDK's "Cannot close started device"). bdevperf is one of SPDK's examples: its case is skipped, saying
so, in a tree built without them. Python 3 standard library only.
"""

import json
import os
import re
import signal
import sys

from pp_memif import Proc, Skip, check
from test_verbs_preload import CLIENT_IP, SERVER_IP, STARTUP_S, RUN_S, main

TOOLS = ("nvmf_tgt", "spdk_nvme_identify", "spdk_nvme_perf")
NQN = "nqn.2026-11.org.librte-roce:spdk"
SERIAL = "ROCE0001"
PORT = "4420"
SPDK_MEM = ["--no-huge", "-s", "512"]
RE_LISTEN = r"NVMe/RDMA Target Listening on %s port %s" % (re.escape(SERVER_IP), PORT)
# What DPDK logs when rte_eal_cleanup() meets a port still started (our ports
# are stopped before: lib/roce_verbs/roce_verbs_eal.c).
NOT_STOPPED = "Cannot close started device"
# nvmf_tgt's shutdown on SIGTERM: its subsystems, transport and EAL.
STOP_S = 30
TRID = "trtype:RDMA adrfam:IPv4 traddr:%s trsvcid:%s subnqn:%s" % (SERVER_IP, PORT, NQN)


def target_json(path):
    """nvmf_tgt's configuration: a malloc bdev, the RDMA transport, one subsystem."""
    nvmf = [
        {"method": "nvmf_create_transport", "params": {"trtype": "RDMA", "max_queue_depth": 32}},
        {"method": "nvmf_create_subsystem",
         "params": {"nqn": NQN, "allow_any_host": True, "serial_number": SERIAL}},
        {"method": "nvmf_subsystem_add_ns",
         "params": {"nqn": NQN, "namespace": {"bdev_name": "Malloc0"}}},
        {"method": "nvmf_subsystem_add_listener",
         "params": {"nqn": NQN, "listen_address": {"trtype": "RDMA", "adrfam": "IPv4",
                                                     "traddr": SERVER_IP, "trsvcid": PORT}}},
    ]
    bdev = [{"method": "bdev_malloc_create",
             "params": {"name": "Malloc0", "num_blocks": 8192, "block_size": 512}}]
    with open(path, "w") as f:
        json.dump({"subsystems": [{"subsystem": "bdev", "config": bdev},
                                  {"subsystem": "nvmf", "config": nvmf}]}, f)


def host_json(path):
    """bdevperf's configuration: the target's namespace as an NVMe-oF bdev (Nvme0n1).

    SPDK's default bdev_io and buffer pools want more memory than a --no-huge
    test gives; 1,024 bdev_ios are plenty for queue depth 8.
    """
    bdev = [
        {"method": "bdev_set_options", "params": {"bdev_io_pool_size": 1024,
                                                  "bdev_io_cache_size": 32}},
        {"method": "bdev_nvme_attach_controller",
         "params": {"name": "Nvme0", "trtype": "RDMA", "adrfam": "IPv4", "traddr": SERVER_IP,
                    "trsvcid": PORT, "subnqn": NQN}},
    ]
    with open(path, "w") as f:
        json.dump({"subsystems": [{"subsystem": "bdev", "config": bdev}]}, f)


def under(env, conf, prog):
    """prog under roce-run, stderr with stdout; SPDK initialises the EAL itself."""
    return ["sh", "-c", 'exec "$@" 2>&1', "sh", "sh", env.roce_run, "--config", conf,
            "--"] + prog


def with_target(host_prog, then):
    """nvmf_tgt over memif, host_prog against it once it listens, then(host) checks."""
    def run(env, results):
        sock = os.path.join(env.tmpdir, "memif%d.sock" % env.runs)
        srv_conf = env.config("[port s]\ndev = net_memif0,role=server,socket=%s\n"
                              "addr = %s/24\nreport_active = yes\n" % (sock, SERVER_IP))
        cli_conf = env.config("[port c]\ndev = net_memif0,role=client,socket=%s\n"
                              "addr = %s/24\n" % (sock, CLIENT_IP))
        conf_json = os.path.join(env.tmpdir, "tgt%d.json" % env.runs)
        target_json(conf_json)
        tgt = Proc(under(env, srv_conf, ["nvmf_tgt"] + SPDK_MEM +
                         ["-u", "-m", "0x1", "--no-rpc-server", "-c", conf_json]))
        host = None
        try:
            check(tgt.wait_line(RE_LISTEN, STARTUP_S), "target did not listen:\n" + tgt.text())
            host = Proc(under(env, cli_conf, host_prog))
            hrc = host.finish(RUN_S)
            check(hrc == 0, "host exit %s:\n%s\n--- target\n%s" % (hrc, host.text(), tgt.text()))
            then(host)
            tgt.p.send_signal(signal.SIGTERM)
            trc = tgt.finish(STOP_S)
            check(trc == 0, "target exit %s after SIGTERM:\n%s" % (trc, tgt.text()))
            for who, proc in (("host", host), ("target", tgt)):
                check(NOT_STOPPED not in proc.text(),
                      "%s's EAL closed a started port:\n%s" % (who, proc.text()))
        finally:
            if host is not None:
                host.kill()
            tgt.kill()
    return run


def identified(host):
    check(re.search(r"Serial Number:\s+%s" % SERIAL, host.text()), host.text())


def perf_moved(host):
    m = re.search(r"^Total\s*:\s*([0-9.]+)\s+([0-9.]+)", host.text(), re.M)
    check(m and float(m.group(1)) > 0, "no I/O reported:\n" + host.text())
    print("# spdk_nvme_perf, 64 KiB 50%% reads, queue depth 8: %s IOPS, %s MiB/s"
          % (m.group(1), m.group(2)))


def verified(host):
    m = re.search(r"^\s*Total\s*:\s*([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)",
                  host.text(), re.M)
    check(m and float(m.group(1)) > 0, "no I/O reported:\n" + host.text())
    check(float(m.group(3)) == 0 and float(m.group(4)) == 0 and
          not re.search(r"miscompare|Verification failed", host.text(), re.I),
          "failed or miscompared I/O:\n" + host.text())
    print("# bdevperf verify, 64 KiB, queue depth 8: %s IOPS, %s MiB/s, none failed"
          % (m.group(1), m.group(2)))


def bdevperf_verify(env, results):
    """bdevperf from SPDK's examples, when the tree has them, against the target."""
    prog = os.path.join(os.environ["ROCE_SPDK_DIR"], "build", "examples", "bdevperf")
    if not os.access(prog, os.X_OK):
        raise Skip("%s missing: SPDK built without its examples (doc/nvmf.md, SPDK)" % prog)
    conf = os.path.join(env.tmpdir, "host%d.json" % env.runs)
    host_json(conf)
    # The target holds core 0's SPDK lock file; the host runs on the same core.
    with_target([prog, "--no-huge", "-s", "1024", "-u", "-m", "0x1", "--disable-cpumask-locks",
                 "--json", conf, "-q", "8", "-o", "65536", "-w", "verify", "-t", "3"],
                verified)(env, results)


CASES = [
    ("spdk_nvme_identify against nvmf_tgt",
     with_target(["spdk_nvme_identify", "-r", TRID, "--no-huge", "-d", "256"], identified)),
    ("spdk_nvme_perf 64 KiB randrw against nvmf_tgt",
     with_target(["spdk_nvme_perf", "-r", TRID, "--no-huge", "-s", "256", "-q", "8",
                  "-o", "65536", "-w", "randrw", "-M", "50", "-t", "3"], perf_moved)),
    ("bdevperf verify 64 KiB against nvmf_tgt", bdevperf_verify),
]


def spdk_env():
    """SPDK's programs and libraries on the search paths, or why they cannot be."""
    root = os.environ.get("ROCE_SPDK_DIR", "")
    if not root:
        return "SPDK is not in Debian; set ROCE_SPDK_DIR to a built SPDK tree (doc/nvmf.md, SPDK)"
    os.environ["PATH"] = os.path.join(root, "build", "bin") + os.pathsep + os.environ["PATH"]
    lib = os.path.join(root, "build", "lib")
    os.environ["LD_LIBRARY_PATH"] = lib + os.pathsep + os.environ.get("LD_LIBRARY_PATH", "")
    return None


if __name__ == "__main__":
    why = spdk_env()
    if why is not None and len(sys.argv) in (3, 4):
        print("1..0 # SKIP " + why)
        sys.exit(0)
    sys.exit(main(__doc__, CASES, TOOLS, "SPDK, ROCE_SPDK_DIR"))
