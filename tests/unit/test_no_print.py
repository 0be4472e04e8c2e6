#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Nothing is printed from lib/ or drivers/: logs go through rte_log (lib.roce).

Every C source and header under the given directories is scanned, comments
and string literals removed, for calls that write to a stream (printf,
fprintf, puts, perror, write to fd 1/2 ...) and for stdout/stderr. The
scanner is checked first on samples that must and must not be flagged.

Usage: test_no_print.py DIR...
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
import roce_tap  # noqa: E402

PRINT_CALL = re.compile(r'\b(printf|fprintf|vprintf|vfprintf|dprintf|vdprintf|puts|putchar|'
                        r'perror|rte_hexdump|rte_memdump|rte_pktmbuf_dump)\s*\(|'
                        r'\b(stdout|stderr)\b|\bwrite\s*\(\s*[12]\s*,')
COMMENT_OR_STRING = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                               re.S)


def offences(text):
    """(line, excerpt) of every print in C text, comments and strings ignored."""
    code = COMMENT_OR_STRING.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
    found = []
    for m in PRINT_CALL.finditer(code):
        line = code.count('\n', 0, m.start()) + 1
        found.append((line, text.splitlines()[line - 1].strip()))
    return found


def self_check():
    bad = ['printf("x");', '\tfprintf(stderr, "%d", 1);', 'puts (s);', 'x = stdout;',
           'write(2, b, n);', 'rte_pktmbuf_dump(f, m, 64);']
    good = ['snprintf(buf, n, "printf(");', '/* printf("no") */', '// fprintf(stderr)',
            'ROCE_LOG(ERR, "puts(x) failed");', 'rte_log(RTE_LOG_ERR, t, "x");',
            'my_printf_like(x);', 'write(fd, b, n);']
    for s in bad:
        roce_tap.check('scanner flags: ' + s, offences(s))
    for s in good:
        roce_tap.check('scanner passes: ' + s, not offences(s), str(offences(s)))


def main():
    self_check()
    nfiles = 0
    for top in sys.argv[1:]:
        for root, _, files in os.walk(top):
            for name in sorted(files):
                if not name.endswith(('.c', '.h')):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding='utf-8', errors='replace') as f:
                    found = offences(f.read())
                nfiles += 1
                roce_tap.check('no print in ' + os.path.relpath(path, os.path.dirname(top)),
                               not found,
                               '\n'.join('%s:%d: %s' % (path, l, t) for l, t in found))
    roce_tap.check('sources scanned', nfiles > 0, 'no C file under ' + ' '.join(sys.argv[1:]))
    return roce_tap.report()


if __name__ == '__main__':
    sys.exit(main())
