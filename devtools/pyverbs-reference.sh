#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A lab procedure, run by hand, not a test: rdma-core's own pyverbs test
# suite (the tests/ directory of rdma-core v44.0, unmodified; it is not in
# this repository and nothing here depends on it) on kernel rxe in the
# interop guest, which gives the reference list, then over librte_roce
# through roce-run on one net_ring device, and the two lists compared
# (doc/verbs-abi.md, "rdma-core's pyverbs tests").
#
#   pyverbs-reference.sh [--rxe | --roce] SUITE_DIR
#
# SUITE_DIR     rdma-core's tests/ directory (the one holding run_tests.py)
# --rxe         only the guest run: as root, with tests/interop/run.sh's
#               prerequisites; it holds the lab's lock while the guest is up
# --roce        only the host run: needs the build and Debian's python3-pyverbs
#               (devtools/install-interop-deps.sh)
#
# Environment: ROCE_INTEROP_BUILD (the meson build directory, default
# ../build), ROCE_VERBS_LIB (roce-run's, default the build's), PYVERBS_OUT (results, default BUILD/pyverbs). Each run leaves
# in PYVERBS_OUT: SIDE.log (unittest's verbose output), SIDE.results (one
# line per test: NAME STATUS [REASON]) and SIDE.versions, SIDE being rxe or
# roce; then compare.txt: the tests whose status differs.
set -uo pipefail

DEVTOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export ROCE_INTEROP_BUILD=${ROCE_INTEROP_BUILD:-$DEVTOOLS/../build}
PV_OUT=${PYVERBS_OUT:-$ROCE_INTEROP_BUILD/pyverbs}
# run.sh's functions (the lab: network, guest image and boot, gx, teardown);
# its own output (console log, image build log) goes under PV_OUT too.
export ROCE_INTEROP_OUT=$PV_OUT/interop
source "$DEVTOOLS/../tests/interop/run.sh"

PV_GUEST_DIR=/tmp/rdma-core-tests # the suite's copy in the guest
PV_GUEST_TIMEOUT_S=5400      # the whole suite under TCG on a loaded machine
PV_HOST_TIMEOUT_S=3600
# One net_ring port: it receives what it sends, so the suite's two ends
# (two QPs of one process, or two processes) share the device.
PV_CONFIG="[port a]
dev = net_ring0
addr = 198.18.0.1/24
mac = 02:00:00:00:00:0a
"
PV_EAL_ARGS="--no-huge -m 256 --no-telemetry --log-level=lib.eal:warning"

usage() { sed -n '3,/^set /s/^# \{0,1\}//p' "$0"; exit 2; }

# unittest's verbose output ($1) as one "NAME STATUS [REASON]" line per
# test, NAME as module.Class.test. unittest writes the test's name, its
# docstring's first line (if any) on the next line, " ... " and the
# outcome; whatever the test prints (our library's log, pyverbs' ignored
# exceptions) can come before the outcome, which then starts a line.
pv_results() {
	python3 - "$1" <<'EOF'
import re, sys
start = re.compile(r"^(test\w*) \(([\w.]+)\)")
outcome = re.compile(r"(?:^|\.\.\. )(ok|FAIL|ERROR|skipped (['\"])(.*)\2|expected failure|unexpected success)$")
ran = re.compile(r"^Ran (\d+) tests? in")
name, n, total = None, 0, None
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    m = start.match(line)
    if m:
        name = m.group(2).removeprefix("tests.")
        if not name.endswith("." + m.group(1)):  # Python < 3.11: (module.Class)
            name += "." + m.group(1)
    s = outcome.search(line)
    if name and s:
        print(f"{name} {s.group(1).split()[0]}" + (f" {s.group(3)}" if s.group(3) else ""))
        name, n = None, n + 1
    m = ran.match(line)
    if m:
        total = int(m.group(1))
if total != n:
    sys.exit(f"pyverbs-reference: {sys.argv[1]}: {n} outcomes read, unittest ran {total}")
EOF
}

# The tests whose status differs between rxe.results and roce.results.
pv_compare() {
	python3 - "$PV_OUT/rxe.results" "$PV_OUT/roce.results" <<'EOF'
import collections, sys
def load(path):
    res = {}
    for line in open(path):
        name, status, *reason = line.rstrip("\n").split(" ", 2)
        res[name] = (status, reason[0] if reason else "")
    return res
rxe, roce = load(sys.argv[1]), load(sys.argv[2])
for side, res in (("rxe", rxe), ("librte_roce", roce)):
    c = collections.Counter(s for s, _ in res.values())
    print(f"{side}: {len(res)} tests, " + ", ".join(f"{n} {s}" for s, n in sorted(c.items())))
groups = collections.defaultdict(list)
for name in sorted(set(rxe) | set(roce)):
    a, b = rxe.get(name, ("absent", "")), roce.get(name, ("absent", ""))
    if a[0] != b[0]:
        groups[(a[0], b[0])].append(f"  {name}: rxe {a[0]} {a[1]} | librte_roce {b[0]} {b[1]}")
for (a, b), lines in sorted(groups.items()):
    print(f"\n{a} on rxe, {b} on librte_roce ({len(lines)}):")
    print("\n".join(lines))
EOF
}

