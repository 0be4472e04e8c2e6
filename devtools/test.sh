#!/usr/bin/env bash
# The test command of the README: builds librte_roce three times and runs the suites.
#   build/       gcc, as users build it:                 suites unit, func, container
#                (container: the image built and run with podman; skipped,
#                saying why, without root, podman, runc or mmdebstrap, or where
#                podman cannot run a container; its first image build takes
#                10 to 20 minutes, later ones reuse podman's cache until a
#                source file changes)
#   build-san/   clang with AddressSanitizer, UBSan and
#                libFuzzer:                              suites unit, func, fuzz
#   build-tsan/  clang with ThreadSanitizer:             the tests that use threads
#                (THREADED_TESTS; suppressions and why: devtools/tsan.supp)
# Ends with the line "N passed, N failed" counting every test case run.
# Usage: devtools/test.sh [extra meson test arguments]
set -uo pipefail
cd "$(dirname "$0")/.."

devtools/install-deps.sh || exit 1

# Sanitizer reports need function names (and TSan's suppressions match
# them): without the symbolizer every frame is <null> and nothing matches.
symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
[ -x "$symbolizer" ] || { echo "test.sh: $symbolizer missing (package llvm-14)" >&2; exit 1; }
# UBSan findings are errors, not warnings.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:external_symbolizer_path=$symbolizer
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:external_symbolizer_path=$symbolizer
# A data race fails the test; only the hand-offs TSan cannot see are suppressed.
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:external_symbolizer_path=$symbolizer:suppressions=$PWD/devtools/tsan.supp"
# Test programs with more than one thread (worker lcores, application threads).
# Over memif the EAL interrupt thread runs too (the one-process port test and
# the two-process rc_pingpong with -e).
THREADED_TESTS=(workers lanes event verbs port_mq port_memif rc_pingpong_memif cm)

status=0
setup() {	# setup DIR [meson options...]
	local dir=$1
	shift
	if [ ! -d "$dir" ]; then
		meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 ||
			{ cat "$dir.setup.log"; return 1; }
	fi
	ninja -C "$dir"
}

run() {		# run DIR SUITE...
	local dir=$1 suites=()
	shift
	for s in "$@"; do suites+=(--suite "$s"); done
	meson test -C "$dir" --print-errorlogs "${suites[@]}" || status=1
}

if setup build; then
	run build unit func container
else
	status=1
fi

if CC=clang setup build-san -Db_sanitize=address,undefined -Db_lundef=false \
		-Dfuzz=enabled; then
	run build-san unit func fuzz
else
	status=1
fi

if CC=clang setup build-tsan -Db_sanitize=thread -Db_lundef=false -Dfuzz=disabled; then
	# --suite func: the names alone also pick the bench suite's event and verbs.
	meson test -C build-tsan --print-errorlogs --suite func "${THREADED_TESTS[@]}" || status=1
else
	status=1
fi

python3 devtools/count-results.py build build-san build-tsan || status=1
exit $status
