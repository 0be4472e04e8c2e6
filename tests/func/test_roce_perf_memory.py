#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""roce_perf --print-memory and --dry-run against what a run really takes (TAP).

usage: test_roce_perf_memory.py ROCE_PERF

--print-memory prints what the run needs before it asks for anything
(examples/common/pp_mem.h), then, once set up, the heap bytes in use and
the pages the heap holds. For several configurations (defaults, many QPs
and deep queues, a worker, IB MTU 4096, SEND with receive queues), on
--no-huge (4 KiB pages) and, where this machine can (root), on 2 MiB
hugepages with --in-memory: the figure printed before is within
PP_MEM_TOLERANCE_PCT (2 %) of the bytes in use after, and, on hugepages
(the heap grows page by page), the pages it says to give are at least the
pages the heap took. --dry-run prints the same
figure and exits 0 without setting anything up. Python 3 standard library only.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from roce_tap import check, report, skip  # noqa: E402
from roce_hugepages import Hugepages  # noqa: E402

TOLERANCE_PCT = 2	# PP_MEM_TOLERANCE_PCT
EAL = ['--no-pci', '--no-telemetry', '-l', '0-1', '--log-level=lib.eal:warning']
NO_HUGE = ['--no-huge', '-m', '512', '--no-shconf']
HUGE_MB = 96		# the largest configuration below takes 40 MiB on 2 MiB pages
CONFIGS = [
    ('defaults (write_bw, 1 QP)', []),
    ('8 QPs, -t 512', ['-q', '8', '-t', '512']),
    ('--workers 1', ['--workers', '1']),
    ('IB MTU 4096', ['-m', '4096']),
    ('send_bw, 4 QPs, -r 512', ['--test', 'send_bw', '-q', '4']),
]
TOTAL = re.compile(r'^roce_perf:   total (\d+) B .*give it (\d+) pages', re.M)
USED = re.compile(r'^roce_perf: memory in use once set up: (\d+) B .*\(computed (\d+) B, .*'
                  r'the heap holds (\d+) pages \((\d+) given\)', re.M)


def perf(prog, eal, args):
    cmd = [prog] + EAL + eal + ['--', '--loopback', '-n', '100'] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def run_case(prog, eal, mode, name, args, grows):
    """grows: the heap takes pages as it needs them (hugepages; --no-huge maps -m at once)."""
    r = perf(prog, eal, ['--print-memory'] + args)
    total, used = TOTAL.search(r.stdout), USED.search(r.stdout)
    if r.returncode != 0 or total is None or used is None:
        check('%s, %s: --print-memory prints the need and the use' % (mode, name), False,
              'exit %d\n%s%s' % (r.returncode, r.stdout[-1500:], r.stderr[-800:]))
        return
    need, pages = int(total.group(1)), int(total.group(2))
    in_use, held = int(used.group(1)), int(used.group(3))
    dev = 100.0 * (need - in_use) / in_use
    print('# %s, %s: computed %d B, in use %d B (%+.2f%%); pages given %d, held %d' %
          (mode, name, need, in_use, dev, pages, held))
    check('%s, %s: the figure printed before set-up within %d%% of the heap in use after' %
          (mode, name, TOLERANCE_PCT), abs(dev) <= TOLERANCE_PCT, r.stdout[-1500:])
    if grows:
        check('%s, %s: the pages it says to give (%d) hold what the heap took (%d)' %
              (mode, name, pages, held), pages >= held, r.stdout[-1500:])
    d = perf(prog, eal, ['--dry-run'] + args)
    dry = TOTAL.search(d.stdout)
    check('%s, %s: --dry-run prints the same need and exits 0 before setting up' % (mode, name),
          d.returncode == 0 and dry is not None and int(dry.group(1)) == need and
          'in use once set up' not in d.stdout and '#bytes' not in d.stdout,
          'exit %d\n%s%s' % (d.returncode, d.stdout[-1200:], d.stderr[-600:]))


def main():
    prog = sys.argv[1]
    for name, args in CONFIGS:
        run_case(prog, NO_HUGE, '4 KiB pages (--no-huge)', name, args, False)
    huge = Hugepages(HUGE_MB, 'roce_perf_mem_')
    why = huge.setup()
    try:
        for name, args in CONFIGS:
            if why is None:
                run_case(prog, ['--in-memory', '--huge-dir', huge.dir], '2 MiB hugepages',
                         name, args, True)
            else:
                skip('2 MiB hugepages, %s' % name, why)
    finally:
        huge.close()
    return report()


if __name__ == '__main__':
    sys.exit(main())
