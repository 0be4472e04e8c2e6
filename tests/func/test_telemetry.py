#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The /roce/... telemetry commands, read with DPDK's own client.

Starts telemetry_peer (two devices over net_ring, each with a CM instance,
telemetry enabled under a file prefix of its own), which moves RC traffic and prints what the C calls
return; then asks dpdk-telemetry.py, non-interactively, every /roce command
and checks the JSON against the C values, and the error replies of bad
parameters.

Usage: test_telemetry.py TELEMETRY_PEER DPDK_TELEMETRY_PY
"""

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
import roce_tap  # noqa: E402

TIMEOUT_S = 60


def telemetry(client, prefix, cmds):
    """Replies of the standard client to cmds, one JSON object each."""
    out = subprocess.run([sys.executable, client, '-f', prefix], input='\n'.join(cmds) + '\n',
                         capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    lines = [l for l in out.stdout.splitlines() if l.startswith('{')]
    return [json.loads(l) for l in lines], out


def main():
    peer_bin, client = sys.argv[1], sys.argv[2]
    prefix = 'roce_tel_%d' % os.getpid()
    peer = subprocess.Popen([peer_bin, prefix], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        line = ''
        for line in peer.stdout:
            if line.startswith('{'):
                break
        roce_tap.check('peer reports its counters', line.startswith('{'), line)
        if not line.startswith('{'):
            return roce_tap.report()
        c = json.loads(line)
        qpn = c['qpn']
        cmds = ['/roce/list', '/roce/info,0', '/roce/stats,0', '/roce/port,0', '/roce/qps,0',
                '/roce/qp,0,%d' % qpn, '/roce/stats,7', '/roce/stats,x', '/roce/qp,0',
                '/roce/qp,0,%d' % (qpn + 1), '/roce/info,1', '/roce/workers,0',
                '/roce/cm', '/roce/cm,0', '/roce/cm,2', '/roce/cm,x']
        r, out = telemetry(client, prefix, cmds)
        roce_tap.check('one reply per command', len(r) == len(cmds),
                       'got %d: %s %s' % (len(r), out.stdout, out.stderr))
        if len(r) != len(cmds):
            return roce_tap.report()
        roce_tap.check('/roce/list', r[0].get('/roce/list') == [0, 1], str(r[0]))
        info = r[1].get('/roce/info', {})
        roce_tap.check('/roce/info name', info.get('name') == c['names'][0], str(info))
        # The RC QP and the CM's QP1.
        roce_tap.check('/roce/info nb_qps', info.get('nb_qps') == 2, str(info))
        stats = r[2].get('/roce/stats', {})
        roce_tap.check('/roce/stats equals rte_roce_xstats_get', stats == c['xstats'],
                       'telemetry %s\nC %s' % (stats, c['xstats']))
        roce_tap.check('counters moved', stats.get('sent_pkts', 0) > 0 and
                       stats.get('rcvd_pkts', 0) > 0 and stats.get('port_tx_packets', 0) > 0,
                       str(stats))
        roce_tap.check('mlx5 aliases equal rxe names',
                       stats.get('out_of_sequence') == stats.get('out_of_seq_request') and
                       stats.get('packet_seq_err') == stats.get('rcvd_seq_err'), str(stats))
        port = r[3].get('/roce/port', {})
        roce_tap.check('/roce/port is the port_ counters',
                       port and all(k in stats and stats[k] == v for k, v in port.items()) and
                       'port_tx_packets' in port and 'sent_pkts' not in port, str(port))
        roce_tap.check('/roce/qps', r[4].get('/roce/qps') == [1, qpn], str(r[4]))
        qp = r[5].get('/roce/qp', {})
        roce_tap.check('/roce/qp equals rte_roce_qp_stats_get',
                       qp.get('qpn') == qpn and qp.get('sent_pkts') == c['qp_sent_pkts'] and
                       qp.get('rcvd_pkts') == c['qp_rcvd_pkts'] and qp.get('state') == 3,
                       '%s vs %s' % (qp, c))
        for i, cmd in ((6, 'no such device'), (7, 'not a number'), (8, 'QPN missing'),
                       (9, 'no such QP')):
            roce_tap.check('%s: null reply (%s)' % (cmds[i], cmd),
                           r[i].get(cmds[i].split(',')[0]) is None, str(r[i]))
        roce_tap.check('/roce/info,1 is the peer',
                       r[10].get('/roce/info', {}).get('name') == c['names'][1], str(r[10]))
        roce_tap.check('/roce/workers: inline mode has none',
                       r[11].get('/roce/workers') == {'nb_workers': 0}, str(r[11]))
        roce_tap.check('/roce/cm lists the two CM instances', r[12].get('/roce/cm') == [0, 1],
                       str(r[12]))
        cm = dict(r[13].get('/roce/cm') or {})
        roce_tap.check('/roce/cm,0 names its device',
                       cm.pop('device', None) == c['names'][0] and cm.pop('nb_ids', None) == 0,
                       str(r[13]))
        roce_tap.check('/roce/cm,0 equals rte_roce_cm_xstats_get', cm == c['cm'],
                       'telemetry %s\nC %s' % (cm, c['cm']))
        for i, cmd in ((14, 'no such instance'), (15, 'not a number')):
            roce_tap.check('%s: null reply (%s)' % (cmds[i], cmd), r[i].get('/roce/cm') is None,
                           str(r[i]))
    finally:
        peer.stdin.close()
        try:
            rc = peer.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            peer.kill()
            rc = peer.wait()
        # The EAL leaves its runtime directory (config, fbarrays) behind.
        shutil.rmtree(os.path.join('/var/run' if os.getuid() == 0 else
                                   os.environ.get('XDG_RUNTIME_DIR', '/tmp'), 'dpdk', prefix),
                      ignore_errors=True)
    roce_tap.check('peer exits cleanly', rc == 0, 'exit %s' % rc)
    return roce_tap.report()


if __name__ == '__main__':
    sys.exit(main())
