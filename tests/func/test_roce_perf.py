#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Functional tests of app/roce_perf (TAP output).

usage: test_roce_perf.py ROCE_PERF ROCE_DUMP

Every test type in both modes runs a short --loopback --verify --json run;
the JSON is parsed and its required keys and values checked. Bad options
must exit non-zero with a message. Then two-process runs over net_memif
(TCP exchange on 127.0.0.1) with IB MTU 4096: every operation, data verified;
and with -R (perftest's rdma_cm mode: the exchange over an RC QP, the test's
QPs connected through librte_roce_cm) write/read/send in BW and LAT.
Python 3 standard library only.
"""

import json
import re
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from roce_tap import check, report  # noqa: E402

EAL = ['--no-huge', '-m', '512', '--no-shconf', '--no-pci', '--no-telemetry',
       '--log-level=lib.eal:warning', '--log-level=pmd.net.memif:error']
TESTS = ['write', 'read', 'send', 'fetch_add', 'cmp_swap']
KEYS = ['test', 'mode', 'size', 'iters', 'qps', 'msg_rate_mpps', 'bw_gbps', 'lat_us', 'cpu',
        'port']
LAT_KEYS = ['min', 'p50', 'p99', 'p999', 'max']
BAD = [
    (['--loopback', '--test', 'nope'], 'unknown test'),
    (['--loopback', '-s', '0'], 'not a number'),
    (['--loopback', '-q', '65'], 'not a number'),
    (['--loopback', '-t', '4', '-l', '8'], '-l must not exceed -t'),
    (['--loopback', '--workers', '2'], 'needs N worker lcores besides the main one'),
    (['--loopback', '--workers', '17'], 'at most 16'),
    (['--loopback', '--workers', '1', '--baseline'], 'not with --workers'),
    (['--loopback', '--workers', '2', '--fault', 'drop=0.1'], 'not with --workers above 1'),
    (['--loopback', '-m', '1000'], '-m must be'),
    (['--loopback', '--fault', 'drop=2'], '--fault wants'),
    (['--loopback', '--mode', 'fast'], '--mode is bw or lat'),
    (['-s', '64'], 'needs --ip'),
    (['--loopback', '--test', 'write_lat', '-q', '2'], 'one QP'),
    (['--loopback', 'host'], 'no server host'),
    (['--loopback', '-R'], '-R connects two processes'),
    (['--ip', '198.18.1.1/24', '-R', '--baseline'], 'not with -R'),
    (['--loopback', '-n', '5', '--pcap', '/nonexistent/x.pcap'], 'No such file'),
    (['--loopback', '-u', '32'], '-u: "32" is not a number in 0..31'),
    (['--ip', '198.18.1.1/24', '-R', '-u', '18'], 'connection manager sets'),
    (['--loopback', '-H'], '-H reports the latency histogram: latency tests only'),
]



def run(perf, args, lcore='0', prefix=None, vdev=None, timeout=60, lcores=None):
    cmd = [perf] + EAL + (['--lcores', lcores] if lcores else ['-l', lcore])
    if prefix:
        cmd += ['--file-prefix', prefix]
    if vdev:
        cmd += ['--vdev', vdev]
    return subprocess.run(cmd + ['--'] + args, capture_output=True, text=True,
                          timeout=timeout)


def parse(out):
    lines = [ln for ln in out.splitlines() if ln.startswith('{')]
    return json.loads(lines[-1]) if lines else None


def check_json(name, j, test, mode, size):
    if j is None:
        check(name, False, 'no JSON line')
        return
    missing = [k for k in KEYS if k not in j] + \
              ['lat_us.' + k for k in LAT_KEYS if k not in j.get('lat_us', {})]
    if missing:
        check(name, False, 'missing keys %s' % missing)
        return
    lat = j['lat_us']
    sane = (j['test'] == test and j['mode'] == mode and j['size'] == size and
            j['qps'] == 1 and j['iters'] > 0 and j['msg_rate_mpps'] > 0 and j['bw_gbps'] > 0 and
            j['verified_bytes'] > 0 and len(j['port']) == 2 and
            j['port'][0]['tx_packets'] > 0 and j['port'][1]['tx_packets'] > 0 and
            j['port'][0]['drops'] == 0 and j['cpu'][0]['user_s'] >= 0)
    if mode == 'lat':
        sane = sane and 0 < lat['min'] <= lat['p50'] <= lat['p99'] <= lat['p999'] <= lat['max']
    check(name, sane, '' if sane else json.dumps(j)[:300])


def histogram_cpu_cases(perf):
    """-H: the round trips' histogram (JSON and table); --cpu_util: the process's and machine's CPU."""
    n = 400
    p = run(perf, ['--loopback', '--test', 'write_lat', '-n', str(n), '--json', '-H',
                   '--cpu_util'])
    j = parse(p.stdout)
    hist = j.get('lat_hist_us', []) if j is not None else []
    bounds = [b for b, _ in hist if b is not None]
    ok = (p.returncode == 0 and sum(c for _, c in hist) == n and bounds == sorted(bounds) and
          all(c > 0 for _, c in hist) and
          # the histogram holds the samples the percentiles come from
          (hist[-1][0] is None or hist[-1][0] >= j['lat_us']['max']))
    check('write_lat -H --json: lat_hist_us counts every round trip, buckets in order', ok,
          p.stderr[-300:] if j is None else json.dumps(hist))
    cu = j.get('cpu_util', {}) if j is not None else {}
    # a run shorter than /proc/stat's tick (10 ms) has no machine figure
    ok = 0 <= cu.get('process', -1) <= 2.5 and 'machine' in cu
    check('--cpu_util --json: the process share, the machine share key', ok, json.dumps(cu))
    p = run(perf, ['--loopback', '-D', '1', '-s', '64', '--json', '--cpu_util'])
    j = parse(p.stdout)
    cu = j.get('cpu_util', {}) if j is not None else {}
    ok = 0 < cu.get('process', -1) <= 2.5 and 0 <= (cu.get('machine') or -1) <= 1
    check('-D 1 --cpu_util --json: process and machine shares (0..1)', ok,
          p.stderr[-300:] if j is None else json.dumps(cu))
    p = run(perf, ['--loopback', '--test', 'send_lat', '-n', '200', '-H', '--cpu_util'])
    rows = re.findall(r'^ +(\d+\.\d+) +(\d+) +(\d+\.\d+)$', p.stdout, re.M)
    ok = (p.returncode == 0 and 'histogram: up to [usec]' in p.stdout and len(rows) > 0 and
          rows[-1][2] == '100.000' and sum(int(c) for _, c, _ in rows) <= 200 and
          re.search(r'CPU_Util\[%\]: this process \d+\.\d+ .*, machine ', p.stdout) is not None)
    check('send_lat -H --cpu_util: histogram to 100 %, CPU_Util line', ok, p.stdout[-600:])
    p = run(perf, ['--loopback', '--test', 'write_lat', '-n', '50', '--json'])
    j = parse(p.stdout)
    ok = j is not None and sum(c for _, c in j.get('lat_hist_us', [])) == 50 and 'cpu_util' not in j
    check('latency JSON carries the histogram without -H; cpu_util only when asked', ok,
          p.stdout[-300:])


