# SPDX-License-Identifier: BSD-3-Clause
"""TAP output for the Python test programs: collect cases, print them at the end."""

results = []


def check(name, ok, why=''):
    """Record one case; why is printed as a TAP comment if it failed."""
    results.append((name, bool(ok), why))


def skip(name, why):
    """Record one case this machine cannot run, saying why (TAP's # SKIP)."""
    results.append(('%s # SKIP %s' % (name, why), True, ''))


def report():
    """Print the plan and every case; the exit status (0: all passed)."""
    print('1..%d' % len(results))
    for i, (name, ok, why) in enumerate(results, 1):
        print('%s %d - %s' % ('ok' if ok else 'not ok', i, name))
        if not ok and why:
            print('# ' + why.replace('\n', '\n# '))
    return 0 if all(ok for _, ok, _ in results) else 1


def skip_all(why):
    """The whole program cannot run on this machine: TAP's skip plan; exit status 0."""
    print('1..0 # SKIP ' + why)
    return 0
