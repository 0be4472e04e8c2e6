#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What runs without root, and what each capability is needed for (TAP output).

usage: test_nonroot.py ROCE_PERF

roce_perf run as an unprivileged user (nobody, every capability dropped,
through setpriv(1)), as a container's non-root user runs it
(doc/deploy.md, "Security context and non-root"):
  - --no-huge over net_ring (--loopback): works, nothing needed;
  - two processes over net_memif, the socket in a directory the user owns:
    works, nothing needed;
  - hugepages with --in-memory (memfd, no files): works, nothing needed;
  - hugepages without --in-memory in a hugetlbfs the user may not write:
    exit 1, the message names the mount, the uid and --in-memory;
  - net_af_packet on a veth (in a network namespace of the test's own):
    without capabilities exit 1, the message names the device and
    CAP_NET_RAW (no silent net_ring pair instead); CAP_NET_RAW alone: exit 1
    (DPDK 22.11's af_packet sets the interface's flags when the port starts:
    CAP_NET_ADMIN), the error said; CAP_NET_RAW and CAP_NET_ADMIN: works.
Needs root to change user (setpriv), reserve hugepages and make the veth;
skipped, saying why, otherwise; a case whose tool is missing is skipped alone.
Python 3 standard library only.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'common'))
from roce_tap import check, report, skip, skip_all  # noqa: E402
from roce_hugepages import Hugepages  # noqa: E402

NOBODY = 65534
EAL = ['--no-pci', '--no-telemetry', '-l', '0', '--log-level=lib.eal:warning']
NO_HUGE = ['--no-huge', '-m', '256', '--no-shconf']
ITERS = ['-n', '200']
HUGE_MB = 64
TABLE = ' 65536      200 '	# the result row of write_bw -n 200


def as_nobody(caps=()):
    """setpriv: uid/gid nobody, no supplementary group, only caps (inherited and ambient)."""
    c = ','.join('+' + x for x in caps)
    return ['setpriv', '--reuid=%d' % NOBODY, '--regid=%d' % NOBODY, '--clear-groups',
            '--inh-caps=-all' + (',' + c if c else ''),
            '--bounding-set=-all' + (',' + c if c else '')] + \
        (['--ambient-caps=' + c] if c else [])


def run(cmd, timeout=120):
    # the EAL keeps its runtime directory under XDG_RUNTIME_DIR when not root
    env = dict(os.environ, XDG_RUNTIME_DIR=tempfile.gettempdir())
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def works(name, r):
    check(name + ': works as nobody', r.returncode == 0 and TABLE in r.stdout,
          'exit %d\n%s%s' % (r.returncode, r.stdout[-600:], r.stderr[-1200:]))


def loopback_no_huge(perf):
    works('--no-huge, --loopback over net_ring, no capability',
          run(as_nobody() + [perf] + EAL + NO_HUGE + ['--', '--loopback'] + ITERS))


def memif_pair(perf):
    d = tempfile.mkdtemp(prefix='nonroot_memif_')
    os.chown(d, NOBODY, NOBODY)
    sock = os.path.join(d, 'memif.sock')
    port = str(20000 + os.getpid() % 20000)
    common = as_nobody() + [perf] + NO_HUGE + ['--no-pci', '--no-telemetry',
                                               '--log-level=pmd.net.memif:error']
    env = dict(os.environ, XDG_RUNTIME_DIR=tempfile.gettempdir())
    srv = subprocess.Popen(common + ['-l', '0', '--vdev',
                                     'net_memif0,role=server,socket=' + sock, '--', '--ip',
                                     '198.18.6.2/24', '-p', port] + ITERS,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        time.sleep(2)
        r = run(common + ['-l', '1', '--vdev', 'net_memif0,role=client,socket=' + sock, '--',
                          '--ip', '198.18.6.1/24', '-p', port] + ITERS + ['127.0.0.1'])
        srv.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        srv.kill()
        srv.communicate()
    works('two processes over net_memif, the socket directory its own, no capability', r)
    check('two processes over net_memif: the server exits 0 as nobody', srv.returncode == 0,
          'exit %s' % srv.returncode)
    shutil.rmtree(d, ignore_errors=True)


def hugepages(perf):
    huge = Hugepages(HUGE_MB, 'nonroot_huge_')
    why = huge.setup()
    try:
        if why is not None:
            skip('hugepages as nobody', why)
            return
        works('hugepages with --in-memory, no capability',
              run(as_nobody() + [perf] + EAL + ['--in-memory', '--huge-dir', huge.dir, '--',
                                                '--loopback'] + ITERS))
        # the mount is root's (0755): no file of a page can be made there
        r = run(as_nobody() + [perf] + EAL + ['--huge-dir', huge.dir, '--file-prefix',
                                              'nonroot%d' % os.getpid(), '--',
                                              '--loopback'] + ITERS)
        check('hugepage files in a hugetlbfs nobody may not write: exit 1, the mount, the uid '
              'and --in-memory named',
              r.returncode == 1 and '%s: ' % huge.dir in r.stderr and
              'not writable by uid %d: run with --in-memory' % NOBODY in r.stderr,
              'exit %d\n%s' % (r.returncode, r.stderr[-1200:]))
    finally:
        huge.close()


def af_packet(perf):
    if shutil.which('ip') is None or shutil.which('unshare') is None:
        for name in ('no capability', 'CAP_NET_RAW', 'CAP_NET_RAW and CAP_NET_ADMIN'):
            skip('net_af_packet, ' + name, 'no ip(8) or unshare(1) (iproute2, util-linux)')
        return
    # a network namespace of our own: the veth and what the kernel sends on it stay there
    setup = ('ip link add pa type veth peer name pb && ip link set pa up && ip link set pb up '
             '&& echo 1 > /proc/sys/net/ipv6/conf/pa/disable_ipv6 '
             '&& echo 1 > /proc/sys/net/ipv6/conf/pb/disable_ipv6 && exec "$@"')
    vdevs = ['--vdev', 'net_af_packet0,iface=pa', '--vdev', 'net_af_packet1,iface=pb']

    def in_netns(caps):
        return run(['unshare', '--net', 'sh', '-c', setup, 'sh'] + as_nobody(caps) + [perf] +
                   EAL + NO_HUGE + vdevs + ['--', '--loopback'] + ITERS)

    r = in_netns(())
    check('net_af_packet without capabilities: exit 1, the device and CAP_NET_RAW named, no '
          'net_ring pair instead',
          r.returncode == 1 and '--vdev net_af_packet0: the EAL did not make this device' in
          r.stderr and 'CAP_NET_RAW' in r.stderr and TABLE not in r.stdout,
          'exit %d\n%s' % (r.returncode, r.stderr[-1200:]))
    r = in_netns(('net_raw',))
    check('net_af_packet with CAP_NET_RAW alone: exit 1, the port start refused '
          '(Operation not permitted) and said',
          r.returncode == 1 and 'Operation not permitted' in r.stderr and
          'roce_perf: client: port on ethdev' in r.stderr,
          'exit %d\n%s' % (r.returncode, r.stderr[-1200:]))
    works('net_af_packet with CAP_NET_RAW and CAP_NET_ADMIN', in_netns(('net_raw', 'net_admin')))


def main():
    perf = sys.argv[1]
    if os.geteuid() != 0:
        return skip_all('needs root to run roce_perf as another user (setpriv)')
    if shutil.which('setpriv') is None:
        return skip_all('no setpriv(1) (util-linux)')
    loopback_no_huge(perf)
    memif_pair(perf)
    hugepages(perf)
    af_packet(perf)
    return report()


if __name__ == '__main__':
    sys.exit(main())