def config_cases(perf):
    """--config: the device limits of the file apply; an invalid value names line and key."""
    with tempfile.TemporaryDirectory(prefix='perf_conf_') as d:
        path = os.path.join(d, 'roce.conf')
        for max_qp, ok in ((2, False), (8, True)):
            with open(path, 'w') as f:
                f.write('[port p]\ndev = net_ring0\nmax_qp = %d\n' % max_qp)
            p = run(perf, ['--loopback', '-q', '4', '-n', '50', '--config', path])
            check('--config max_qp %d with 4 QPs: %s' % (max_qp, 'runs' if ok else 'refused'),
                  (p.returncode == 0) == ok, p.stderr[-300:])
        with open(path, 'w') as f:
            f.write('[port p]\ndev = net_ring0\n\nrx_desc = 0\n')
        p = run(perf, ['--loopback', '--config', path])
        check('--config invalid value refused with line and key',
              p.returncode != 0 and path + ':4: rx_desc: 0 is out of range' in p.stderr,
              p.stderr[-300:])
        p = run(perf, ['--loopback', '--config', path + '.missing'])
        check('--config missing file refused', p.returncode != 0 and 'No such file' in p.stderr,
              p.stderr[-300:])


def pcap_case(perf, dump):
    """--pcap in a --no-shconf run (no dumpcap there): the client port's every frame, clean."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'perf.pcap')
        p = run(perf, ['--loopback', '-n', '50', '-s', '3000', '--json', '--pcap', path])
        j = parse(p.stdout)
        check('--pcap: run succeeds', p.returncode == 0 and j is not None, p.stderr[-300:])
        d = subprocess.run([dump, '--json', path], capture_output=True, text=True, timeout=60)
        try:
            c = json.loads(d.stdout.splitlines()[0])
        except (ValueError, IndexError):
            c = {}
        port = j['port'][0] if j is not None else {}
        ok = (d.returncode == 0 and c.get('roce', 0) > 0 and c.get('icrc_ok') == c.get('roce') and
              # the JSON counts from the test's start; the capture also has the ARP before it
              c.get('frames', 0) >= port.get('tx_packets', 1 << 40) + port.get('rx_packets', 0) and
              '0x11' in c.get('opcodes', {}))
        check('--pcap: roce_dump finds every frame of the port, both ways, every ICRC good', ok,
              'exit %d %s port %s' % (d.returncode, d.stdout[:400], json.dumps(port)))


def main():
    perf = sys.argv[1]
    for test in TESTS:
        for mode in ('bw', 'lat'):
            size = 8 if test in ('fetch_add', 'cmp_swap') else 3000
            name = 'loopback %s_%s --verify' % (test, mode)
            p = run(perf, ['--loopback', '--test', '%s_%s' % (test, mode), '-n', '300',
                           '-s', str(size), '--verify', '--json'])
            if p.returncode != 0:
                check(name, False, 'exit %d: %s' % (p.returncode, p.stderr[-300:]))
                continue
            check_json(name, parse(p.stdout), test, mode, size)
    # the baseline and its ratios; a fault run still delivers every byte
    p = run(perf, ['--loopback', '-s', '1024', '-n', '500', '--json', '--baseline'])
    j = parse(p.stdout)
    ok = (p.returncode == 0 and j is not None and j['baseline']['msg_rate_mpps'] > 0 and
          j['ratio']['bw'] > 0 and j['baseline']['rtt_us']['p50'] > 0)
    check('loopback --baseline: baseline and ratio', ok, p.stderr[-300:])
    p = run(perf, ['--loopback', '--test', 'write_lat', '-n', '200', '--json', '--baseline'])
    j = parse(p.stdout)
    ok = p.returncode == 0 and j is not None and 'lat_overhead_us_p50' in j['ratio']
    check('loopback write_lat --baseline: latency overhead', ok, p.stderr[-300:])
    p = run(perf, ['--loopback', '--test', 'send_bw', '-s', '2000', '-n', '300', '--verify',
                   '--json', '--fault', 'drop=0.02,dup=0.02,reorder=0.02,seed=7'])
    j = parse(p.stdout)
    ok = (p.returncode == 0 and j is not None and j['fault']['dropped'] > 0 and
          j['verified_bytes'] == 300 * 2000)
    check('loopback --fault: losses injected, every byte verified', ok,
          p.stderr[-300:] if j is None else json.dumps(j.get('fault')))
    # the devices' counters: what the engines sent is what the ports sent, losses retried
    c = j.get('counters', []) if j is not None else []
    ok = (len(c) == 2 and c[0]['sent_pkts'] > 0 and c[1]['rcvd_pkts'] > 0 and
          c[0]['completer_retry_err'] > 0 and c[1]['duplicate_request'] > 0 and
          c[0]['sent_pkts'] + c[0]['port_arp_requests_out'] + c[0]['port_arp_replies_out'] +
          c[0]['port_nd_solicits_out'] + c[0]['port_nd_adverts_out'] <= j['port'][0]['tx_packets'])
    check('loopback --fault: counters (rxe names) show the retries and duplicates', ok,
          json.dumps(c)[:600])
    p = run(perf, ['--loopback', '-a', '-n', '20', '-t', '16', '--json'])
    sizes = [json.loads(ln)['size'] for ln in p.stdout.splitlines() if ln.startswith('{')]
    check('loopback -a: sizes 2..65536', p.returncode == 0 and sizes == [2 << i for i in range(16)],
          str(sizes))
    p = run(perf, ['--loopback', '-D', '2', '-s', '1024'])
    # A progress line about every second; under load it may come at 1.1 s or later.
    check('-D 2: progress lines on stderr, one row', p.returncode == 0 and
          re.search(r'\.\.\. +\d+\.\d s .* Mpps', p.stderr) is not None and
          p.stdout.count('\n 1024 ') == 1,
          p.stdout[-300:] + p.stderr[-300:])
    p = run(perf, ['--loopback', '-n', '200'])
    check('table output', p.returncode == 0 and '#bytes' in p.stdout and 'BW average' in p.stdout,
          p.stdout[-300:])
    check('table output: counters line per device',
          p.stdout.count(' counters (requester): sent_pkts ') == 1 and
          p.stdout.count(' counters (responder): sent_pkts ') == 1, p.stdout[-400:])
    histogram_cpu_cases(perf)
    config_cases(perf)
    pcap_case(perf, sys.argv[2])
    workers_case(perf)
    for args, msg in BAD:
        p = run(perf, args)
        check('refused: %s' % ' '.join(args), p.returncode != 0 and msg in p.stderr,
              'exit %d, stderr %s' % (p.returncode, p.stderr[-200:]))
    two_process(perf)
    rdma_cm_refused(perf)
    return report()


def rdma_cm_refused(perf):
    """-R failures, one process on net_ring (which receives what it sends)."""
    p = run(perf, ['--ip', '198.18.0.1/24', '-R', '-n', '5', 'server.example'], vdev='net_ring0')
    check('-R: a server named by host name is refused, asking for its RoCE address',
          p.returncode != 0 and 'give its RoCE address' in p.stderr, p.stderr[-300:])
    # our own CM answers the REQ: nobody listens on the port, REJ reason 8, tried for 30 s
    p = run(perf, ['--ip', '198.18.0.1/24', '-R', '-n', '5', '198.18.0.1'], vdev='net_ring0',
            timeout=120)
    check('-R: nobody listening: REJECTED, reason 8 (invalid service ID), after 30 s of tries',
          p.returncode != 0 and 'RDMA_CM_EVENT_REJECTED, status 8' in p.stderr, p.stderr[-300:])


def workers_case(perf):
    """--workers 2 in loopback: the client's device on two worker lcores, 4 QPs over both."""
    lcores = floating_lcores()
    p = run(perf, ['--loopback', '--workers', '2', '-q', '4', '-s', '4096', '-n', '300',
                   '--verify', '--json'], lcores=lcores, timeout=120)
    j = parse(p.stdout)
    lanes = j.get('lanes', []) if j is not None else []
    ok = (p.returncode == 0 and j is not None and j['workers'] == 2 and j['qps'] == 4 and
          j['iters'] == 4 * 300 and j['verified_bytes'] == 4 * 4096 and len(lanes) == 2 and
          lanes[0]['nb_lanes'] == 2 and len(lanes[0]['workers']) == 2 and
          all(w['work'] > 0 and w['loops'] >= w['busy_loops'] > 0 for w in lanes[0]['workers']) and
          lanes[1]['nb_lanes'] == 2 and lanes[1]['workers'] == [] and
          all(k in lanes[0] for k in ('handoffs_out', 'handoffs_in', 'handoff_drops')) and
          lanes[0]['handoff_drops'] == 0 and lanes[1]['handoff_drops'] == 0 and
          j['counters'][0]['handoff_drops'] == 0)
    check('loopback --workers 2: both workers worked, lanes and hand-offs in the JSON', ok,
          p.stderr[-300:] + json.dumps(lanes)[:400])
    p = run(perf, ['--loopback', '--workers', '2', '-q', '4', '-n', '100'], lcores=lcores,
            timeout=120)
    check('loopback --workers 2: lanes and worker lines in the table',
          p.returncode == 0 and p.stdout.count(' lanes (requester): 2, workers; handoffs out ') == 1
          and p.stdout.count(' lanes (responder): 2, inline; ') == 1 and
          re.search(r' worker 1 \(requester, lcore \d+\): loops \d+ busy \d+', p.stdout) is not None,
          p.stdout[-500:] + p.stderr[-300:])
    p = run(perf, ['--loopback', '-n', '100', '--json'])
    j = parse(p.stdout)
    check('loopback default: inline (workers 0), one lane, no worker',
          p.returncode == 0 and j is not None and j['workers'] == 0 and
          j['lanes'][0] == {'nb_lanes': 1, 'handoffs_out': 0, 'handoffs_in': 0,
                            'handoff_drops': 0, 'workers': []}, p.stdout[-300:])


