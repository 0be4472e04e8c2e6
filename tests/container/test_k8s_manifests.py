#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""deploy/k8s/*.yaml against the Kubernetes API and what librte_roce needs (TAP).

usage: test_k8s_manifests.py SOURCE_ROOT ROCE_PERF

No cluster: what is checked is exactly this.
 1. Schema (core kinds: Pod, Service): every field name is one of the
    Kubernetes API's, at every depth, and its value has the API's type; the
    models' required fields are there. The schema is Debian's
    python3-kubernetes (its models are generated from the Kubernetes OpenAPI
    spec, 1.22 for Debian 12's 22.6.0). NetworkAttachmentDefinition (a Multus
    CRD, in no package): apiVersion, kind, metadata.name, spec.config as JSON
    with cniVersion, type and name, and the device plugin's resourceName
    annotation.
 2. Hugepages: every container asks hugepages-<size> with requests equal to
    limits, a whole number of pages, at least what roce_perf --dry-run
    prints for the container's own roce_perf options (the pages to give on
    2 MiB pages; one 1 GiB page holds any of them), and a memory limit; an emptyDir of the matching medium (HugePages for
    2Mi, HugePages-1Gi for 1Gi) mounted at /dev/hugepages.
 3. Security: non-root (runAsNonRoot, the image's uid 10001), no privilege
    escalation, capabilities: drop ALL, add IPC_LOCK, and NET_RAW and
    NET_ADMIN where the mlx5 PMD runs.
 4. EAL arguments: --in-memory, a --file-prefix, --socket-limit at most the
    hugepage limit; memif: the --vdev socket lies in a mounted hostPath
    directory, the same for both pods, roles server and client, the client
    placed on the server's node (podAffinity on its label, hostname
    topology) and connecting to the Service that selects the server; SR-IOV:
    the extended resource requested equals its limit, the network annotation
    names a NetworkAttachmentDefinition whose resourceName is that resource,
    and -a takes the device plugin's PCIDEVICE_<RESOURCE> variable.
