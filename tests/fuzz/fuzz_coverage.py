#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Edges of the library's files a fuzz target reaches over a corpus.

Runs the target once over the corpus (-runs=0 -print_coverage=1) and sums
libFuzzer's per-function "edges: covered/total" by source file:

    tests/fuzz/fuzz_coverage.py build-san/tests/fuzz/fuzz_cm CORPUS [ENV=VALUE...]

The figures of doc/soak-fuzz.md were made this way, before (the seeds
alone) and after a run of the fuzz suite (its corpus).
"""

import collections
import os
import re
import subprocess
import sys

FUNC = re.compile(r"^(?:UN)?COVERED_FUNC: hits: \d+ edges: (\d+)/(\d+) \S+ (\S+):\d+$")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    target, corpus = sys.argv[1], sys.argv[2]
    env = dict(os.environ)
    env.update(a.split("=", 1) for a in sys.argv[3:])
    out = subprocess.run([target, corpus, "-runs=0", "-print_coverage=1"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         check=False).stdout
    edges = collections.defaultdict(lambda: [0, 0])
    for line in out.splitlines():
        m = FUNC.match(line.strip())
        path = os.path.normpath(m.group(3)) if m else ""
        if "/lib/" in path:
            e = edges[path[path.index("/lib/") + 1:]]
            e[0] += int(m.group(1))
            e[1] += int(m.group(2))
    for path in sorted(edges):
        covered, total = edges[path]
        if covered:
            print(f"{path}: {covered}/{total} edges")


if __name__ == "__main__":
    main()