# Every RC operation between two processes over memif, data verified byte for
# byte: (test, size, iterations, extra options). The first also measures the
# raw baseline.
TWO_PROCESS = [
    ('write_bw', 65536, 300, ['--baseline']),
    ('write_bw', 1048576, 20, []),
    ('read_bw', 1048576, 20, []),
    ('send_bw', 1048576, 20, []),
    ('send_bw', 1, 500, []),
    ('fetch_add_bw', 8, 300, []),
    ('cmp_swap_bw', 8, 300, []),
    ('write_lat', 1, 200, []),
    ('read_lat', 4096, 100, []),
    ('send_lat', 64, 200, []),
]


# -R (perftest's rdma_cm mode) between two roce_perf, data verified.
RDMA_CM = [
    ('write_bw', 65536, 300, ['-q', '4']),
    ('read_bw', 65536, 100, []),
    ('send_bw', 4096, 300, []),
    ('write_lat', 64, 200, []),
    ('read_lat', 64, 200, []),
    ('send_lat', 64, 200, []),
]


CONNECT_TRIES = 5


def floating_lcores():
    """Three lcores (main and two workers) floating over the CPUs we have."""
    return '(0-2)@(%s)' % ','.join(str(c) for c in sorted(os.sched_getaffinity(0)))


def two_process(perf):
    for n, (test, size, iters, extra) in enumerate(TWO_PROCESS):
        with tempfile.TemporaryDirectory() as d:
            two_process_case(perf, os.path.join(d, 'perf.sock'), n, test, size, iters, extra)
    # Both ends on two workers: memif gives each end two queue pairs (queue q to queue q).
    with tempfile.TemporaryDirectory() as d:
        two_process_case(perf, os.path.join(d, 'perf.sock'), len(TWO_PROCESS), 'write_bw', 4096,
                         100, ['-q', '4', '--workers', '2'], lcores=floating_lcores())
    # -R: the exchange over an rdma_cm-connected QP, the test's QPs connected by rdma_cm.
    for n, (test, size, iters, extra) in enumerate(RDMA_CM):
        with tempfile.TemporaryDirectory() as d:
            two_process_case(perf, os.path.join(d, 'perf.sock'), len(TWO_PROCESS) + 1 + n,
                             test, size, iters, ['-R'] + extra)


