#!/usr/bin/env python3
"""Count test cases across meson build directories.

usage: count-results.py BUILDDIR|TESTLOG.json|OUTPUT.tap...

Reads BUILDDIR/meson-logs/testlog.json, the named meson test log, or the
TAP output of a script (a .tap file). A TAP test program counts each of its
"ok" / "not ok" lines; a program that failed without reporting a failing case
(a crash, a timeout, a sanitizer abort) counts one more failure; a program
that prints no TAP counts once, by its exit status. Prints why each skipped
program or case was skipped, then one line "N passed, N failed" (", N skipped"
when some were), and exits 1 on failures.
"""
import json
import re
import sys

TAP_LINE = re.compile(r"^(not ok|ok)\b(.*)$")
SKIP_ALL = re.compile(r"^1\.\.0\s*#\s*SKIP\s*(.*)$", re.I)
BAD_RESULTS = {"FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"}


def count_test(entry, skips):
    """(passed, failed, skipped) of one test program; why each skip into skips."""
    passed = failed = skipped = 0
    for line in (entry.get("stdout") or "").splitlines():
        whole = SKIP_ALL.match(line)
        if whole:
            skips.append(f"{entry.get('name')}: {whole.group(1)}")
        m = TAP_LINE.match(line)
        if not m:
            continue
        if "# SKIP" in m.group(2).upper():
            skips.append(f"{entry.get('name')}: {m.group(2).strip(' -')}")
            skipped += 1
        elif m.group(1) == "ok":
            passed += 1
        else:
            failed += 1
    result = entry.get("result", "ERROR")
    if passed + failed + skipped == 0:
        if result == "SKIP":
            return 0, 0, 1
        return (0, 1, 0) if result in BAD_RESULTS else (1, 0, 0)
    if result in BAD_RESULTS and failed == 0:
        failed = 1
    return passed, failed, skipped


def main(dirs):
    total = [0, 0, 0]
    skips = []
    for d in dirs:
        path = d if d.endswith((".json", ".tap")) else f"{d}/meson-logs/testlog.json"
        try:
            with open(path) as f:
                if path.endswith(".tap"):
                    entries = [{"name": path, "stdout": f.read(), "result": "OK"}]
                else:
                    entries = [json.loads(line) for line in f if line.strip()]
        except OSError as e:
            print(f"count-results: {d}: {e.strerror}", file=sys.stderr)
            total[1] += 1
            continue
        for entry in entries:
            p, f_, s = count_test(entry, skips)
            total[0] += p
            total[1] += f_
            total[2] += s
            if f_:
                print(f"count-results: FAILED {d}: {entry.get('name')}", file=sys.stderr)
    for why in skips:
        print(f"count-results: SKIPPED {why}")
    line = f"{total[0]} passed, {total[1]} failed"
    if total[2]:
        line += f", {total[2]} skipped"
    print(line)
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
