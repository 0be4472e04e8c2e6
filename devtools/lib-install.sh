# shellcheck shell=bash
# Sourced by devtools/install-*deps.sh, not run: the one "install what is
# missing" step, so both installers stay idempotent in the same way.

# install_missing NAME PACKAGE...: apt-get install the packages that dpkg does
# not list as installed. Returns 0 with nothing to do, 1 (after saying what is
# missing) when that needs root and we are not root; NAME prefixes messages.
install_missing()
{
	local name=$1 p
	local missing=()

	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done

	if [ ${#missing[@]} -eq 0 ]; then
		return 0
	fi

	if [ "$(id -u)" -ne 0 ]; then
		echo "$name: missing packages: ${missing[*]}; run as root" >&2
		return 1
	fi
	echo "$name: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
}
