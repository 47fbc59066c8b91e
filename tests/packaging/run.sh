#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/packaging/run.sh [KERNEL...] - netoops as installed from its
# packages.  Builds the .debs (lintian: no error or warning), creates a
# fresh Debian 12 root (mmdebstrap, from Debian's archive) with the
# headers of the host's 6.12 and 6.1 kernels, installs the three packages
# there with apt, checks that DKMS built and installed the modules for
# both kernels (netconsole under its own name), that the users, files and
# units are in place, that `systemd-analyze verify` accepts the units and
# that netoopsctl parses targets.conf as documented (netoopsctl-check.sh).
# Then for each KERNEL (default: 6.12 6.1) a guest of the host's kernel
# boots with the root's DKMS-built modules and its netoopsctl, which
# applies a targets.conf written in the guest (a user field, a key in a
# root-only file), sends a test dump (netoopsctl test) and the guest
# crashes (echo c > /proc/sysrq-trigger); the root's netoopsd (its
# binaries, libraries and packaged netoopsd.conf, --require-auth) must
# store the soft dump and the complete panic dump, both signed.  The root
# is removed when every check passed, kept as evidence otherwise.
#
# The root, before our packages, is cached as a tarball in
# /var/cache/netoops/pkg-root-<key>.tar.zst (PKG_CACHE), the key a hash of
# the suite and package list (so new kernels make a new one).  Every stage
# is timed in out/packaging/timings.txt (PKG_OUT).

# The stages are functions run through stage/check/ct_report.
# shellcheck disable=SC2317
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${PKG_OUT:-$top/out/packaging}
CACHE=${PKG_CACHE:-/var/cache/netoops}
SUITE=bookworm
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export GH_OUT=$OUT/guest
# shellcheck source=tests/guest/crash-lib.sh
source "$top/tests/guest/crash-lib.sh"

[ "$(id -u)" = 0 ] || gh_die "packaging: must run as root (chroot, mounts)"
for t in mmdebstrap dpkg-buildpackage lintian dh_dkms zstd; do
	command -v "$t" >/dev/null || gh_die "packaging: $t missing (make deps)"
done

ROOT=$OUT/root
TIMES=$OUT/timings.txt
: > "$TIMES"
fail=0
mounted=()

cleanup()
{
	local m i

	gh_collector_stop
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		m=${mounted[$i]}
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
}
trap cleanup EXIT

# stage NAME CMD...: run CMD, append "NAME SECONDS rc" to timings.txt.
stage()
{
	local name=$1 t0 rc=0

	shift
	t0=$(date +%s.%N)
	"$@" || rc=$?
	printf '%-28s %6.1f s  rc=%d\n' "$name" \
		"$(echo "$(date +%s.%N) - $t0" | bc)" "$rc" | tee -a "$TIMES"
	return "$rc"
}

check()
{
	local name=$1

	shift
	if "$@"; then
		gh_record "packaging/$name" pass
	else
		gh_record "packaging/$name" fail "evidence: $OUT"
		fail=1
		return 1
	fi
}

