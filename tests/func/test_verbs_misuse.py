#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A plain program under roce-run (TAP output): verbs_misuse or rdmacm_misuse
(bad use of librte_roce_verbs), verbs_ex (the extended verbs), rdmacm_ex
(the librdmacm calls around a connection).

usage: test_verbs_misuse.py ROCE_RUN LIBRTE_ROCE_VERBS PROGRAM

Writes a configuration with two net_ring devices (roce0, roce1), runs the
plain libibverbs or librdmacm program under roce-run and passes its TAP on;
the program's exit status is the test's. Skipped, saying why, when the
library is built with a sanitizer (it cannot be preloaded). Python 3
standard library only.
"""

import os
import subprocess
import sys
import tempfile

from test_verbs_preload import EAL_ARGS, skip_reason

RUN_S = 300
CONFIG = ("[port a]\ndev = net_ring0\naddr = 198.18.0.1/24\nmac = 02:00:00:00:00:0a\n"
          "[port b]\ndev = net_ring1\naddr = 198.18.1.1/24\nmac = 02:00:00:00:00:0b\n")


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    roce_run, lib, prog = sys.argv[1:]
    why = skip_reason((), "")
    if why is not None:
        print("1..0 # SKIP " + why)
        return 0
    with tempfile.TemporaryDirectory(prefix="verbs_misuse_") as d:
        conf = os.path.join(d, "roce.conf")
        with open(conf, "w") as f:
            f.write(CONFIG)
        p = subprocess.run(["sh", roce_run, "--config", conf, "--eal-args", EAL_ARGS, "--",
                            prog], capture_output=True, text=True, timeout=RUN_S,
                           env=dict(os.environ, ROCE_VERBS_LIB=lib))
    sys.stdout.write(p.stdout)
    for line in p.stderr.splitlines():
        print("# " + line)
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
