#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The benchmark suite of roce_perf (TAP output); writes doc/performance.md.

usage: bench_perf.py ROCE_PERF DOC_OUT IR_BUDGET [--quick] [--ir-only] [--update-budget]

--quick: one run per goal instead of REPS; --ir-only: the callgrind part
alone (no doc written); --update-budget: write the measured counts into
IR_BUDGET (commit them with the change that explains them).

1. Instruction counts (callgrind, deterministic) of the per-packet paths:
   a single-lcore --loopback run of fixed work, instrumented only around the
   test loop (roce_perf brackets it with CALLGRIND_START/STOP_INSTRUMENTATION;
   valgrind runs with --instr-atstart=no). Inclusive Ir of each path's
   function divided by the packets it handled (from the port counters).
   Each count must stay within IR_SLACK times the committed budget
   (IR_BUDGET, JSON): the only pass/fail on performance, because counts do
   not move with the machine's load.
2. The goal matrix: two processes over net_memif (lcores 0 and 1), each run
   REPS times with --baseline, medians of the ratios. Reported, never
   pass/fail (two-core rates vary 3-6x between runs, doc/machine.md).
Python 3 standard library only.
"""

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from roce_tap import check, report  # noqa: E402

EAL = ['--no-huge', '-m', '512', '--no-shconf', '--no-pci', '--no-telemetry',
       '--log-level=lib.eal:warning', '--log-level=pmd.net.memif:error']
IR_SLACK = 1.5
REPS = 3
MEMIF = 'net_memif0,role=%s,socket=%s,bsize=8192'

# (name, roce_perf args, function, counter giving the packets it handled)
IR_RUNS = [
    ('write 64 B', ['--test', 'write_bw', '-s', '64', '-n', '2000']),
    ('send 64 B', ['--test', 'send_bw', '-s', '64', '-n', '2000', '-r', '512']),
    ('write 4 KiB', ['--test', 'write_bw', '-s', '4096', '-m', '4096', '-n', '1000']),
]
IR_PATHS = [
    # path, function, packets: (port index, counter)
    ('requester TX (build + send a request)', 'roce_req_run', (0, 'tx_packets')),
    ('responder RX (one request, ACK decision)', 'roce_resp_recv', (1, 'rx_packets')),
    ('completer (one ACK, completions)', 'roce_comp_recv', (0, 'rx_packets')),
    # The port checks a frame in one segment in place, others through the chain.
    ('ICRC check on RX (in place)', 'roce_icrc_check_writable', None),
    ('ICRC check on RX (mbuf chain)', 'rte_roce_icrc_check_mbuf', None),
    # A lane polls its queue with roce_port_poll_queue(), not the public wrapper.
    ('port RX (poll, classify, parse)', 'roce_port_poll_queue', None),
    ('whole loop, per message', 'PROGRAM TOTALS', 'msgs'),
]

GOALS = [
    ('write_bw_64k', 'RC WRITE 64 KiB @ IB MTU 4096: bw / raw memif bw',
     ['--test', 'write_bw', '-s', '65536', '-n', '20000'], 'bw', '>=', 0.60),
    ('write_bw_64', 'RC WRITE 64 B: msg rate / raw memif packet rate',
     ['--test', 'write_bw', '-s', '64', '-n', '200000'], 'msg_rate', '>=', 0.50),
    ('send_bw_64', 'RC SEND 64 B: msg rate / raw memif packet rate',
     ['--test', 'send_bw', '-s', '64', '-n', '200000'], 'msg_rate', '>=', 0.50),
    ('write_lat_64', 'RC WRITE ping-pong 64 B: median RTT above raw (us)',
     ['--test', 'write_lat', '-s', '64', '-n', '20000'], 'lat_overhead_us_p50', '<=', 1.0),
    ('write_lat_64_p99', 'RC WRITE ping-pong 64 B: p99 RTT above raw (us)',
     None, 'lat_overhead_us_p99', '<=', 2.0),
    ('read_bw_64k', 'RC READ 64 KiB bw / WRITE 64 KiB bw, each over the raw bw of its own run',
     ['--test', 'read_bw', '-s', '65536', '-n', '20000'], None, '>=', 0.80),
]



def parse(out):
    lines = [ln for ln in out.splitlines() if ln.startswith('{')]
    return json.loads(lines[-1]) if lines else None


def callgrind(perf, args, d):
    out = os.path.join(d, 'cg.out')
    cmd = ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--callgrind-out-file=' + out,
           perf] + EAL + ['-l', '0', '--', '--loopback', '--json'] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    j = parse(p.stdout)
    if p.returncode != 0 or j is None:
        return None, None, ' '.join(cmd) + '\n' + p.stderr[-500:]
    ann = subprocess.run(['callgrind_annotate', '--inclusive=yes', out], capture_output=True,
                         text=True).stdout
    ir = {}
    for ln in ann.splitlines():
        m = re.match(r'\s*([\d,]+) \([ \d.]+%\)\s+(\S+)', ln)
        if m is None:
            continue
        name = 'PROGRAM TOTALS' if 'PROGRAM TOTALS' in ln else m.group(2).split(':')[-1]
        ir.setdefault(name, int(m.group(1).replace(',', '')))
    return j, ir, ' '.join(cmd)


def ir_section(perf, budget, cmds):
    rows = []
    if shutil.which('valgrind') is None or shutil.which('callgrind_annotate') is None:
        check('callgrind # SKIP valgrind not installed', True)
        return rows
    with tempfile.TemporaryDirectory() as d:
        for run, args in IR_RUNS:
            j, ir, cmd = callgrind(perf, args, d)
            check('callgrind %s runs' % run, j is not None, cmd)
            if j is None:
                continue
            cmds.append('valgrind --tool=callgrind --instr-atstart=no ' +
                        ' '.join(['roce_perf'] + EAL + ['-l', '0', '--', '--loopback'] + args))
            ports = j['port']
            for path, fn, div in IR_PATHS:
                if div is None:
                    n = ports[0]['rx_packets'] + ports[1]['rx_packets']
                elif div == 'msgs':
                    n = j['iters']
                else:
                    n = ports[div[0]][div[1]]
                if fn not in ir or n == 0:
                    continue
                per = ir[fn] / n
                key = '%s/%s' % (run, fn)
                rows.append((run, path, fn, n, per, budget.get(key)))
                if key in budget:
                    check('Ir %s: %.0f <= %.0f x %.1f' % (key, per, budget[key], IR_SLACK),
                          per <= budget[key] * IR_SLACK)
    return rows


def memif_pair(perf, args, d, port):
    sock = os.path.join(d, 'b%d.sock' % port)
    common = ['-m', '4096', '--json', '-p', str(port)] + args
    srv = subprocess.Popen([perf] + EAL + ['-l', '0', '--file-prefix', 'bs%d' % port,
                            '--vdev', MEMIF % ('server', sock), '--', '--ip', '198.18.2.2/24'] +
                           common, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    cmd = [perf] + EAL + ['-l', '1', '--file-prefix', 'bc%d' % port, '--vdev',
                          MEMIF % ('client', sock), '--', '--ip', '198.18.2.1/24'] + common + \
        ['127.0.0.1']
    cli = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    try:
        srv.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        srv.kill()
        srv.communicate()
    j = parse(cli.stdout)
    return j, cli.stderr[-300:]


def goal_section(perf, reps, cmds):
    runs = {}
    port = 30000 + os.getpid() % 20000
    with tempfile.TemporaryDirectory() as d:
        for key, _, args, _, _, _ in GOALS:
            if args is None:
                continue
            extra = ['--baseline']
            cmds.append('roce_perf (server) ... -- --ip 198.18.2.2/24 -m 4096 %s' %
                        ' '.join(args + extra))
            for _ in range(reps):
                port += 1
                j, err = memif_pair(perf, args + extra, d, port)
                check('memif %s' % ' '.join(args + extra), j is not None, err)
                if j is not None:
                    runs.setdefault(key, []).append(j)
    return runs


def med(vals):
    return statistics.median(vals) if vals else float('nan')


def goal_rows(runs):
    rows = []
    # READ against WRITE: the machine's load moves both, so each is first
    # taken over the raw link of its own run
    wbw = [j['ratio']['bw'] for j in runs.get('write_bw_64k', [])]
    for key, what, _, field, op, target in GOALS:
        src = runs.get(key if field != 'lat_overhead_us_p99' else 'write_lat_64', [])
        if key == 'read_bw_64k':
            vals = [j['ratio']['bw'] / w for j, w in zip(src, wbw)]
        else:
            vals = [j['ratio'][field] for j in src]
        v = med(vals)
        met = v >= target if op == '>=' else v <= target
        rows.append((what, v, op, target, met, vals))
    return rows


def machine():
    cpu = 'unknown'
    try:
        with open('/proc/cpuinfo') as f:
            for ln in f:
                if ln.startswith('model name'):
                    cpu = ln.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    return '%s, %d CPUs, kernel %s' % (cpu, os.cpu_count(), platform.release())


# The hand-written record of what changed the instruction counts: kept as it
# is when the rest of the page is regenerated.
CHANGES_TITLE = '## Changes to the instructions per message'


def kept_changes(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return []
    start = text.find(CHANGES_TITLE)
    if start < 0:
        return []
    end = text.find('\n## ', start + len(CHANGES_TITLE))
    return [text[start:end if end >= 0 else len(text)].rstrip('\n') + '\n']


def write_doc(path, ir_rows, runs, goals, cmds, reps):
    changes = kept_changes(path)
    L = []
    L.append('# Performance of librte_roce (written by tests/bench/bench_perf.py)\n')
    L.append('Regenerate: `meson test -C build --suite bench` (a few minutes on 2 cores). '
             'Machine: %s; %s UTC. Rates on this shared 2-core VM vary 3-6x between runs '
             '(machine.md): read the ratios, which are measured in the same run as '
             'their raw baseline, and the instruction counts, which do not vary. What dominates '
             'each goal and what would reach it: roce_perf.md. Scale (1..16,384 active QPs, '
             'memory per QP and per WQE): scale.md.\n' %
             (machine(), time.strftime('%Y-%m-%d %H:%M', time.gmtime())))
    L.append('## Goals (two processes over net_memif, one core each, median of %d runs)\n' % reps)
    L.append('| goal | measured | target | met | runs |')
    L.append('|---|---|---|---|---|')
    for what, v, op, target, met, vals in goals:
        L.append('| %s | %.3f | %s %.2f | %s | %s |' % (what, v, op, target,
                                                        'yes' if met else '**no**',
                                                        ', '.join('%.3f' % x for x in vals)))
    L.append('\nRaw baseline = `--baseline`: the same ethdev, queue, mbuf pool and frame length '
             '(the frame carrying the message\'s first packet, e.g. 4170 B for 64 KiB WRITE at '
             'IB MTU 4096, 126 B for 64 B WRITE), burst TX for 1 s counted at the receiver, and a '
             '20000-frame L2 ping-pong; bw ratio = RoCE payload Gbit/s over raw L2 Gbit/s, '
             'msg_rate ratio = messages/s over raw frames/s, latency = round trips.\n')
    L.append('## Runs\n')
    L.append('| test | size | msg rate Mpps | bw Gbit/s | RTT p50 / p99 us | raw Mpps | '
             'raw Gbit/s | raw RTT p50 / p99 us | client busy |')
    L.append('|---|---|---|---|---|---|---|---|---|')
    for key, js in runs.items():
        for j in js:
            b = j.get('baseline', {})
            rtt = b.get('rtt_us', {})
            L.append('| %s_%s | %d | %.3f | %.2f | %s | %s | %s | %s | %.2f |' % (
                j['test'], j['mode'], j['size'], j['msg_rate_mpps'], j['bw_gbps'],
                '%.2f / %.2f' % (j['lat_us']['p50'], j['lat_us']['p99'])
                if j['mode'] == 'lat' else '-',
                '%.2f' % b['msg_rate_mpps'] if b else '-', '%.1f' % b['bw_gbps'] if b else '-',
                '%.2f / %.2f' % (rtt['p50'], rtt['p99']) if rtt else '-',
                j['cpu'][0]['busy']))
    L.append('\n## Instructions per packet (callgrind, single lcore, --loopback, fixed work)\n')
    L.append('Inclusive Ir of the function, divided by the packets it handled (port counters of '
             'the run). Deterministic but for the timer wheel\'s share of the whole loop (it scans the '
             'slots wall-clock time crossed: +-100 Ir per message under callgrind): the bench '
             'fails when one exceeds %.1fx its budget in '
             'tests/bench/ir_budget.json (update the budget in the commit that explains why).\n'
             % IR_SLACK)
    L.append('| run | path | function | packets | Ir/packet | budget |')
    L.append('|---|---|---|---|---|---|')
    for run, what, fn, n, per, bud in ir_rows:
        L.append('| %s | %s | `%s` | %d | %.0f | %s |' % (run, what, fn, n, per,
                                                        '%.0f' % bud if bud else '-'))
    L.append('')
    L.extend(changes)
    L.append('## Command lines\n')
    L.append('EAL arguments everywhere: `%s`; memif vdevs `%s`.\n' % (' '.join(EAL),
                                                                      MEMIF % ('server|client',
                                                                               'SOCK')))
    L.append('```')
    L.extend(cmds)
    L.append('```\n')
    with open(path, 'w') as f:
        f.write('\n'.join(L) + '\n')


def main():
    perf, doc, budget_path = sys.argv[1:4]
    quick = '--quick' in sys.argv
    with open(budget_path) as f:
        budget = json.load(f)
    cmds = []
    ir_rows = ir_section(perf, budget, cmds)
    if '--update-budget' in sys.argv:
        with open(budget_path, 'w') as f:
            json.dump({'%s/%s' % (r[0], r[2]): round(r[4]) for r in ir_rows}, f, indent=2)
            f.write('\n')
    if '--ir-only' in sys.argv:
        return report()
    reps = 1 if quick else REPS
    runs = goal_section(perf, reps, cmds)
    goals = goal_rows(runs)
    for what, v, op, target, met, _ in goals:
        print('# goal %s: %.3f (%s %.2f) %s' % (what, v, op, target, 'met' if met else 'NOT met'))
    for run, path, fn, n, per, bud in ir_rows:
        print('# Ir %s %s: %.0f per packet' % (run, fn, per))
    write_doc(doc, ir_rows, runs, goals, cmds, reps)
    check('doc written: %s' % doc, os.path.getsize(doc) > 0)
    return report()



if __name__ == '__main__':
    sys.exit(main())
