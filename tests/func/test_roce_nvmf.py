#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""app/roce_nvmf as a program (TAP output): options, --target-config, SIGTERM.

usage: test_roce_nvmf.py ROCE_NVMF CONFIG_EXAMPLE

The target's protocol is tested by the func test nvmf (test_nvmf.c, a host
in the same process); this checks the program around it:
  - --help; the required options; a knob that cannot work refused at start,
    named (the log says which); --listen repeated: the same address twice, a
    fifth one, refused;
  - --target-config: config/nvmf.conf.example serves; a bad line is
    reported as FILE:LINE: key: why; a missing --ns-file is named;
  - several --nqn: a subsystem each, the --ns after one its own; a duplicate
    NQN or a subsystem without a namespace refused, named;
  - SIGHUP: the --ns-file namespaces' sizes read again ("rescan");
  - --srq-depth: served with a shared receive queue; above the device's
    max_srq_wr refused, named;
  - SIGTERM (and SIGINT) stop it: "stopping", exit 0 within STOP_S.
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

EAL = ['--no-huge', '-m', '512', '--no-shconf', '--no-pci', '--no-telemetry', '-l', '0',
       '--log-level=lib.eal:warning', '--log-level=pmd.net.memif:error']
STOP_S = 5.0
TIMEOUT_S = 60


def cmd(nvmf, sock, args):
    return [nvmf] + EAL + ['--vdev', 'net_memif0,role=server,socket=' + sock, '--'] + args


def run(nvmf, sock, args):
    p = subprocess.run(cmd(nvmf, sock, args), capture_output=True, text=True, timeout=TIMEOUT_S)
    return p.returncode, p.stdout + p.stderr