Not checked: anything a cluster decides (admission, scheduling, the device
plugin's and Multus' own configuration, whether the node has the pages).
Skipped, saying why, without python3-yaml or python3-kubernetes.
"""

import glob
import json
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'common'))
from roce_tap import check, report, skip_all  # noqa: E402

UID = 10001
PAGE_MIB = {'hugepages-2Mi': 2, 'hugepages-1Gi': 1024}
MEDIUM = {'hugepages-2Mi': ('HugePages', 'HugePages-2Mi'), 'hugepages-1Gi': ('HugePages-1Gi',)}
UNITS = {'Ki': 1 / 1024, 'Mi': 1, 'Gi': 1024}


def mib(q):
    m = re.fullmatch(r'(\d+)(Ki|Mi|Gi)', str(q))
    return int(m.group(1)) * UNITS[m.group(2)] if m else None


def schema_errors(value, type_name, path, client):
    """Field names and types of value against the model type_name, recursively."""
    if type_name.startswith('list['):
        if not isinstance(value, list):
            return ['%s: a list expected' % path]
        return [e for i, v in enumerate(value)
                for e in schema_errors(v, type_name[5:-1], '%s[%d]' % (path, i), client)]
    if type_name.startswith('dict('):
        inner = type_name[5:-1].split(', ', 1)[1]
        if not isinstance(value, dict):
            return ['%s: a map expected' % path]
        return [e for k, v in value.items()
                for e in schema_errors(v, inner, '%s.%s' % (path, k), client)]
    if type_name == 'str':
        # quantities and int-or-string fields are strings in the models
        return [] if isinstance(value, (str, int)) and not isinstance(value, bool) else \
            ['%s: a string expected, got %r' % (path, value)]
    if type_name == 'int':
        return [] if isinstance(value, int) and not isinstance(value, bool) else \
            ['%s: an integer expected' % path]
    if type_name == 'bool':
        return [] if isinstance(value, bool) else ['%s: true or false expected' % path]
    if type_name == 'object':
        return []
    model = getattr(client, type_name, None)
    if model is None:
        return ['%s: no model %s' % (path, type_name)]
    if not isinstance(value, dict):
        return ['%s: an object (%s) expected' % (path, type_name)]
    names = {v: k for k, v in model.attribute_map.items()}
    errors = []
    for key, v in value.items():
        if key not in names:
            errors.append('%s.%s: not a field of %s' % (path, key, type_name))
            continue
        errors += schema_errors(v, model.openapi_types[names[key]], '%s.%s' % (path, key),
                                client)
    return errors


def core_schema(doc, name, client):
    kind = {'Pod': 'V1Pod', 'Service': 'V1Service'}[doc['kind']]
    errors = schema_errors(doc, kind, name, client)
    if not errors:
        try:	# the models' constructors refuse a missing required field
            client.ApiClient()._ApiClient__deserialize(doc, kind)
        except (ValueError, TypeError) as e:
            errors.append('%s: %s' % (name, e))
    check('schema: %s %s' % (doc['kind'], name), not errors, '\n'.join(errors))


def nad_schema(doc, name):
    try:
        conf = json.loads(doc['spec']['config'])
        ok = (doc['apiVersion'] == 'k8s.cni.cncf.io/v1' and
              all(k in conf for k in ('cniVersion', 'type', 'name')) and
              '/' in doc['metadata']['annotations']['k8s.v1.cni.cncf.io/resourceName'])
    except (KeyError, ValueError, TypeError) as e:
        ok = False
        name += ': %s' % e
    check('schema: NetworkAttachmentDefinition %s (spec.config JSON, resourceName)' % name, ok)


def eal_args(container):
    cmd = container.get('command', []) + container.get('args', [])
    if cmd[:2] == ['sh', '-c']:
        cmd = shlex.split(' '.join(cmd[2:]))
        cmd = cmd[1:] if cmd[:1] == ['exec'] else cmd
    if '--' not in cmd:
        return cmd, []
    i = cmd.index('--')
    return cmd[:i], cmd[i + 1:]


def opt(args, name):
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) \
        else None


def need_mib(perf, app, size):
    """What roce_perf --dry-run says app needs, in MiB of pages of size; None if it failed."""
    r = subprocess.run([perf, '--no-huge', '-m', '512', '--no-shconf', '--no-pci', '-l', '0',
                        '--no-telemetry', '--log-level=lib.eal:warning', '--',
                        '--dry-run'] + app, capture_output=True, text=True, timeout=60)
    m = re.search(r'on 2048 kB hugepages: total (\d+) B .*give it (\d+) pages', r.stdout)
    if r.returncode != 0 or m is None:
        return None
    if size == 'hugepages-1Gi':
        return -(-int(m.group(1)) // (1 << 30)) * PAGE_MIB[size]
    return int(m.group(2)) * PAGE_MIB['hugepages-2Mi']


def pod_checks(pod, perf, nads):
    name = pod['metadata']['name']
    spec = pod['spec']
    c = spec['containers'][0]
    res = c.get('resources', {})
    req, lim = res.get('requests', {}), res.get('limits', {})
    huge = [k for k in lim if k.startswith('hugepages-')]
    eal, app = eal_args(c)
    size = huge[0] if len(huge) == 1 else None
    got = mib(lim.get(size)) if size else None
    need = need_mib(perf, app, size)
    check('%s: one hugepage size, requests = limits, whole pages, >= %s MiB (roce_perf '
          '--dry-run %s), memory limit' % (name, need, ' '.join(app)),
          size in PAGE_MIB and req.get(size) == lim.get(size) and got is not None and
          need is not None and got % PAGE_MIB[size] == 0 and got >= need and 'memory' in lim,
          json.dumps(res))
    vols = {v['name']: v for v in spec.get('volumes', [])}
    mounts = {m['mountPath']: m['name'] for m in c.get('volumeMounts', [])}
    medium = vols.get(mounts.get('/dev/hugepages'), {}).get('emptyDir', {}).get('medium')
    check('%s: emptyDir medium %s at /dev/hugepages' % (name, medium),
          size in MEDIUM and medium in MEDIUM[size])
    sc, psc = c.get('securityContext', {}), spec.get('securityContext', {})
    caps = sc.get('capabilities', {})
    want = {'IPC_LOCK'} | ({'NET_RAW', 'NET_ADMIN'} if 'mlx5' in name else set())
    check('%s: non-root uid %d, no escalation, drop ALL, add %s' % (name, UID, sorted(want)),
          psc.get('runAsNonRoot') is True and psc.get('runAsUser') == UID and
          sc.get('allowPrivilegeEscalation') is False and caps.get('drop') == ['ALL'] and
          set(caps.get('add', [])) == want, json.dumps([psc, sc]))
    limit = opt(eal, '--socket-limit')
    check('%s: EAL --in-memory, --file-prefix, --socket-limit <= the hugepage limit' % name,
          '--in-memory' in eal and opt(eal, '--file-prefix') and limit is not None and
          got is not None and int(limit) <= got, ' '.join(eal))
    ext = [k for k in lim if '/' in k]
    if ext:
        res_name = ext[0]
        env = 'PCIDEVICE_' + re.sub(r'[./-]', '_', res_name).upper()
        nets = json.loads(pod['metadata']['annotations']['k8s.v1.cni.cncf.io/networks'])
        nad = nads.get(nets[0]['name'], {})
        check('%s: SR-IOV %s requests = limits, network %s of that resource, -a $%s'
              % (name, res_name, nets[0]['name'], env),
              req.get(res_name) == lim.get(res_name) and
              nad.get('metadata', {}).get('annotations', {}).get(
                  'k8s.v1.cni.cncf.io/resourceName') == res_name and
              opt(eal, '-a') == '$' + env, ' '.join(eal))
    return eal, app, c


def memif_checks(pods, services):
    """pods: [(pod document, (EAL args, roce_perf args, container))]."""
    ends = {}
    for pod, (eal, app, c) in pods:
        vdev = opt(eal, '--vdev') or ''
        if not vdev.startswith('net_memif'):
            continue
        kv = dict(x.split('=', 1) for x in vdev.split(',')[1:])
        sock_dir = os.path.dirname(kv.get('socket', ''))
        mounts = {m['mountPath']: m['name'] for m in c.get('volumeMounts', [])}
        vols = {v['name']: v for v in pod['spec']['volumes']}
        host = vols.get(mounts.get(sock_dir), {}).get('hostPath', {}).get('path')
        ends[kv.get('role')] = (pod, host, app)
    srv, cli = ends.get('server'), ends.get('client')
    check('memif pair: a server and a client pod, socket in the same hostPath directory',
          srv is not None and cli is not None and srv[1] is not None and srv[1] == cli[1],
          repr(ends))
    if srv is None or cli is None:
        return
    labels = srv[0]['metadata'].get('labels', {})
    terms = cli[0]['spec'].get('affinity', {}).get('podAffinity', {}).get(
        'requiredDuringSchedulingIgnoredDuringExecution', [])
    check('memif pair: the client is placed on the server\'s node',
          any(t.get('topologyKey') == 'kubernetes.io/hostname' and
              t['labelSelector'].get('matchLabels', {}).items() <= labels.items() and
              t['labelSelector'].get('matchLabels') for t in terms))
    svc = services.get(cli[2][-1])
    check('memif pair: the client connects to a Service selecting the server, port 18515',
          svc is not None and svc['spec']['selector'].items() <= labels.items() and
          any(p['port'] == 18515 for p in svc['spec']['ports']))


def main():
    src, perf = sys.argv[1], sys.argv[2]
    try:
        import yaml
        import kubernetes.client as client
    except ImportError as e:
        return skip_all('%s for %s (apt-get install python3-yaml python3-kubernetes)'
                        % (e, sys.executable))
    docs = []
    for path in sorted(glob.glob(os.path.join(src, 'deploy', 'k8s', '*.yaml'))):
        with open(path) as f:
            docs += [(os.path.basename(path), d) for d in yaml.safe_load_all(f) if d]
    check('deploy/k8s: manifests found', len(docs) >= 6, str(len(docs)))
    nads = {d['metadata']['name']: d for _, d in docs
            if d['kind'] == 'NetworkAttachmentDefinition'}
    services = {d['metadata']['name']: d for _, d in docs if d['kind'] == 'Service'}
    pods = []
    for fname, d in docs:
        name = '%s/%s' % (fname, d['metadata']['name'])
        if d['kind'] == 'NetworkAttachmentDefinition':
            nad_schema(d, name)
            continue
        core_schema(d, name, client)
        if d['kind'] == 'Pod':
            pods.append((d, pod_checks(d, perf, nads)))
    memif_checks(pods, services)
    self_checks(client)
    return report()


def self_checks(client):
    """The checker itself: a misspelt field, a wrong type, a missing required field."""
    bad = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'x'},
           'spec': {'containers': [{'name': 'c', 'image': 'i',
                                    'resources': {'limit': {'hugepages-2Mi': '2Mi'}}}]}}
    errs = schema_errors(bad, 'V1Pod', 'bad', client)
    check('checker: a misspelt field (resources.limit) is refused',
          errs == ['bad.spec.containers[0].resources.limit: not a field of V1ResourceRequirements'],
          repr(errs))
    bad['spec']['containers'][0]['resources'] = {}
    bad['spec']['containers'][0]['stdin'] = 'yes'
    errs = schema_errors(bad, 'V1Pod', 'bad', client)
    check('checker: a wrong type (stdin: "yes") is refused', len(errs) == 1, repr(errs))
    del bad['spec']['containers'][0]['stdin']
    del bad['spec']['containers'][0]['name']
    try:
        client.ApiClient()._ApiClient__deserialize(bad, 'V1Pod')
        refused = False
    except ValueError:
        refused = True
    check('checker: a missing required field (container name) is refused', refused)


if __name__ == '__main__':
    sys.exit(main())
