#!/usr/bin/env bash
# Install a build into a scratch prefix and build a program against it the
# way a user does, through pkg-config. Prints TAP.
# Usage: devtools/check-install.sh BUILDDIR
set -uo pipefail
build=${1:-build}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

echo "1..4"
if meson install -C "$build" --destdir "$stage" >"$stage/install.log" 2>&1; then
	echo "ok 1 - meson install"
else
	echo "not ok 1 - meson install"; sed 's/^/# /' "$stage/install.log"
fi

pc=$(dirname "$(find "$stage" -name librte_roce.pc | head -n 1)")
prefix=$(sed -n 's/^prefix=//p' "$pc/librte_roce.pc")
sed -i "s|^prefix=.*|prefix=$stage$prefix|" "$pc/librte_roce.pc"
private=$(find "$stage" -name 'roce_*.h' | wc -l)
if [ -n "$pc" ] && [ "$private" -eq 0 ]; then
	echo "ok 2 - pkg-config file installed, no private header installed"
else
	echo "not ok 2 - pkg-config file missing or $private private headers installed"
fi

cat >"$stage/app.c" <<'APP'
#include <rte_roce.h>

int
main(void)
{
	union rte_roce_gid gid;

	return rte_roce_gid_parse("198.18.0.1", &gid) == 0 && rte_roce_gid_is_ipv4(&gid) ? 0 : 1;
}
APP
if cc -Wall -Werror "$stage/app.c" -o "$stage/app" \
		$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs librte_roce) 2>"$stage/cc.log" &&
		LD_LIBRARY_PATH="$(dirname "$pc")" "$stage/app"; then
	echo "ok 3 - a program builds and runs with pkg-config --cflags --libs librte_roce"
else
	echo "not ok 3 - a program built with pkg-config"; sed 's/^/# /' "$stage/cc.log"
fi

# The public headers are usable from C++ (extern "C", no C-only constructs).
cp "$stage/app.c" "$stage/app.cpp"
if c++ -Wall -Werror -c "$stage/app.cpp" -o "$stage/app_cpp.o" \
		$(PKG_CONFIG_PATH="$pc" pkg-config --cflags librte_roce) 2>"$stage/cxx.log"; then
	echo "ok 4 - the public headers compile as C++"
else
	echo "not ok 4 - the public headers compile as C++"; sed 's/^/# /' "$stage/cxx.log"
fi