# The suite on the guest's rxe0: the suite copied in over the command
# channel (as run.sh copies verbs_peer), run in the background, its output
# brought back; the guest's kernel log kept for the failures.
pv_rxe() {
	local t0

	[ "$(id -u)" = 0 ] || { log "pyverbs-reference: the guest run needs root"; return 1; }
	mkdir -p "$OUT" "$CACHE"
	lab_take
	net_up || { log "pyverbs-reference: cannot create $BR/$TAP/$VETH"; return 1; }
	guest_up "$SUITE" 1 || return 1
	{ echo "rm -rf $PV_GUEST_DIR; mkdir -p $PV_GUEST_DIR; base64 -d <<'PV_EOF' | tar -xz -C $PV_GUEST_DIR"
	  tar -C "$SUITE_DIR" -cz . | base64; echo PV_EOF; } | gx -t 300 - >/dev/null ||
		{ log "pyverbs-reference: cannot copy the suite into the guest"; return 1; }
	gx "uname -r; dpkg-query -W rdma-core python3-pyverbs python3 ibverbs-providers" > "$PV_OUT/rxe.versions"
	t0=$(now)
	guest_bg pyverbs "cd $PV_GUEST_DIR && python3 run_tests.py -v --dev rxe0"
	guest_bg_wait pyverbs "$PV_GUEST_TIMEOUT_S" || true
	echo "run time $(elapsed "$t0") s" >> "$PV_OUT/rxe.versions"
	cp "$OUT/pyverbs.guest.log" "$PV_OUT/rxe.log"
	gx -t 60 dmesg > "$PV_OUT/rxe.dmesg" 2>&1 || true
	teardown
	trap - EXIT
	exec 9>&-
	pv_results "$PV_OUT/rxe.log" > "$PV_OUT/rxe.results"
	log "rxe: $(tail -n 3 "$PV_OUT/rxe.log" | tr '\n' ' ')($(elapsed "$t0") s)"
}

# The suite on roce0 (net_ring) through roce-run, with the host's python3-pyverbs.
pv_roce() {
	local t0 rc=0 roce_run=$ROCE_INTEROP_BUILD/app/roce_run/roce-run
	local verbs_lib=$ROCE_INTEROP_BUILD/lib/roce_verbs/librte_roce_verbs.so

	[ -x "$roce_run" ] || { log "pyverbs-reference: build first: $roce_run"; return 1; }
	/usr/bin/python3 -c 'import pyverbs' 2>/dev/null ||
		{ log "pyverbs-reference: no python3-pyverbs: devtools/install-interop-deps.sh"; return 1; }
	printf '%s' "$PV_CONFIG" > "$PV_OUT/roce.conf"
	{ uname -r; dpkg-query -W rdma-core python3-pyverbs python3 libdpdk-dev
	  git -C "$DEVTOOLS" describe --always --dirty; } > "$PV_OUT/roce.versions"
	t0=$(now)
	(cd "$SUITE_DIR" && ROCE_VERBS_LIB=${ROCE_VERBS_LIB:-$verbs_lib} timeout "$PV_HOST_TIMEOUT_S" "$roce_run" --config "$PV_OUT/roce.conf" \
		--eal-args "$PV_EAL_ARGS" -- /usr/bin/python3 run_tests.py -v --dev roce0) \
		> "$PV_OUT/roce.log" 2>&1 || rc=$?
	echo "run time $(elapsed "$t0") s, exit $rc" >> "$PV_OUT/roce.versions"
	pv_results "$PV_OUT/roce.log" > "$PV_OUT/roce.results"
	log "librte_roce: $(tail -n 3 "$PV_OUT/roce.log" | tr '\n' ' ')($(elapsed "$t0") s)"
}

sides=(rxe roce)
case "${1:-}" in
--rxe) sides=(rxe); shift ;;
--roce) sides=(roce); shift ;;
-h | --help | '') usage ;;
esac
[ $# = 1 ] && [ -f "$1/run_tests.py" ] || usage
SUITE_DIR=$(cd "$1" && pwd)
mkdir -p "$PV_OUT"
for side in "${sides[@]}"; do
	"pv_$side"
done
if [ -s "$PV_OUT/rxe.results" ] && [ -s "$PV_OUT/roce.results" ]; then
	pv_compare > "$PV_OUT/compare.txt"
	cat "$PV_OUT/compare.txt"
fi
