#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""SIGTERM and SIGINT stop the pingpong examples cleanly (TAP output).

usage: test_pingpong_stop.py RC_PINGPONG UC_PINGPONG UD_PINGPONG SRQ_PINGPONG

What a container runtime does at the end of a pod's life: SIGTERM, then
SIGKILL after the grace period. Each example must move its QPs to the Error
state, poll the flushed work requests, print its counters and exit 0 within
STOP_S of the signal (pp_session_stop()):
  - a server still waiting for its client (blocked in accept): its QP is in
    INIT with its receives posted, which come back flushed;
  - both processes of a run over net_memif in the middle of a long
    ping-pong, signalled back to back as a deleted pair of pods is;
  - rc_pingpong with -e (asleep on its completion channel), and SIGINT.
Python 3 standard library only.
"""

import os
import re
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from pp_memif import CLIENT_IP, PREFIX, SERVER_IP, STARTUP_S, Harness, Proc, free_tcp_port  # noqa: E402
from roce_tap import check, report  # noqa: E402

STOP_S = 1.0		# the bound: flush, counters and exit within a second
# Under a sanitizer the exit takes longer for reasons of the sanitizer's own:
# LeakSanitizer scans the whole heap (-m 256) at exit and ASan slows the
# teardown. roce_perf_stop under ASan, same load: 0.35 to 0.91 s with leak
# detection, 0.16 to 0.55 s without it. The gcc build keeps the bound.
if os.environ.get('ROCE_TEST_SANITIZE', 'none') != 'none':
    STOP_S = 2.0
RUNNING_S = 1		# after the client's exchange: the ping-pong runs
ITERS = '100000000'	# far longer than the test waits
RX_DEPTH = 500		# the tools' default receives posted per QP
STOPPED = re.compile(r'^(\w+): stopped by a signal: (\d+) QPs moved to the Error state, '
                     r'(\d+) work requests flushed$', re.M)


def stop(proc, sig):
    """Send sig: (exit status, seconds to exit)."""
    t0 = time.monotonic()
    proc.p.send_signal(sig)
    rc = proc.finish(10)
    return rc, time.monotonic() - t0


def stopped(name, proc, rc, secs, qps, flushed_min):
    out = '\n'.join(proc.out)
    m = STOPPED.search(out)
    check('%s: exit 0 in %.2f s (< %.1f), %d QP(s) to Error, >= %d flushed, counters printed' %
          (name, secs, STOP_S, qps, flushed_min),
          rc == 0 and secs < STOP_S and m is not None and int(m.group(2)) == qps and
          int(m.group(3)) >= flushed_min and 'counters (%s):' % m.group(1) in out,
          'exit %s after %.2f s:\n%s' % (rc, secs, proc.text()[-1200:]))


def waiting_server(h, name, prog, qps, flushed):
    h.runs += 1
    srv = Proc(h.argv('server', SERVER_IP + PREFIX, ['-p', str(free_tcp_port())]))
    try:
        if not srv.wait_line(r'^  local address:', STARTUP_S):
            check('%s: server waiting for its client' % name, False, srv.text()[-800:])
            return
        time.sleep(0.5)
        rc, secs = stop(srv, signal.SIGTERM)
        stopped('%s: server waiting for its client, SIGTERM' % name, srv, rc, secs, qps, flushed)
    finally:
        srv.kill()


def running_pair(h, name, qps, flushed, opts=(), sig=signal.SIGTERM):
    h.runs += 1
    popts = ['-p', str(free_tcp_port()), '-n', ITERS] + list(opts)
    srv = Proc(h.argv('server', SERVER_IP + PREFIX, popts))
    cli = None
    try:
        if not srv.wait_line(r'^  local address:', STARTUP_S):
            check('%s: server starts' % name, False, srv.text()[-800:])
            return
        cli = Proc(h.argv('client', CLIENT_IP + PREFIX, popts, '127.0.0.1'))
        # its exchange done (so its handlers are set), then the ping-pong going
        if not cli.wait_line(r'^  remote address:', STARTUP_S):
            check('%s: client exchanges its address' % name, False, cli.text()[-600:])
            return
        time.sleep(RUNNING_S)
        if srv.p.poll() is not None or cli.p.poll() is not None:
            check('%s: both ends running' % name, False, srv.text()[-600:] + cli.text()[-600:])
            return
        t0 = time.monotonic()
        srv.p.send_signal(sig)
        cli.p.send_signal(sig)
        for role, proc in (('server', srv), ('client', cli)):
            rc = proc.finish(10)
            stopped('%s: %s mid-run, %s' % (name, role, signal.Signals(sig).name), proc, rc,
                    time.monotonic() - t0, qps, flushed)
    finally:
        srv.kill()
        if cli is not None:
            cli.kill()


def main():
    progs = dict(zip(('rc', 'uc', 'ud', 'srq'), sys.argv[1:5]))
    with tempfile.TemporaryDirectory(prefix='pp_stop_') as tmp:
        for kind, prog in progs.items():
            h = Harness(prog, None, tmp)
            name = kind + '_pingpong'
            # srq_pingpong: 16 QPs (its -q default), the receives on the SRQ, not
            # flushed with a QP; the others: the QP's receives, all waiting, some mid-run
            qps, flushed = (16, 0) if kind == 'srq' else (1, RX_DEPTH)
            waiting_server(h, name, prog, qps, flushed)
            running_pair(h, name, qps, min(flushed, 1))
            if kind == 'rc':
                running_pair(h, name + ' -e', qps, 1, ['-e'])
                running_pair(h, name, qps, 1, sig=signal.SIGINT)
    return report()


if __name__ == '__main__':
    sys.exit(main())
