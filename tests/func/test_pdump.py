#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""DPDK's packet capture (pdump) on librte_roce programs, with dpdk-dumpcap.

usage: test_pdump.py ROCE_PERF ROCE_DUMP PDUMP_PEER DPDK_DUMPCAP RC_PINGPONG

A secondary process (dpdk-dumpcap) attaches to a primary only through
shared hugepage memory, so the test reserves hugepages and mounts a
hugetlbfs of its own in a temporary directory (root), with a file prefix of
its own; it skips (TAP skip plan, with the reason) only if that is
impossible on this machine. Then:

 - roce_perf --loopback runs as the primary for a while; dumpcap captures
   its net_ring port in classic pcap (-P) and in pcapng while it runs; both
   go through roce_dump --json: RoCEv2 frames, every one well formed with a
   good ICRC, both directions (requests and ACKs); dumpcap -w - on its
   second port piped into roce_dump -v -: decoded as captured, clean, every
   frame labelled with that port's interface;
 - dumpcap attached and detached again and again while roce_perf sends:
   roce_perf survives every detach (a detach used to free dumpcap's ring and
   pool under a burst still in pdump's callback: SIGSEGV);
 - examples/rc_pingpong (pdump through examples/common) over net_memif:
   dumpcap attaches to the server while it waits for its client, then the
   client starts; the capture holds RoCEv2 SENDs and ACKs, clean;
 - rte_roce_pdump_enable() in a secondary of that primary: -EPERM;
 - roce_perf --no-pdump: dumpcap's request is refused, roce_perf unharmed;
 - roce_perf with --in-memory and with --no-huge: pdump stays off, logged at
   INFO, the run succeeds;
 - pdump_peer: the API in a primary (ownership, twice, the host's own
   rte_pdump_init()), in --in-memory and --no-huge processes, before the EAL.

Cleans up what it made: processes (by their Popen objects), hugepage files,
the mount, the EAL runtime directories of its prefixes, the hugepages it
added. Python 3 standard library only.
"""

import collections
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
import roce_tap  # noqa: E402
from roce_hugepages import Hugepages  # noqa: E402

NEED_MB = 256               # roce_perf ~50 MB, dumpcap's pool and ring, pdump's stats memzone
PRIMARY_S = 40              # roce_perf -D: how long three dumpcap runs have to attach (2 shared cores)
READY_TIMEOUT_S = 90        # primary started and pdump on
DUMPCAP_TIMEOUT_S = 90      # dumpcap: EAL as a secondary, then N frames
CAPTURE_FRAMES = 200
PCAPNG_MAGIC = b'\x0a\x0d\x0d\x0a'
RUNTIME_DIR = '/var/run/dpdk'
ETHDEV = 'net_ring_perf_a'  # roce_perf --loopback's client port (rte_eth_from_rings name)
ETHDEV_B = 'net_ring_perf_b'  # ... and its server port
OP_ACK = '0x11'             # RC ACKNOWLEDGE: what port a receives
OPS_WRITE = ('0x06', '0x07', '0x08', '0x0a')  # RDMA WRITE first/middle/last/only: what it sends
LOG = ['--log-level=lib.eal:warning', '--log-level=lib.roce:info']
PP_ITERS = 2000             # rc_pingpong -n: dumpcap is attached before it starts
# Frames to capture: the ARP exchange comes first, and under ASan a burst of
# ~100 ARP frames was seen before the first SEND; 4 frames per iteration follow.
PP_FRAMES = 400
PP_SERVER_IP, PP_CLIENT_IP = '198.18.2.2/24', '198.18.2.1/24'
# dumpcap runs attached and detached in turn while roce_perf sends: each
# detach raced a burst inside pdump's callback; the crash (DPDK 22.11's
# pdump, doc/observability.md) came after 4 such runs on a loaded machine.
DETACH_RUNS = 8
DETACH_FRAMES = 30
OP_SEND_ONLY = '0x04'
# A secondary maps the primary's memory at the primary's addresses. Under
# AddressSanitizer the primary's EAL finds DPDK's default base (4 GiB) inside
# ASan's shadow and picks an address that dumpcap (not instrumented) already
# uses: "Cannot reserve ... at [0x7f...] - please use '--base-virtaddr'". An
# address high in user space is free in both.
ASAN_BASE = ['--base-virtaddr', '0x200000000000']
# DPDK 22.11's vdev bus does not free, at rte_eal_cleanup(), the device list a
# secondary process copies from the primary (librte_bus_vdev calloc/strdup):
# LeakSanitizer reports it in pdump_peer's secondary run. Not ours.
LSAN_SUPP = 'leak:librte_bus_vdev.so\n'


class Run:
    """One process, output to files (no pipe to fill), killed by close() if still alive."""

    def __init__(self, tmp, name, cmd, env=None):
        self.out_path = os.path.join(tmp, name + '.out')
        self.err_path = os.path.join(tmp, name + '.err')
        with open(self.out_path, 'w') as out, open(self.err_path, 'w') as err:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)

    def err(self):
        with open(self.err_path, errors='replace') as f:
            return f.read()

    def out(self):
        with open(self.out_path, errors='replace') as f:
            return f.read()

    def wait_err(self, text, timeout):
        """True once text is on stderr; False if the process ended or time ran out first."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if text in self.err():
                return True
            if self.proc.poll() is not None:
                return text in self.err()
            time.sleep(0.1)
        return False

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Test:
    def __init__(self, args):
        self.perf, self.dump, self.peer_bin, self.dumpcap_bin, self.pp = args
        self.tmp = tempfile.mkdtemp(prefix='roce_pdump_')
        self.huge = Hugepages(NEED_MB, 'roce_pdump_huge_')
        self.runs = []
        self.prefixes = []
        self.base = 'roce_pdump_%d' % os.getpid()

    def prefix(self, tag):
        p = '%s_%s' % (self.base, tag)
        self.prefixes.append(p)
        return p

    def start(self, name, cmd, env=None):
        r = Run(self.tmp, name, cmd, env)
        self.runs.append(r)
        return r

    def eal(self, prefix, extra=(), lcore='0'):
        with open(self.perf, 'rb') as f:
            asan = b'__asan_init' in f.read()
        return ['-l', lcore, '--no-pci', '--no-telemetry', '--huge-dir', self.huge.dir,
                '--file-prefix', prefix] + (ASAN_BASE if asan else []) + list(extra) + LOG

    def close(self):
        for r in self.runs:
            r.close()
        self.huge.close()
        for p in self.prefixes:
            shutil.rmtree(os.path.join(RUNTIME_DIR, p), ignore_errors=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def peer(self, mode, eal, what):
        """pdump_peer's 'check' lines as TAP cases, under what."""
        supp = os.path.join(self.tmp, 'lsan.supp')
        with open(supp, 'w') as f:
            f.write(LSAN_SUPP)
        env = dict(os.environ, LSAN_OPTIONS='suppressions=' + supp)
        r = self.start('peer_' + mode, [self.peer_bin, mode] + eal, env)
        status = r.wait(READY_TIMEOUT_S)
        lines = [l for l in r.out().splitlines() if l.startswith('check ')]
        roce_tap.check('%s: pdump_peer exits 0' % what, status == 0,
                       'status %s\n%s\n%s' % (status, r.out(), r.err()[-2000:]))
        roce_tap.check('%s: pdump_peer checked something' % what, len(lines) > 2, r.out())
        for line in lines:
            ok, _, name = line[len('check '):].partition(' ')
            roce_tap.check('%s: %s' % (what, name.split(':')[0]), ok == '1', name)

    def dumpcap(self, name, prefix, args):
        r = self.start(name, [self.dumpcap_bin, '--file-prefix', prefix, '-i', ETHDEV] + args)
        status = r.wait(DUMPCAP_TIMEOUT_S)
        return status, r

    def capture(self):
        """roce_perf primary, dumpcap secondary in pcap and pcapng, roce_dump on the pcap."""
        prefix = self.prefix('perf')
        perf = self.start('perf', [self.perf] + self.eal(prefix) +
                          ['--', '--loopback', '-D', str(PRIMARY_S), '--verify'])
        ready = perf.wait_err('pdump: on', READY_TIMEOUT_S)
        roce_tap.check('roce_perf (primary, hugepages) turns pdump on', ready, perf.err()[-2000:])
        if not ready:
            return
        self.peer('secondary', ['--proc-type=secondary', '--file-prefix', prefix,
                                '--no-pci', '--no-telemetry', '-l', '0'] + LOG,
                  'secondary of roce_perf')
        pcap = os.path.join(self.tmp, 'perf.pcap')
        status, dc = self.dumpcap('dumpcap_pcap', prefix,
                                  ['-P', '-c', str(CAPTURE_FRAMES), '-w', pcap])
        roce_tap.check('dumpcap -P captures %d frames' % CAPTURE_FRAMES, status == 0,
                       'status %s: %s' % (status, dc.err()[-2000:]))
        pcapng = os.path.join(self.tmp, 'perf.pcapng')
        status, dc = self.dumpcap('dumpcap_pcapng', prefix,
                                  ['-c', str(CAPTURE_FRAMES), '-w', pcapng])
        magic = b''
        if os.path.exists(pcapng):
            with open(pcapng, 'rb') as f:
                magic = f.read(4)
        roce_tap.check('dumpcap pcapng capture', status == 0 and magic == PCAPNG_MAGIC,
                       'status %s magic %r: %s' % (status, magic, dc.err()[-2000:]))
        self.check_pcap(pcap, 'roce_perf', CAPTURE_FRAMES, OPS_WRITE)
        self.check_pcap(pcapng, 'roce_perf pcapng', CAPTURE_FRAMES, OPS_WRITE)
        self.live_pipe(prefix)
        status = perf.wait(PRIMARY_S + READY_TIMEOUT_S)
        roce_tap.check('roce_perf survives the captures and exits 0', status == 0,
                       'status %s\n%s\n%s' % (status, perf.out()[-2000:], perf.err()[-2000:]))

    def detach_under_traffic(self):
        """dumpcap attached and detached DETACH_RUNS times while roce_perf's bursts run
        pdump's callbacks; roce_perf, stopped by SIGTERM afterwards, exits 0."""
        prefix = self.prefix('detach')
        perf = self.start('detach', [self.perf] + self.eal(prefix) +
                          ['--', '--loopback', '-D', '3600'])
        ready = perf.wait_err('pdump: on', READY_TIMEOUT_S)
        roce_tap.check('roce_perf for the detach runs turns pdump on', ready, perf.err()[-2000:])
        if not ready:
            return
        failed = []
        for i in range(DETACH_RUNS):
            port = ETHDEV if i % 2 == 0 else ETHDEV_B
            r = self.start('dumpcap_detach', [self.dumpcap_bin, '--file-prefix', prefix, '-q',
                                              '-i', port, '-c', str(DETACH_FRAMES),
                                              '-w', os.devnull])
            status = r.wait(DUMPCAP_TIMEOUT_S)
            if status != 0:
                failed.append('run %d on %s: status %s %s' % (i, port, status, r.err()[-500:]))
            if perf.proc.poll() is not None:
                break
        roce_tap.check('dumpcap attached and detached %d times under traffic' % DETACH_RUNS,
                       not failed, '\n'.join(failed))
        if perf.proc.poll() is None:
            perf.proc.send_signal(signal.SIGTERM)
        status = perf.wait(READY_TIMEOUT_S)
        roce_tap.check('roce_perf survives every detach and exits 0 on SIGTERM', status == 0,
                       'status %s\n%s' % (status, perf.err()[-2000:]))

    def live_pipe(self, prefix):
        """dpdk-dumpcap -w - | roce_dump -v -, on the second port: decoded as captured,
        every frame labelled with that port's interface."""
        out = os.path.join(self.tmp, 'pipe.txt')
        with open(out, 'w') as f:
            dump = subprocess.Popen([self.dump, '-v', '-'], stdin=subprocess.PIPE, stdout=f,
                                    stderr=subprocess.PIPE)
            dc = subprocess.Popen([self.dumpcap_bin, '--file-prefix', prefix, '-q',
                                   '-i', ETHDEV_B, '-c', str(CAPTURE_FRAMES), '-w', '-'],
                                  stdout=dump.stdin, stderr=subprocess.PIPE)
            dump.stdin.close()
            try:
                dc_status = dc.wait(DUMPCAP_TIMEOUT_S)
                dump_status = dump.wait(DUMPCAP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                dc_status = dump_status = None
            for p in (dc, dump):
                if p.poll() is None:
                    p.kill()
                    p.wait()
            err = dc.stderr.read().decode(errors='replace') + dump.stderr.read().decode(
                errors='replace')
            dc.stderr.close()
            dump.stderr.close()
        with open(out) as f:
            text = f.read()
        roce_tap.check('dumpcap -w - | roce_dump -: both exit 0', dc_status == 0 and
                       dump_status == 0, 'dumpcap %s roce_dump %s: %s %s'
                       % (dc_status, dump_status, text[-2000:], err[-2000:]))
        m = re.search(r'^-: (\d+) frames, (\d+) RoCEv2 \(icrc ok (\d+), icrc bad 0, '
                      r'malformed 0\)', text, re.M)
        roce_tap.check('dumpcap -w - | roce_dump -: every frame, clean',
                       m is not None and int(m.group(1)) >= CAPTURE_FRAMES and
                       int(m.group(2)) > 0 and m.group(2) == m.group(3), text[-2000:])
        # dumpcap 22.11 describes every port of the primary (if_name dpdk:PORT,
        # if_hardware vdev-NAME), then writes the frames of the captured one.
        ifaces = collections.Counter(re.findall(r'^\tinterface .*$', text, re.M))
        roce_tap.check('dumpcap -w - | roce_dump -v -: every frame on the second port',
                       m is not None and len(ifaces) == 1 and
                       sum(ifaces.values()) == int(m.group(1)) and
                       next(iter(ifaces)).endswith(' (vdev-%s)' % ETHDEV_B) and
                       not next(iter(ifaces)).startswith('\tinterface 0 '), repr(ifaces))

    def check_pcap(self, pcap, what, frames, requests):
        """roce_dump --json on a dumpcap capture: enough frames, RoCEv2, clean, both ways."""
        if not os.path.exists(pcap):
            roce_tap.check('%s: roce_dump reads the capture' % what, False, 'no ' + pcap)
            return {}
        r = subprocess.run([self.dump, '--json', pcap], capture_output=True, text=True,
                           timeout=DUMPCAP_TIMEOUT_S, check=False)
        try:
            j = json.loads(r.stdout.splitlines()[0])
        except (ValueError, IndexError):
            j = {}
        roce_tap.check('%s: roce_dump reads the capture, exit 0' % what,
                       r.returncode == 0 and 'frames' in j,
                       'exit %d: %s %s' % (r.returncode, r.stdout, r.stderr))
        if 'frames' not in j:
            return j
        roce_tap.check('%s: every captured frame is there' % what, j['frames'] >= frames,
                       r.stdout)
        roce_tap.check('%s: RoCEv2 frames captured' % what, j['roce'] > 0, r.stdout)
        roce_tap.check('%s: every RoCEv2 frame parses with a good ICRC' % what,
                       j['icrc_ok'] == j['roce'] and j['icrc_bad'] == 0 and j['malformed'] == 0
                       and j['snapped'] == 0, r.stdout)
        ops = j.get('opcodes', {})
        roce_tap.check('%s: requests captured' % what, any(o in ops for o in requests),
                       r.stdout)
        roce_tap.check('%s: ACKs captured' % what, OP_ACK in ops, r.stdout)
        return j

    def example(self):
        """rc_pingpong: pdump through examples/common; dumpcap attached before the client."""
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(('127.0.0.1', 0))
            tcp = str(s.getsockname()[1])
        sock = os.path.join(self.tmp, 'pp.sock')
        opts = ['-p', tcp, '-n', str(PP_ITERS), '-s', '1024']
        prefix = self.prefix('pps')
        memif = ['--log-level=pmd.net.memif:error', '--vdev']
        srv = self.start('pp_server', [self.pp] + self.eal(
            prefix, memif + ['net_memif0,role=server,socket=' + sock]) +
            ['--', '--ip', PP_SERVER_IP] + opts)
        ready = srv.wait_err('pdump: on', READY_TIMEOUT_S)
        roce_tap.check('rc_pingpong server turns pdump on', ready, srv.err()[-2000:])
        if not ready:
            return
        pcap = os.path.join(self.tmp, 'pp.pcap')
        dc = self.start('dumpcap_pp', [self.dumpcap_bin, '--file-prefix', prefix,
                                       '-i', 'net_memif0', '-P', '-c', str(PP_FRAMES),
                                       '-w', pcap])
        # dumpcap writes "Packets captured:" to stderr once rte_pdump_enable_bpf()
        # has returned ("Capturing on" goes to stdout, buffered in a file).
        attached = dc.wait_err('Packets captured:', DUMPCAP_TIMEOUT_S)
        roce_tap.check('dumpcap attaches to the waiting rc_pingpong server', attached,
                       dc.err()[-2000:])
        if not attached:
            return
        cli = self.start('pp_client', [self.pp] + self.eal(
            self.prefix('ppc'), memif + ['net_memif0,role=client,socket=' + sock], lcore='1') +
            ['--', '--ip', PP_CLIENT_IP] + opts + ['127.0.0.1'])
        status = dc.wait(DUMPCAP_TIMEOUT_S)
        roce_tap.check('dumpcap captures %d frames of rc_pingpong' % PP_FRAMES, status == 0,
                       'status %s: %s' % (status, dc.err()[-2000:]))
        cst, sst = cli.wait(READY_TIMEOUT_S), srv.wait(READY_TIMEOUT_S)
        roce_tap.check('rc_pingpong server and client exit 0', cst == 0 and sst == 0,
                       'client %s server %s\n%s\n%s' % (cst, sst, cli.err()[-1000:],
                                                        srv.err()[-1000:]))
        self.check_pcap(pcap, 'rc_pingpong', PP_FRAMES, [OP_SEND_ONLY])

    def no_pdump(self):
        """--no-pdump: the primary does not answer pdump; dumpcap fails, roce_perf does not."""
        prefix = self.prefix('nopdump')
        perf = self.start('nopdump', [self.perf] + self.eal(prefix) +
                          ['--', '--loopback', '-D', str(PRIMARY_S // 2), '--no-pdump'])
        ready = perf.wait_err('Mpps', READY_TIMEOUT_S)    # roce_perf -D's first progress line
        roce_tap.check('roce_perf --no-pdump runs', ready, perf.err()[-2000:])
        if not ready:
            return
        roce_tap.check('roce_perf --no-pdump says nothing of pdump', 'pdump:' not in perf.err(),
                       perf.err()[-2000:])
        status, dc = self.dumpcap('dumpcap_nopdump', prefix,
                                  ['-P', '-c', '10', '-w', os.path.join(self.tmp, 'no.pcap')])
        roce_tap.check('dumpcap refused by a --no-pdump primary', status not in (0, None),
                       'status %s: %s' % (status, dc.err()[-2000:]))
        status = perf.wait(PRIMARY_S + READY_TIMEOUT_S)
        roce_tap.check('roce_perf --no-pdump exits 0', status == 0,
                       'status %s\n%s' % (status, perf.err()[-2000:]))

    def off(self, what, eal, why):
        """pdump impossible: logged at INFO, the program runs to the end."""
        r = self.start('off', [self.perf] + eal + LOG + ['--', '--loopback', '-n', '200'])
        status = r.wait(READY_TIMEOUT_S)
        roce_tap.check('roce_perf %s: exits 0' % what, status == 0,
                       'status %s: %s' % (status, r.err()[-2000:]))
        roce_tap.check('roce_perf %s: says why pdump is off' % what, why in r.err(),
                       r.err()[-2000:])

    def run(self):
        why = self.huge.setup()
        if why is not None:
            return roce_tap.skip_all(why)
        self.capture()
        self.huge.wipe()
        self.detach_under_traffic()
        self.huge.wipe()
        self.example()
        self.huge.wipe()
        self.no_pdump()
        self.huge.wipe()
        self.peer('primary', self.eal(self.prefix('api')), 'primary')
        self.peer('off', ['-l', '0', '--no-pci', '--in-memory', '--huge-dir', self.huge.dir],
                  '--in-memory')
        self.peer('off', ['-l', '0', '--no-pci', '--no-huge', '-m', '64',
                          '--file-prefix', self.prefix('nohuge')], '--no-huge')
        self.off('--in-memory', ['-l', '0', '--no-pci', '--in-memory', '--no-telemetry',
                                 '--huge-dir', self.huge.dir], 'no multi-process channel')
        self.off('--no-huge', ['-l', '0', '--no-pci', '--no-huge', '-m', '512', '--no-telemetry',
                               '--file-prefix', self.prefix('nohuge2')], '--no-huge memory')
        return roce_tap.report()


def main():
    if len(sys.argv) != 6:
        print('usage: test_pdump.py ROCE_PERF ROCE_DUMP PDUMP_PEER DPDK_DUMPCAP RC_PINGPONG',
              file=sys.stderr)
        return 2
    t = Test(sys.argv[1:])
    try:
        return t.run()
    finally:
        t.close()


if __name__ == '__main__':
    sys.exit(main())