def serve_and_stop(nvmf, sock, args, sig):
    """Start, wait for the serving line, send sig: (serving line, exit status, seconds, output)."""
    p = subprocess.Popen(cmd(nvmf, sock, args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    line = p.stdout.readline()
    t0 = time.monotonic()
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return line, p.returncode, time.monotonic() - t0, out + err


def serve_two_and_rescan(nvmf, sock, args, img):
    """Two subsystems served; img grows, SIGHUP: (serving lines, rescan line, exit status)."""
    p = subprocess.Popen(cmd(nvmf, sock, args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    lines = p.stdout.readline() + p.stdout.readline()
    with open(img, 'r+b') as f:
        f.truncate(2 << 20)
    p.send_signal(signal.SIGHUP)
    rescan = p.stdout.readline()
    p.send_signal(signal.SIGTERM)
    try:
        out, err = p.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return lines, rescan, p.returncode, out + err


def main():
    nvmf, example = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix='roce_nvmf_') as d:
        sock = os.path.join(d, 'memif.sock')
        base = ['--ip', '10.0.0.1', '--nqn', 'nqn.2026-11.org.example:t']

        rc, out = run(nvmf, sock, ['--help'])
        check('--help: usage, exit 0', rc == 0 and '--ns-file' in out, out[-400:])
        rc, out = run(nvmf, sock, ['--ip', '10.0.0.1', '--ns', '4'])
        check('no --nqn: refused', rc == 1 and '--nqn' in out, out[-400:])
        rc, out = run(nvmf, sock, base + ['--ns', '4', '--max-transfer', '1000'])
        check('--max-transfer 1000: refused, the knob named',
              rc == 1 and 'max_transfer 1000' in out, out[-400:])
        rc, out = run(nvmf, sock, base + ['--ns', '4', '--listen', '10.0.0.300'])
        check('--listen of no address: refused, named',
              rc == 1 and '--listen: 10.0.0.300' in out, out[-400:])
        rc, out = run(nvmf, sock, base + ['--ns', '4'] + ['--listen', '10.0.0.1'] * 2)
        check('the same --listen twice: refused, listen[1] named',
              rc == 1 and 'listen[1]' in out, out[-400:])
        rc, out = run(nvmf, sock, base + ['--ns', '4'] + ['--listen', '10.0.0.1'] * 5)
        check('a fifth --listen: refused', rc == 1 and '--listen' in out, out[-400:])
        rc, out = run(nvmf, sock, base + ['--ns', '4', '--srq-depth', '8192'])
        check('--srq-depth above the device\'s max_srq_wr: refused, the knob named',
              rc == 1 and 'srq_depth 8192' in out and 'max_srq_wr' in out, out[-400:])
        line, rc, secs, out = serve_and_stop(nvmf, sock, base + ['--ns', '4', '--srq-depth', '64'],
                                             signal.SIGTERM)
        check('--srq-depth 64: served on --ip\'s address, stopped by SIGTERM, exit 0',
              'serving nqn.2026-11.org.example:t' in line and 'on 10.0.0.1' in line and rc == 0,
              line + out[-400:])
        rc, out = run(nvmf, sock, base + ['--ns-file', os.path.join(d, 'absent.img')])
        check('--ns-file of a missing file: refused, the path named',
              rc == 1 and 'absent.img' in out, out[-400:])

        bad = os.path.join(d, 'bad.conf')
        with open(bad, 'w') as f:
            f.write('# a comment\nnqn = nqn.2026-11.org.example:t\nbogus = 1\n')
        rc, out = run(nvmf, sock, ['--ip', '10.0.0.1', '--target-config', bad])
        check('--target-config: an unknown key reported as FILE:LINE: key',
              rc == 1 and '%s:3: bogus: unknown key' % bad in out, out[-400:])
        with open(bad, 'w') as f:
            f.write('nqn = nqn.2026-11.org.example:t\nns = 4,1000\n')
        rc, out = run(nvmf, sock, ['--ip', '10.0.0.1', '--target-config', bad])
        check('--target-config: a bad block size refused',
              rc == 1 and 'block size 1000' in out, out[-400:])

        img = os.path.join(d, 'disk.img')
        with open(img, 'wb') as f:
            f.truncate(1 << 20)
        for sig, name in ((signal.SIGTERM, 'SIGTERM'), (signal.SIGINT, 'SIGINT')):
            line, rc, secs, out = serve_and_stop(
                nvmf, sock, ['--ip', '10.0.0.1', '--target-config', example, '--ns-file', img],
                sig)
            check('%s: config/nvmf.conf.example and a file serve 3 namespaces' % name,
                  'serving nqn.2026-11.org.librte-roce:example (3 namespaces)' in line,
                  line + out[-400:])
            check('%s: stopping, exit 0 in %.2f s (< %.0f)' % (name, secs, STOP_S),
                  rc == 0 and secs < STOP_S and 'roce_nvmf: stopping' in out, out[-400:])

        b = ['--nqn', 'nqn.2026-11.org.example:b']
        rc, out = run(nvmf, sock, base + ['--ns', '4'] + base[2:] + ['--ns', '4'])
        check('the same --nqn twice: refused, named',
              rc == 1 and 'subsys[1].nqn' in out, out[-400:])
        rc, out = run(nvmf, sock, base + b + ['--ns', '4'])
        check('an --nqn without a namespace: refused, named',
              rc == 1 and 'nqn.2026-11.org.example:t: at least one' in out, out[-400:])
        lines, rescan, rc, out = serve_two_and_rescan(
            nvmf, sock, base + ['--ns', '4'] + b + ['--ns', '2', '--ns-file', img], img)
        check('two --nqn: two subsystems served, the --ns after each its own',
              'serving nqn.2026-11.org.example:t (1 namespace)' in lines and
              'serving nqn.2026-11.org.example:b (2 namespaces)' in lines, lines + out[-400:])
        check('SIGHUP after the file grew: one namespace changed, exit 0',
              'rescan: 1 namespace changed' in rescan and rc == 0, rescan + out[-400:])
    return report()


if __name__ == '__main__':
    sys.exit(main())
