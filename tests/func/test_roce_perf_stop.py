#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""SIGTERM and SIGINT stop roce_perf cleanly (TAP output).

usage: test_roce_perf_stop.py ROCE_PERF

What a container runtime does at the end of a pod's life: SIGTERM, then
SIGKILL after the grace period. roce_perf must move its QPs to the Error
state, poll the flushed work requests, print a line per device with its
counters and exit 0, within STOP_S of the signal:
  - a --loopback write_bw run in the middle of its traffic (SIGTERM),
  - the same with SIGINT (Ctrl-C),
  - a two-process server still waiting for its client (blocked in accept),
  - both processes of a two-process run over net_memif, mid-run.
And when the peer dies without a word (SIGKILL): the client's work requests
fail with IBV_WC_RETRY_EXC_ERR, which it prints by name, and it exits 1.
Python 3 standard library only.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from roce_tap import check, report  # noqa: E402

EAL = ['--no-huge', '-m', '256', '--no-shconf', '--no-pci', '--no-telemetry',
       '--log-level=lib.eal:warning', '--log-level=pmd.net.memif:error']
STOP_S = 1.0	# the bound: flush, counters and exit within a second
# Under a sanitizer the exit takes longer for reasons of the sanitizer's own:
# LeakSanitizer scans the whole heap (-m 256) at exit and ASan slows the
# teardown. Measured under ASan, same load: 0.35 to 0.91 s with leak
# detection, 0.16 to 0.55 s without it. The gcc build keeps the bound.
if os.environ.get('ROCE_TEST_SANITIZE', 'none') != 'none':
    STOP_S = 2.0
TRAFFIC_S = 60	# -D of the runs we stop: far longer than the test waits
# A vanished peer: roce_perf's ACK timeout (14: 67 ms) x (retry_cnt 7 + 1) is
# 0.54 s; the rest is room for a loaded machine, below roce_perf's 5 s
# "no progress" watchdog so that the completion status is what is reported.
RETRY_EXC_S = 4.0


def start(perf, lcore, args, vdev=None):
    cmd = [perf] + EAL + ['-l', lcore] + (['--vdev', vdev] if vdev else []) + ['--'] + args
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(p, needle, timeout=30):
    """Read p's stderr until a line holds needle (a progress line: traffic is flowing)."""
    end = time.monotonic() + timeout
    seen = []
    while time.monotonic() < end:
        line = p.stderr.readline()
        if not line:
            return False, ''.join(seen)
        seen.append(line)
        if needle in line:
            return True, ''.join(seen)
    return False, ''.join(seen)


def stop(p, sig):
    """Send sig; (exit status, seconds to exit, stdout). SIGKILL after 10 s."""
    t0 = time.monotonic()
    p.send_signal(sig)
    try:
        out, _ = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    return p.returncode, time.monotonic() - t0, out


def check_stop(name, rc, secs, out, sides, moved=1):
    lines = ['%s: stopped by a signal: %d QPs moved to the Error state' % (s, moved)
             for s in sides]
    counters = ['counters (%s):' % s for s in sides]
    ok = rc == 0 and secs < STOP_S and all(x in out for x in lines + counters)
    check('%s: exit 0 in %.2f s (< %.1f), QPs to Error, counters printed' % (name, secs, STOP_S),
          ok, 'exit %s after %.2f s: %s' % (rc, secs, out[-600:]))


def loopback_case(perf, sig, name):
    p = start(perf, '0', ['--loopback', '-D', str(TRAFFIC_S)])
    running, err = wait_for(p, 'msgs')
    if not running:
        p.kill()
        check(name, False, 'no progress line: ' + err[-400:])
        return
    rc, secs, out = stop(p, sig)
    check_stop(name, rc, secs, out, ['client', 'server'])
    # the client had WRs in flight (tx depth 128): some must come back flushed
    flushed = [ln for ln in out.splitlines() if ln.startswith('roce_perf: client: stopped')]
    check(name + ': the client\'s WRs in flight completed as flushed',
          flushed and ' 0 work requests flushed' not in flushed[0], out[-400:])


def memif_cases(perf):
    with tempfile.TemporaryDirectory(prefix='perf_stop_') as d:
        sock = os.path.join(d, 'memif.sock')
        vsrv = 'net_memif0,role=server,socket=%s' % sock
        vcli = 'net_memif0,role=client,socket=%s' % sock
        port = str(20000 + os.getpid() % 20000)
        # a server nobody connects to: blocked in accept() on the TCP exchange
        srv = start(perf, '0', ['--ip', '198.18.4.2/24', '-p', port], vdev=vsrv)
        time.sleep(3)
        rc, secs, out = stop(srv, signal.SIGTERM)
        # its QP is still in Reset: none to move, nothing to flush
        check_stop('server waiting for its client', rc, secs, out, ['server'], moved=0)
        # a two-process run, both ends stopped mid-run: the server first
        srv, cli, running, err = start_pair(perf, vsrv, vcli, port)
        if not running:
            srv.kill()
            cli.kill()
            check('two processes over memif: traffic', False, err[-400:])
            return
        rc, secs, out = stop(srv, signal.SIGTERM)
        check_stop('two processes over memif, server mid-run', rc, secs, out, ['server'])
        rc, secs, out = stop(cli, signal.SIGTERM)
        check_stop('two processes over memif, client after its server', rc, secs, out,
                   ['client'])
        peer_killed_case(perf, vsrv, vcli, port)


def start_pair(perf, vsrv, vcli, port):
    """A two-process -D run over memif: (server, client, traffic flowing, client's stderr)."""
    srv = start(perf, '0', ['--ip', '198.18.4.2/24', '-p', port, '-D', str(TRAFFIC_S)],
                vdev=vsrv)
    time.sleep(1)
    cli = start(perf, '1', ['--ip', '198.18.4.1/24', '-p', port, '-D', str(TRAFFIC_S),
                            '127.0.0.1'], vdev=vcli)
    running, err = wait_for(cli, 'msgs')
    return srv, cli, running, err


def peer_killed_case(perf, vsrv, vcli, port):
    """The server SIGKILLed mid-run: the client's WRs fail with RETRY_EXC_ERR, named, exit 1."""
    name = 'server killed mid-run: the client reports IBV_WC_RETRY_EXC_ERR and exits 1'
    srv, cli, running, err = start_pair(perf, vsrv, vcli, port)
    srv.kill()
    srv.communicate()
    if not running:
        cli.kill()
        check(name, False, 'no traffic: ' + err[-400:])
        return
    t0 = time.monotonic()
    try:
        _, err = cli.communicate(timeout=RETRY_EXC_S + 10)
    except subprocess.TimeoutExpired:
        cli.kill()
        _, err = cli.communicate()
    secs = time.monotonic() - t0
    check(name + ' within %.1f s (%.2f s)' % (RETRY_EXC_S, secs),
          cli.returncode == 1 and 'IBV_WC_RETRY_EXC_ERR' in err and secs < RETRY_EXC_S,
          'exit %s after %.2f s: %s' % (cli.returncode, secs, err[-600:]))


def main():
    perf = sys.argv[1]
    loopback_case(perf, signal.SIGTERM, 'loopback write_bw, SIGTERM')
    loopback_case(perf, signal.SIGINT, 'loopback write_bw, SIGINT')
    memif_cases(perf)
    return report()


if __name__ == '__main__':
    sys.exit(main())