# Local ACK timeout of the runs without -R: 4.096 us * 2^18 = 1.07 s, x 8 tries = 8.6 s
# of a peer off the CPU before a WR fails. perftest's default 14 (67 ms x 8 = 0.54 s)
# ended a 1 MiB read_bw in RETRY_EXC_ERR under load 35 on two cores (doc/roce_perf.md).
PATIENT_QP_TIMEOUT = ['-u', '18']


def two_process_case(perf, sock, n, test, size, iters, extra, lcores=None):
    port = str(20000 + (os.getpid() * (len(TWO_PROCESS) + 1) + n) % 20000)
    args = ['--test', test, '-m', '4096', '-s', str(size), '-n', str(iters), '--json',
            '-p', port, '--verify'] + extra + ([] if '-R' in extra else PATIENT_QP_TIMEOUT)
    srv = subprocess.Popen([perf] + EAL + (['--lcores', lcores] if lcores else ['-l', '0']) +
                           ['--file-prefix', 'tps%s' % port,
                            '--vdev', 'net_memif0,role=server,socket=%s,bsize=8192' % sock,
                            '--', '--ip', '198.18.1.2/24'] + args,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The server listens once its EAL and device are up: under load that may
    # take longer than the first second, so a refused connection is retried.
    # -R: the client names the server's RoCE address (and retries a REJ itself)
    host = '198.18.1.2' if '-R' in extra else '127.0.0.1'
    for attempt in range(CONNECT_TRIES):
        time.sleep(1)
        cli = run(perf, ['--ip', '198.18.1.1/24'] + args + [host], lcore='1',
                  prefix='tpc%s' % port, lcores=lcores,
                  vdev='net_memif0,role=client,socket=%s,bsize=8192' % sock)
        if 'Connection refused' not in cli.stderr:
            break
    try:
        sout, serr = srv.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        srv.kill()
        sout, serr = srv.communicate()
    j = parse(cli.stdout)
    what = 'two processes over memif, IB MTU 4096: %s %d B x %d --verify%s' % (
        test, size, iters, ' ' + ' '.join(extra) if extra else '')
    qps = int(extra[extra.index('-q') + 1]) if '-q' in extra else 1
    ok = (cli.returncode == 0 and srv.returncode == 0 and j is not None and
          j['topology'] == 'two_process' and j['iters'] == iters * qps and j['size'] == size)
    if ok and '--workers' in extra:
        lanes = j['lanes'][0]
        ok = (lanes['nb_lanes'] == 2 and len(lanes['workers']) == 2 and
              all(w['work'] > 0 for w in lanes['workers']) and lanes['handoff_drops'] == 0)
    if ok and '--baseline' in extra:
        ok = j['port'][0]['tx_bytes'] > iters * size and j['baseline']['bw_gbps'] > 0
    check(what, ok, 'exit client %d server %d; %s; %s%s' % (
        cli.returncode, srv.returncode,
        'no JSON' if j is None else 'iters %s size %s' % (j.get('iters'), j.get('size')),
        cli.stderr[-300:], serr[-300:]))
    if test.endswith('_bw') and '--baseline' in extra:
        sj = parse(sout)
        check('two processes: the server prints the client\'s report',
              sj is not None and sj['iters'] == iters and sj['bw_gbps'] > 0, sout[-200:])


if __name__ == '__main__':
    sys.exit(main())
