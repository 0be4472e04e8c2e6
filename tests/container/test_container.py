#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The container image, run for real (TAP output). Suite `container`.

usage: test_container.py SOURCE_ROOT

Builds the Dockerfile with podman from a Debian 12 base image made locally
(devtools/container-base.sh: mmdebstrap into `podman import`, no registry),
then, rootful podman, the containers as the image's non-root user with every
capability dropped:
  - two containers run roce_perf write_bw against each other over net_memif,
    through a socket directory both mount, each with a hugetlbfs at
    /dev/hugepages and its own --in-memory --file-prefix; the client's
    perftest table is printed as TAP comments;
  - a container whose hugetlbfs (size=4M) is too small: exit 1, no crash,
    a message naming hugepage memory, what was there and what it needs;
  - SIGTERM to both containers of a running pair at once (to their PID 1,
    roce_perf, from the host): each stops its QPs, prints its counters and exits 0
    within a second of the signal (the exit time as conmon records it);
  - SIGTERM to an rc_pingpong server container waiting for its client: the
    same, its receives flushed.
Skipped, saying why, without root, podman, mmdebstrap or hugepages. Reserves
the hugepages it needs if none are free and gives them back afterwards.
Python 3 standard library only.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'common'))
from roce_tap import check, report, skip_all  # noqa: E402
from roce_hugepages import Hugepages  # noqa: E402

BASE = 'localhost/deb12:base'
IMAGE = 'localhost/librte-roce:test'
UID = 10001		# the image's user (Dockerfile)
NEED_MB = 64		# two containers of about 12 MiB each, and room (doc/deploy.md, "Sizing")
SMALL = 'size=4M'	# two 2 MiB pages: less than the 20 MiB of a --loopback run
STOP_S = 1.0
# what the runtime stage must hold: the tools, the NVMe-oF target, the verbs launcher, examples
PROGRAMS = ('roce_perf', 'roce_dump', 'roce_nvmf', 'roce-run', 'rc_pingpong', 'uc_pingpong',
            'ud_pingpong', 'srq_pingpong', 'rping', 'roce_demo')
# Debian 12's podman on a host with hybrid cgroups: crun refuses them, and
# rootful containers may not raise their own limits (doc/deploy.md, "podman").
PODMAN = ['podman', '--runtime', 'runc', '--cgroup-manager=cgroupfs']
RUN = ['run', '--network', 'host', '--ulimit', 'nofile=1024:1024',
       '--ulimit', 'nproc=1024:1024', '--cap-drop', 'all', '--user', str(UID)]


def missing():
    """Why this machine cannot run the suite, or None."""
    if os.geteuid() != 0:
        return 'needs root (rootful podman, hugetlbfs mounts)'
    for tool, pkg in (('podman', 'podman'), ('runc', 'runc'), ('mmdebstrap', 'mmdebstrap')):
        if shutil.which(tool) is None:
            return '%s not installed (apt-get install %s)' % (tool, pkg)
    # podman there but unable to run here (no storage driver, no runtime, ...)
    r = sh(PODMAN + ['info', '--format', '{{.Host.OCIRuntime.Name}}'])
    if r.returncode != 0:
        return 'podman cannot run here: ' + (r.stderr.strip().splitlines() or ['?'])[-1]
    return None


