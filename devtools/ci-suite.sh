#!/usr/bin/env bash
# Everything continuous integration runs, from a clone of the repository on a
# Debian 12 machine with only Debian's archive reachable. .ci/run calls it
# inside a fresh Debian 12 minbase root, so that a missing install step fails
# here as it would for a new user:
#  1. the README's Quick start command (install, build, roce_perf --loopback);
#  2. the README's test command (gcc build: unit, func; clang build with
#     ASan + UBSan: unit, func, fuzz; ThreadSanitizer: the threaded tests);
#  3. the benchmark suite, for its numbers (it fails only on wrong results
#     and on instruction-count budgets);
#  4. install into a scratch prefix and build a program through pkg-config;
#  5. the interop suite against kernel rxe in a qemu guest;
#  6. one closing line "N passed, N failed" over everything that ran.
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
# What is not a meson build's own log: outside the build directories, which
# the scripts below set up only where they do not exist yet.
out=ci-logs
mkdir -p "$out"
# The Quick start counts as one test: it must work on a fresh machine.
if devtools/quickstart.sh >"$out/quickstart.log" 2>&1; then
	echo "ok 1 - devtools/quickstart.sh" >"$out/quickstart.tap"
else
	status=1
	{ echo "not ok 1 - devtools/quickstart.sh"; sed 's/^/# /' "$out/quickstart.log"; } \
		>"$out/quickstart.tap"
fi
tail -n 25 "$out/quickstart.log"

devtools/test.sh || status=1

meson test -C build --suite bench --logbase bench --verbose || status=1
# The benchmarks' figures, for the log (meson keeps TAP diagnostics out of it).
grep -h '^# ' build/meson-logs/bench.txt 2>/dev/null || true

devtools/check-install.sh build | tee "$out/install.tap"

# Interoperability with Linux kernel Soft-RoCE in a qemu guest (TCG):
# unmodified rdma-core tools against librte_roce. It must really run in CI;
# ROCE_CI_INTEROP=0 leaves it out of a developer's run while another run
# holds the lab's bridge (the suite's network names are fixed).
interop_log=
if [ "${ROCE_CI_INTEROP:-1}" != 0 ]; then
	devtools/install-interop-deps.sh || status=1
	# CI runs the subset of tests/interop/run.sh CI_SCENARIOS (a few minutes); the
	# whole suite (7 to 13 minutes) is the same command without ROCE_INTEROP_SUBSET.
	ROCE_INTEROP_SUBSET=ci ROCE_INTEROP_REQUIRE=1 meson test -C build --suite interop \
		--logbase interop --print-errorlogs || status=1
	interop_log=build/meson-logs/interop.json
fi

echo "== all suites =="
python3 devtools/count-results.py "$out/quickstart.tap" build build-san build-tsan \
	build/meson-logs/bench.json "$out/install.tap" $interop_log || status=1
exit $status