# --- kernels --------------------------------------------------------------
read -r -a host_kernels <<< "$(gh_kernels)"
[ ${#host_kernels[@]} = 2 ] ||
	gh_die "packaging: need a 6.12 and a 6.1 kernel with headers in /boot (make deps); found: ${host_kernels[*]:-none}"
guest_kernels=()
for k in "${@:-6.12 6.1}"; do
	for k2 in $k; do guest_kernels+=("$(gh_resolve_kernel "$k2")"); done
done

# --- 1. packages ----------------------------------------------------------
build_debs()
{
	local rc=0

	"$top/scripts/build-deb.sh" "$OUT/deb" || rc=$?
	grep '^[EWIPO]:' "$OUT/deb/lintian.txt" 2>/dev/null | sed 's/^/    lintian: /'
	return "$rc"
}
check debs stage deb-build build_debs || exit 1

# --- 2. a fresh root ------------------------------------------------------
ROOT_PKGS="dkms systemd kmod"
for k in "${host_kernels[@]}"; do
	ROOT_PKGS+=" linux-headers-$k"
done
key=$(printf '%s\n' "$SUITE" "$ROOT_PKGS" "initrd=no minbase" | sha1sum | cut -c1-12)
tarball=$CACHE/pkg-root-$key.tar.zst
tmp_tarball=$CACHE/pkg-root-$key.part.tar.zst

make_root_tarball()
{
	mkdir -p "$CACHE"
	# INITRD=No: the 6.12 headers pull in the image; no initramfs for it
	# (mmdebstrap picks the format from the name's extension)
	INITRD=No mmdebstrap --variant=minbase --include="${ROOT_PKGS// /,}" \
		"$SUITE" "$tmp_tarball" > "$OUT/mmdebstrap.log" 2>&1 || {
		tail -n 20 "$OUT/mmdebstrap.log"
		rm -rf "$tmp_tarball"
		return 1
	}
	mv "$tmp_tarball" "$tarball"
}
if [ -f "$tarball" ]; then
	echo "packaging: root from cache $tarball"
else
	check root-create stage root-create make_root_tarball || exit 1
fi

extract_root()
{
	rm -rf "$ROOT"
	mkdir -p "$ROOT"
	tar -C "$ROOT" -I zstd -xpf "$tarball"
}
check root-extract stage root-extract extract_root || exit 1

# chroot needs /proc and /dev; the root reaches the archive with the
# host's resolver configuration
mount -t proc proc "$ROOT/proc" && mounted+=("$ROOT/proc")
mount --bind /dev "$ROOT/dev" && mounted+=("$ROOT/dev")
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"

# --- 3. install with apt --------------------------------------------------
# Each line of apt's output with the host time it came out, so that the
# DKMS build of each kernel can be timed.
apt_install()
{
	local p f debs=()

	mkdir -p "$ROOT/tmp/debs"
	for p in netoops-dkms netoops-client netoopsd; do
		f=$(cd "$OUT/deb" && echo "$p"_*.deb)
		cp "$OUT/deb/$f" "$ROOT/tmp/debs/"
		debs+=("/tmp/debs/$f")
	done
	chroot "$ROOT" apt-get update -qq > "$OUT/apt.log" 2>&1 || return 1
	chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends "${debs[@]}" 2>&1 |
		while IFS= read -r line; do
			printf '%s %s\n' "$(date +%s.%N)" "$line"
		done > "$OUT/apt-install.log"
	return "${PIPESTATUS[0]}"
}
check apt-install stage apt-install apt_install || { tail -n 30 "$OUT/apt-install.log"; exit 1; }

# DKMS time per kernel (approximate): from the first line of apt's output
# that names the kernel to the last one, "Building for" lines aside.
awk '
	{ line = $0; sub(/^[^ ]* /, "", line) }
	line ~ /^Building for / { next }
	{
		while (match(line, /[0-9]+\.[0-9]+\.[0-9]+[-+][^ \/]*-amd64/)) {
			k = substr(line, RSTART, RLENGTH)
			if (!(k in t0)) t0[k] = $1
			t1[k] = $1
			line = substr(line, RSTART + RLENGTH)
		}
	}
	END { for (k in t0) printf "%-28s %6.1f s  (from the apt log)\n", "dkms " k, t1[k] - t0[k] }
' "$OUT/apt-install.log" | sort | tee -a "$TIMES"

# --- 4. what the packages installed --------------------------------------
installed_checks()
{
	local k m ok=0 f

	for k in "${host_kernels[@]}"; do
		for m in netoops netpoll_targets netoops_netconsole; do
			f=$(find "$ROOT/lib/modules/$k/updates/dkms" -name "$m.ko*" 2>/dev/null)
			if [ -z "$f" ]; then
				echo "no $m.ko for $k in the root (updates/dkms)"
				ok=1
			fi
		done
		# the kernel's netconsole.ko is never shadowed
		if ls "$ROOT/lib/modules/$k/updates/dkms/netconsole.ko"* >/dev/null 2>&1; then
			echo "netconsole.ko installed under updates/dkms for $k"
			ok=1
		fi
		chroot "$ROOT" dkms status -m netoops -k "$k" | grep -q ': installed' || {
			echo "dkms status: netoops not installed for $k"
			ok=1
		}
	done
	chroot "$ROOT" dkms status
	chroot "$ROOT" getent passwd netoops || { echo "no user netoops"; ok=1; }
	# the root's user names, not the host's
	[ "$(chroot "$ROOT" stat -c %U:%a /var/lib/netoops 2>/dev/null)" = netoops:750 ] || {
		echo "/var/lib/netoops: $(chroot "$ROOT" stat -c %U:%a /var/lib/netoops 2>&1)"
		ok=1
	}
	for f in /etc/systemd/system/multi-user.target.wants/netoopsd.service \
		 /etc/systemd/system/multi-user.target.wants/netoops-client.service \
		 /etc/netoops/netoopsd.conf /usr/sbin/netoopsctl /usr/sbin/netoopsd \
		 /usr/bin/netoops /usr/libexec/netoops/logbuf-size \
		 /usr/share/man/man8/netoopsd.8.gz /usr/share/man/man1/netoops.1.gz \
		 /usr/share/man/man8/netoopsctl.8.gz \
		 /usr/share/man/man5/netoopsd.conf.5.gz \
		 /usr/share/man/man5/targets.conf.5.gz; do
		# (the enablement links are absolute: they point into the root)
		[ -e "$ROOT$f" ] || [ -L "$ROOT$f" ] || { echo "missing $f"; ok=1; }
	done
	return "$ok"
}
check installed installed_checks || true

verify_units()
{
	local out rc=0

	# --man=no: the root has no man-db; installed_checks found the pages
	out=$(chroot "$ROOT" systemd-analyze verify --man=no netoopsd.service \
		netoops-client.service 2>&1) || rc=$?
	[ -z "$out" ] || printf '    systemd-analyze: %s\n' "$out"
	[ "$rc" = 0 ] && [ -z "$out" ]
}
check units-verify stage units-verify verify_units || true

# netoopsctl: shellcheck-clean POSIX sh, parses and refuses as documented
check client-lint shellcheck -s sh "$top/tools/netoops/client/netoopsctl.sh" || true
check client-parse "$top/tests/packaging/netoopsctl-check.sh" "$ROOT" || true

# --- 5. a guest crash into the packaged collector ------------------------
# The root's netoopsd and CLI, run with the root's libraries (its dynamic
# loader) and netoopsd with the packaged netoopsd.conf; the harness adds
# its own port, store and files after it.
tools=$OUT/pkgtools
mkdir -p "$tools"
ld_so=$(ls "$ROOT"/lib64/ld-linux-x86-64.so.2)
libs=$ROOT/lib/x86_64-linux-gnu:$ROOT/usr/lib/x86_64-linux-gnu
cat > "$tools/netoopsd" <<EOF
#!/bin/sh
exec "$ld_so" --library-path "$libs" "$ROOT/usr/sbin/netoopsd" --config "$ROOT/etc/netoops/netoopsd.conf" "\$@"
EOF
cat > "$tools/netoops" <<EOF
#!/bin/sh
exec "$ld_so" --library-path "$libs" "$ROOT/usr/bin/netoops" "\$@"
EOF
chmod +x "$tools/netoopsd" "$tools/netoops"
export GH_TOOLS=$tools GH_EXT_ROOT=$ROOT
export GH_EXT_FILES="/usr/sbin/netoopsctl /usr/libexec/netoops/logbuf-size"

# The guest: one targets.conf (a user field, a key in a root-only file),
# netoopsctl apply, status, test, crash.
# log_buf_len=1M: record_size must follow the kernel's buffer, not the
# module's default (the 128 KiB of Debian's config).
LOGBUF=1048576
guest_script()
{
	cat <<EOF
. /etc/guest-lib.sh
set -u
mkdir -p /etc/netoops
(umask 077; echo $3 > /etc/netoops/key-7)
cat > /etc/netoops/targets.conf <<'CONF'
[module]
repeat = 1

[target collector0]
dev_name = eth0
remote_ip = 10.0.2.2
remote_port = $1
user.$CT_USER_KEY = $2
auth_key_id = 7
auth_key_file = /etc/netoops/key-7
CONF
netoopsctl apply || { echo "CT-ERROR netoopsctl apply failed"; exit 1; }
netoopsctl status
echo "LOGBUF \$(/usr/libexec/netoops/logbuf-size)"
echo "RECORD_SIZE \$(cat /sys/module/netoops/parameters/record_size)"
netoopsctl test > /tmp/test.out 2>&1 || { cat /tmp/test.out; echo "CT-ERROR netoopsctl test failed"; exit 1; }
sed 's/^/TEST /' /tmp/test.out
echo "ID boot_id=\$(cat /sys/module/netoops/parameters/boot_id)"
echo "ID release=\$(uname -r)"
echo "ID hostname=\$(hostname)"
echo "ID user=$CT_USER_KEY=$2"
echo "CT-TRIGGER"
g_out_drain
echo c > /proc/sysrq-trigger
EOF
}

# guest_run VER: boot, crash, check the stored dumps.
guest_run()
{
	local ver=$1 name=pkg-crash-$1 tag script rc=0 mark soft key

	CT_DIR=$GH_OUT/runs/$name
	tag=$(printf 'p%04x%04x' "$RANDOM" "$RANDOM")
	gh_initramfs "$ver" >/dev/null || { echo "initramfs for $ver failed"; return 1; }
	# the collector takes signed datagrams only, with the guest's key
	key=$(od -An -tx1 -N 32 /dev/urandom | tr -d ' \n')
	mkdir -p "$GH_OUT/runs"
	(umask 077; echo "$key" > "$GH_OUT/runs/$name.key")
	gh_collector_start "$GH_OUT/runs/$name.collector" \
		--key-file "7:$GH_OUT/runs/$name.key" --require-auth ||
		{ echo "packaged netoopsd did not start"; return 1; }
	script=$(mktemp)
	guest_script "$GH_PORT" "$tag" "$key" > "$script"
	GH_ENV_HOSTNAME="pkg-$tag" gh_boot "$ver" "$name" "$script" 300 \
		"log_buf_len=$LOGBUF" || rc=$?
	rm -f "$script"
	CT_EXPECT_DUMPS=2 ct__wait_dumps || true
	gh_collector_stop
	rm -rf "$CT_DIR/collector"
	mv "$GH_OUT/runs/$name.collector" "$CT_DIR/collector"
	# shellcheck disable=SC2034 # gh_cli's store
	GH_DB=$CT_DIR/collector/netoops.db
	[ "$rc" != 124 ] || { ct__timeout_report; return 1; }
	if grep -q '^CT-ERROR\|^@@GH-NETFAIL' "$CT_DIR/results.log"; then
		grep '^CT-ERROR\|^@@GH-NETFAIL\|netoopsctl' "$CT_DIR/results.log"
		return 1
	fi
	grep -q '^CT-TRIGGER' "$CT_DIR/results.log" || { echo "guest never reached the trigger"; return 1; }
	grep '^netoopsctl\|^TEST\|^LOGBUF\|^RECORD_SIZE' "$CT_DIR/results.log"
	grep -q "^RECORD_SIZE $LOGBUF\$" "$CT_DIR/results.log" || {
		echo "record_size is not the log buffer size ($LOGBUF)"
		return 1
	}
	gh_cli --json list > "$CT_DIR/list.json" || { echo "netoops list failed"; return 1; }
	# the soft dump of `netoopsctl test` holds its marker line
	mark=$(sed -n 's/^TEST sent: .*marked "\(.*\)"$/\1/p' "$CT_DIR/results.log")
	soft=$(python3 -c 'import json,sys
print(" ".join(str(d["id"]) for d in json.load(open(sys.argv[1])) if d["reason"] == "soft"))' "$CT_DIR/list.json")
	# (the whole output first: grep -q would cut the CLI's pipe); there
	# may be several soft dumps (repeat, or a retried test): one must
	# hold the marker
	local id found=""
	for id in $soft; do
		[ -n "$mark" ] || break
		gh_cli show "$id" > "$CT_DIR/soft-$id.txt" || continue
		if grep -qF "$mark" "$CT_DIR/soft-$id.txt"; then
			found=$id
			break
		fi
	done
	if [ -z "$found" ]; then
		echo "no soft dump with the test marker '$mark' (soft dumps: ${soft:-none})"
		return 1
	fi
	echo "soft dump $found holds '$mark'"
	# the panic dump: complete, every console line, the identity set
	rm -f "$CT_DIR"/dump-*.json
	python3 -c 'import json,sys
for d in json.load(open(sys.argv[1])):
    if d["reason"] != "soft":
        json.dump(d, open("%s/dump-%d.json" % (sys.argv[2], d["id"]), "w"), indent=1)' \
		"$CT_DIR/list.json" "$CT_DIR"
	python3 "$top/tests/guest/verify_dump.py" --results "$CT_DIR/results.log" \
		--serial "$CT_DIR/serial.log" --mode panic --dumps 1 --reason panic \
		"$CT_DIR"/dump-*.json || { ct__diag; return 1; }
	python3 -c 'import json,sys
bad = [d["id"] for d in json.load(open(sys.argv[1]))
       if not d["authenticated"] or d["auth_key_id"] != 7]
print("dumps not authenticated by key 7: %s" % bad if bad else
      "every dump authenticated by key 7")
sys.exit(1 if bad else 0)' "$CT_DIR/list.json" || return 1
}

for v in "${guest_kernels[@]}"; do
	ct_report "packaging/guest-crash/$v" "$GH_OUT/runs/pkg-crash-$v" \
		stage "guest $v" guest_run "$v" || fail=1
done

# The root is large: kept as evidence only when something failed.
if [ $fail = 0 ]; then
	cleanup
	mounted=()
	stage root-remove rm -rf "$ROOT"
fi
echo "packaging: timings ($TIMES):"
cat "$TIMES"
exit $fail
