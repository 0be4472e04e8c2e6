#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unmodified perftest through librte_roce_verbs against roce_perf native (TAP output).

usage: bench_verbs.py ROCE_PERF ROCE_RUN LIBRTE_ROCE_VERBS [REPS]

The cost of the drop-in layer (doc/verbs-abi.md, "Performance"): Debian's
ib_write_bw (64 B and 64 KiB) and ib_write_lat (64 B) under roce-run, and
roce_perf doing the same test natively, two processes over the same
net_memif link (bsize 8192, IB MTU 4096), alternating in one run, REPS
rounds (default 3). Ratios per round, each to the native run next to it:
message rate (= bandwidth at one size) layer/native, and the median round
trip native/layer (perftest prints half the round trip: doubled here), so
1.0 means no cost and every ratio below it is the layer's. roce_perf runs
inline (one polling thread per process); perftest's server has a worker
lcore (it waits in a TCP read) and so do both sides of ib_write_lat (it
spins on memory, calling no verb; doc/verbs-abi.md). Reported, never
pass/fail on speed: a case fails only when a run exits in error (a run
that overstays RUN_S is reported as such). Skipped, saying
why, when perftest is not installed. Python 3 standard library only.
"""

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from roce_tap import check, report, skip_all  # noqa: E402

EAL = ['--no-huge', '-m', '512', '--no-shconf', '--no-pci', '--no-telemetry',
       '--log-level=lib.eal:warning', '--log-level=pmd.net.memif:error']
MEMIF = 'net_memif0,role=%s,socket=%s,bsize=8192'
SERVER_IP, CLIENT_IP = '198.18.2.2', '198.18.2.1'   # RFC 2544 benchmarking range
REPS = 3
RUN_S = 180
STARTUP_S = 60

# (key, what, perftest tool, size, iterations, layer client has a worker)
CASES = [
    ('write_bw_64', 'ib_write_bw 64 B: message rate', 'ib_write_bw', 64, 50000, False),
    ('write_bw_64k', 'ib_write_bw 64 KiB: bandwidth', 'ib_write_bw', 65536, 2000, False),
    ('write_lat_64', 'ib_write_lat 64 B: median round trip', 'ib_write_lat', 64, 200, True),
]
# perftest's result line: size, iterations, then (bw) peak, average MB/s, Mpps
# or (lat) t_min, t_max, t_typical, ...
RE_RESULT = re.compile(r'^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)')


def listening(port):
    with open('/proc/net/tcp') as f:
        return any(fields[1].endswith(':%04X' % port) and fields[3] == '0A'
                   for fields in (ln.split() for ln in list(f)[1:]))


def wait_listening(srv, port):
    """Until the server listens on its TCP port (its stdout is a pipe, buffered)."""
    end = time.monotonic() + STARTUP_S
    while not listening(port):
        if srv.poll() is not None or time.monotonic() > end:
            raise RuntimeError('server did not start: exit %s' % srv.poll())
        time.sleep(0.1)


def run_pair(srv_argv, cli_argv, port, env=None):
    """Server, then client: (client stdout, both stderr tails) or raises on failure."""
    srv = subprocess.Popen(srv_argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env)
    try:
        wait_listening(srv, port)
        cli = subprocess.run(cli_argv, capture_output=True, text=True, timeout=RUN_S, env=env)
        sout, serr = srv.communicate(timeout=60)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.communicate()
    if cli.returncode != 0 or srv.returncode != 0:
        raise RuntimeError('exit %s/%s: %s\n%s\n%s' % (srv.returncode, cli.returncode,
                                                       ' '.join(cli_argv), cli.stdout[-800:],
                                                       (cli.stderr + serr)[-800:]))
    return cli.stdout


def native(perf, d, port, tool, size, iters):
    sock = os.path.join(d, 'n%d.sock' % port)
    test = tool[len('ib_'):]
    common = ['-m', '4096', '--json', '-p', str(port), '--test', test, '-s', str(size),
              '-n', str(iters)]
    srv = [perf] + EAL + ['-l', '0', '--file-prefix', 'vs%d' % port, '--vdev',
                                  MEMIF % ('server', sock), '--', '--ip', SERVER_IP + '/24'] + common
    cli = [perf] + EAL + ['-l', '1', '--file-prefix', 'vc%d' % port, '--vdev',
                                  MEMIF % ('client', sock), '--', '--ip', CLIENT_IP + '/24'] + \
        common + ['127.0.0.1']
    out = run_pair(srv, cli, port)
    j = json.loads([ln for ln in out.splitlines() if ln.startswith('{')][-1])
    return j['msg_rate_mpps'] if j['mode'] == 'bw' else j['lat_us']['p50']


def layer(roce_run, lib, d, port, tool, size, iters, client_worker):
    sock = os.path.join(d, 'l%d.sock' % port)
    common = ('dev = %s\nmtu = 4200\nmtu_unchecked = yes\n' % MEMIF)
    confs = []
    for role, ip, extra in (('server', SERVER_IP, 'report_active = yes\nworkers = 0\n'),
                            ('client', CLIENT_IP, 'workers = 1\n' if client_worker else '')):
        path = os.path.join(d, '%s%d.conf' % (role, port))
        with open(path, 'w') as f:
            f.write('[port %s]\n%saddr = %s/24\n%s' % (role, common % (role, sock), ip, extra))
        confs.append(path)
    env = dict(os.environ, ROCE_VERBS_LIB=lib)
    argv = [tool, '-x', '1', '-m', '4096', '-p', str(port), '-s', str(size), '-n', str(iters)]
    eal = ['--eal-args', ' '.join(EAL)]
    # An inline client polls on CPU 1, next to the server's worker on CPU 0.
    pin = [] if client_worker else ['taskset', '-c', '1']
    srv = ['sh', roce_run, '--config', confs[0]] + eal + ['--'] + argv
    cli = pin + ['sh', roce_run, '--config', confs[1]] + eal + ['--'] + argv + ['127.0.0.1']
    out = run_pair(srv, cli, port, env)
    m = [m for m in map(RE_RESULT.match, out.splitlines()) if m]
    if tool.endswith('_lat'):
        return 2 * float(m[-1].group(5))     # t_typical is half a round trip
    return float(m[-1].group(5))


def spread(vals):
    return '%.3f (%s)' % (statistics.median(vals), ', '.join('%.3f' % v for v in vals))


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__)
        return 2
    perf, roce_run, lib = sys.argv[1:4]
    reps = int(sys.argv[4]) if len(sys.argv) == 5 else REPS
    missing = [c[2] for c in CASES if shutil.which(c[2]) is None]
    if missing:
        return skip_all('%s not installed (Debian package perftest; devtools/install-deps.sh '
                        'installs it)' % ', '.join(sorted(set(missing))))
    port = 31000 + os.getpid() % 20000
    rows = []
    with tempfile.TemporaryDirectory(prefix='bench_verbs_') as d:
        for key, what, tool, size, iters, cworker in CASES:
            vals, raw = [], []
            for _ in range(reps):
                port += 2
                try:
                    nat = native(perf, d, port, tool, size, iters)
                    lay = layer(roce_run, lib, d, port + 1, tool, size, iters, cworker)
                except subprocess.TimeoutExpired as e:
                    # Slow is a figure, not a failure: said, and left out of the ratios.
                    raw.append('timed out after %d s' % e.timeout)
                    continue
                except (RuntimeError, IndexError, ValueError) as e:
                    check('%s: run %d' % (what, len(raw) + 1), False, str(e))
                    continue
                vals.append(nat / lay if tool.endswith('_lat') else lay / nat)
                raw.append('%.4g, %.4g' % (nat, lay))
            check('%s: %d runs' % (what, reps), len(raw) == reps)
            if vals:
                rows.append((what, vals, raw, 'us p50' if tool.endswith('_lat') else 'Mpps'))
    print('# | test | ratio, median (runs) | roce_perf, layer per run |')
    for what, vals, raw, unit in rows:
        print('# | %s | %s | %s (%s) |' % (what, spread(vals), '; '.join(raw), unit))
    return report()


if __name__ == '__main__':
    sys.exit(main())