def sh(cmd, timeout=60, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def build(src):
    """Base image, then the Dockerfile; None or why it failed."""
    r = sh([os.path.join(src, 'devtools', 'container-base.sh'), BASE], timeout=1800)
    if r.returncode != 0:
        return 'container-base.sh: ' + (r.stdout + r.stderr)[-600:]
    t0 = time.monotonic()
    r = sh(PODMAN + ['build', '--network', 'host', '--build-arg', 'BASE=' + BASE,
                     '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024',
                     '-t', IMAGE, src], timeout=3600)
    print('# podman build: %.0f s' % (time.monotonic() - t0))
    return None if r.returncode == 0 else 'podman build: ' + (r.stdout + r.stderr)[-1500:]


def image_checks():
    """The runtime stage: non-root, no compiler, the programs there."""
    r = sh(PODMAN + RUN + ['--rm', IMAGE, 'sh', '-c',
                           'id -u; command -v cc gcc || echo no-compiler; '
                           'for p in %s; do command -v $p; done' % ' '.join(PROGRAMS)])
    out = r.stdout.split()
    check('image: runs as uid %d' % UID, out[:1] == [str(UID)], r.stdout + r.stderr)
    check('image: no compiler in the runtime stage', 'no-compiler' in out, r.stdout)
    check('image: %s installed' % ', '.join(PROGRAMS),
          sum(1 for x in out if x.startswith('/usr/local/bin/')) == len(PROGRAMS), r.stdout)
    # every shared library the programs and librte_roce* link is in the runtime stage
    r = sh(PODMAN + RUN + ['--rm', IMAGE, 'sh', '-c',
                           'ldd /usr/local/bin/* /usr/local/lib/librte_roce*.so 2>&1 | '
                           'grep "not found" || echo all-found'])
    check('image: every library the programs link is there (ldd)',
          r.stdout.strip() == 'all-found', r.stdout[-800:] + r.stderr[-400:])


class Pair:
    """Two containers over one memif socket directory, each with a hugetlbfs."""

    def __init__(self, tmp, huge_dir, tag):
        self.sock_dir = tempfile.mkdtemp(prefix='memif_', dir=tmp)
        os.chown(self.sock_dir, UID, UID)
        self.huge_dir = huge_dir
        self.tag = tag
        self.port = str(20000 + (os.getpid() + len(tag)) % 20000)
        self.names = {}

    def start(self, role, args):
        name = 'roce_%s_%s_%d' % (self.tag, role, os.getpid())
        lcore = '0' if role == 'server' else '1'
        ip = '198.18.7.2/24' if role == 'server' else '198.18.7.1/24'
        cmd = PODMAN + RUN + [
            '-d', '--name', name,
            '-v', '%s:/run/roce' % self.sock_dir,
            '-v', '%s:/dev/hugepages' % self.huge_dir,
            IMAGE, 'roce_perf', '--in-memory', '--file-prefix', name, '-l', lcore,
            '--no-pci', '--no-telemetry', '--log-level=pmd.net.memif:error',
            '--vdev', 'net_memif0,role=%s,socket=/run/roce/memif.sock' % role,
            '--', '--ip', ip, '-p', self.port] + args + \
            (['127.0.0.1'] if role == 'client' else [])
        r = sh(cmd)
        self.names[role] = name
        return r.returncode == 0, r.stderr

    def wait(self, role, timeout):
        """Exit status of the container (None: still running after timeout), its logs."""
        try:
            r = sh(PODMAN + ['wait', self.names[role]], timeout=timeout)
            rc = int(r.stdout.strip()) if r.returncode == 0 else None
        except (subprocess.TimeoutExpired, ValueError):
            rc = None
        return rc

    def logs(self, role):
        r = sh(PODMAN + ['logs', self.names[role]])
        return r.stdout + r.stderr

    def close(self):
        for name in self.names.values():
            sh(PODMAN + ['rm', '-f', '-t', '0', name])


def pair_case(tmp, huge_dir):
    pair = Pair(tmp, huge_dir, 'bw')
    # no --rm: the logs are read before close() removes the containers
    ok, err = pair.start('server', ['-n', '3000', '--verify'])
    if ok:
        time.sleep(2)
        ok, err = pair.start('client', ['-n', '3000', '--verify'])
    if not ok:
        check('memif pair: containers start', False, err[-600:])
        pair.close()
        return
    rc_c = pair.wait('client', 120)
    rc_s = pair.wait('server', 30)
    out = pair.logs('client')
    rows = [ln for ln in out.splitlines() if re.match(r'^ 65536\s+3000\s', ln)]
    for ln in out.splitlines():
        if ln.startswith((' #bytes', ' 65536', ' counters', '----', ' Connection', ' TX depth',
                          ' CQ Mod', ' Max inline', '                    RDMA')):
            print('# ' + ln)
    check('memif pair: write_bw 64 KiB x 3000 --verify between two containers, both exit 0',
          rc_c == 0 and rc_s == 0 and len(rows) == 1,
          'client %s server %s\n%s\n%s' % (rc_c, rc_s, out[-1200:], pair.logs('server')[-800:]))
    pair.close()


def sigterm(names):
    """SIGTERM to the containers' PID 1 straight from the host, back to back (as a
    deleted pair of pods gets it; `podman kill` takes a second or more to deliver
    it here), then wait: {name: (exit status, seconds from its signal to its exit
    as conmon recorded it)}."""
    sent = {}
    for name in names:
        r = sh(PODMAN + ['inspect', '--format', '{{.State.Pid}}', name])
        pid = int(r.stdout.strip() or 0)
        try:
            sent[name] = time.time_ns()
            os.kill(pid, signal.SIGTERM) if pid > 0 else None
        except ProcessLookupError:
            pid = 0
        if pid <= 0:
            sent[name] = None
    res = {}
    for name in names:
        try:
            r = sh(PODMAN + ['wait', name], timeout=30)
            rc = int(r.stdout.strip())
        except (subprocess.TimeoutExpired, ValueError):
            rc = None
        r = sh(PODMAN + ['inspect', '--format', '{{.State.FinishedAt.UnixNano}}', name])
        end = int(r.stdout.strip() or 0)
        res[name] = (rc, (end - sent[name]) / 1e9 if sent[name] else None)
    return res


def stop_case(tmp, huge_dir):
    # the same measure on a shell that exits at once: what conmon adds
    name = 'roce_trap_%d' % os.getpid()
    sh(PODMAN + RUN + ['-d', '--name', name, IMAGE, 'sh', '-c',
                       'trap "exit 0" TERM; while :; do sleep 0.05; done'])
    time.sleep(1)
    _, base = sigterm([name])[name]
    sh(PODMAN + ['rm', '-f', '-t', '0', name])
    print('# SIGTERM to exit, a shell that exits on it: %.3f s' % base)
    pair = Pair(tmp, huge_dir, 'stop')
    ok, err = pair.start('server', ['-D', '60'])
    if ok:
        time.sleep(2)
        ok, err = pair.start('client', ['-D', '60'])
    if not ok:
        check('SIGTERM: containers start', False, err[-600:])
        pair.close()
        return
    time.sleep(4)		# traffic flowing (the client prints a line a second)
    res = sigterm([pair.names['server'], pair.names['client']])
    for role in ('server', 'client'):
        rc, secs = res[pair.names[role]]
        out = pair.logs(role)
        want = '%s: stopped by a signal: 1 QPs moved to the Error state' % role
        print('# %s container: SIGTERM to exit %s s, exit %s' % (role, secs, rc))
        check('SIGTERM to the %s container mid-run: QPs to Error, counters, exit 0 within '
              '%.1f s' % (role, STOP_S),
              rc == 0 and want in out and 'counters (%s)' % role in out and
              secs is not None and secs < STOP_S, 'exit %s after %s s:\n%s' %
              (rc, secs, out[-800:]))
    pair.close()


def pingpong_stop_case(tmp):
    sock_dir = tempfile.mkdtemp(prefix='memif_pp_', dir=tmp)
    os.chown(sock_dir, UID, UID)
    name = 'roce_pp_%d' % os.getpid()
    r = sh(PODMAN + RUN + ['-d', '--name', name, '-v', '%s:/run/roce' % sock_dir, IMAGE,
                           'rc_pingpong', '--no-huge', '-m', '128', '--no-shconf', '--no-pci',
                           '-l', '0', '--no-telemetry', '--log-level=pmd.net.memif:error',
                           '--vdev', 'net_memif0,role=server,socket=/run/roce/memif.sock',
                           '--', '--ip', '198.18.7.2/24', '-p', str(20000 + os.getpid() % 20000)])
    if r.returncode != 0:
        check('SIGTERM to an rc_pingpong server container: it starts', False, r.stderr[-600:])
        return
    time.sleep(3)		# listening for its client
    rc, secs = sigterm([name])[name]
    out = sh(PODMAN + ['logs', name]).stdout
    sh(PODMAN + ['rm', '-f', '-t', '0', name])
    print('# rc_pingpong server container: SIGTERM to exit %s s, exit %s' % (secs, rc))
    check('SIGTERM to an rc_pingpong server container waiting for its client: QP to Error, '
          '500 receives flushed, counters, exit 0 within %.1f s' % STOP_S,
          rc == 0 and secs is not None and secs < STOP_S and
          'rc_pingpong: stopped by a signal: 1 QPs moved to the Error state, 500 work '
          'requests flushed' in out and 'counters (rc_pingpong)' in out,
          'exit %s after %s s:\n%s' % (rc, secs, out[-800:]))


def small_case(tmp):
    small = Hugepages(0, os.path.join(tmp, 'small_'), SMALL + ',uid=%d,gid=%d' % (UID, UID))
    why = small.setup()
    if why is not None:
        check('too small a hugetlbfs: set up', False, why)
        small.close()
        return
    name = 'roce_small_%d' % os.getpid()
    # no --in-memory: the EAL's pages are files of this mount, so its size= binds
    r = sh(PODMAN + RUN + ['--rm', '--name', name, '-v', '%s:/dev/hugepages' % small.dir, IMAGE,
                           'roce_perf', '--file-prefix', name, '-l', '0', '--no-pci',
                           '--no-telemetry', '--', '--loopback', '-n', '100'], timeout=120)
    small.close()
    err = r.stderr
    print('# ' + '\n# '.join(ln for ln in err.splitlines() if ln.startswith(('roce_perf', '  '))))
    check('too small a hugetlbfs (%s): exit 1, no crash' % SMALL, r.returncode == 1,
          'exit %d' % r.returncode)
    check('too small a hugetlbfs: names hugepage memory, what the mount has and what is needed',
          'out of DPDK memory (hugepages)' in err and 'free of 2 (its size=)' in err and
          'this run needs about' in err, err[-1000:])


def main():
    src = sys.argv[1]
    why = missing()
    if why is not None:
        return skip_all(why)
    huge = Hugepages(NEED_MB, 'roce_container_huge_', 'uid=%d,gid=%d' % (UID, UID))
    why = huge.setup()
    if why is not None:
        huge.close()
        return skip_all(why)
    tmp = tempfile.mkdtemp(prefix='roce_container_')
    try:
        why = build(src)
        check('podman build of the Dockerfile from the locally made Debian 12 base', why is None,
              why or '')
        if why is None:
            image_checks()
            pair_case(tmp, huge.dir)
            stop_case(tmp, huge.dir)
            pingpong_stop_case(tmp)
            small_case(tmp)
    finally:
        huge.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == '__main__':
    sys.exit(main())
