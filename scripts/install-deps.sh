#!/usr/bin/env bash
# Install everything netoops needs on a fresh Debian 12 machine: toolchain,
# userspace libraries, QEMU and busybox for guests (OVMF for the debug
# kernel's efi_pstore test), Debian packaging tools (make deb,
# tests/packaging), chromium for the dashboard's browser test
# (tools/netoops/tests-web), and the Debian 6.12 and
# 6.1 kernel images with their headers. Idempotent: a second run only checks.
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "install-deps: must run as root (apt-get)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

PKGS=(
	build-essential make gcc clang libclang-rt-14-dev pkg-config git
	libcmocka-dev libsqlite3-dev sqlite3 zlib1g-dev libmicrohttpd-dev
	libjansson-dev libpcap-dev libpq-dev
	postgresql-15
	qemu-system-x86 ovmf busybox-static cpio xz-utils zstd kmod iproute2
	bc flex bison libelf-dev libssl-dev dwarves python3
	sparse
	chromium
	systemd strace
	libisal-dev
	linux-source-6.12 python3-ply python3-git
	debhelper dh-dkms dkms dpkg-dev fakeroot lintian mmdebstrap shellcheck
)

stamp=/var/lib/netoops-deps.stamp
want="$(printf '%s\n' "${PKGS[@]}" | sha1sum | cut -c1-12)"

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# Kernels: newest Debian 6.12 LTS (unsigned image + headers) and Debian 6.1.
k612_installed=$(ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -1 || true)
k61_installed=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -1 || true)

if [ ${#missing[@]} -gt 0 ] || [ -z "$k612_installed" ] || [ -z "$k61_installed" ] ||
   [ "$(cat $stamp 2>/dev/null)" != "$want" ]; then
	apt-get update -qq
	kpkgs=()
	if [ -z "$k612_installed" ]; then
		img=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9.]+\+deb12-amd64-unsigned$' |
		      awk '{print $1}' | sort -V | tail -1)
		[ -n "$img" ] || { echo "install-deps: no linux-image-6.12 in apt" >&2; exit 1; }
		ver=${img#linux-image-}; ver=${ver%-unsigned}
		kpkgs+=("$img" "linux-headers-$ver")
	fi
	[ -n "$k61_installed" ] || kpkgs+=(linux-image-amd64 linux-headers-amd64)
	echo "install-deps: installing ${missing[*]:-} ${kpkgs[*]:-}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" "${kpkgs[@]}" >/dev/null
	echo "$want" > $stamp
fi
echo "install-deps: ok"
