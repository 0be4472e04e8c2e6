#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""lib/roce/version.map lists exactly the library's exported functions.

The map names every symbol explicitly (doc/architecture.md "Header tiers"):
a public function defined in lib/roce (a definition "rte_roce_x(" at the
start of a line of a .c file) that the map does not list would not be
exported, and a listed name nothing defines is stale.

Usage: test_version_map.py LIBDIR
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
import roce_tap  # noqa: E402


def main():
    libdir = sys.argv[1]
    defined = set()
    for name in sorted(os.listdir(libdir)):
        if name.endswith('.c'):
            with open(os.path.join(libdir, name), encoding='utf-8') as f:
                defined.update(re.findall(r'^(rte_roce_\w+)\(', f.read(), re.M))
    with open(os.path.join(libdir, 'version.map'), encoding='utf-8') as f:
        text = re.sub(r'#[^\n]*', '', f.read())
    listed = set(re.findall(r'\b(rte_roce_\w+)\s*;', text))
    roce_tap.check('functions found', len(defined) > 0, 'no rte_roce_ definition in ' + libdir)
    roce_tap.check('wildcard-free', '*' not in text.replace('local: *;', ''),
                   'version.map exports by pattern')
    for sym in sorted(defined - listed):
        roce_tap.check(sym + ' listed in version.map', False, 'add it (new API: EXPERIMENTAL)')
    for sym in sorted(listed - defined):
        roce_tap.check(sym + ' defined', False, 'listed in version.map, defined nowhere')
    roce_tap.check('every definition listed, every listed name defined', defined == listed)
    return roce_tap.report()


if __name__ == '__main__':
    sys.exit(main())
