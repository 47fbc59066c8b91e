#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netoopsctl-check.sh ROOT - the installed netoopsctl (run in ROOT with
# chroot) parses and validates targets.conf as targets.conf(5) says and
# refuses what it must: `netoopsctl check` changes nothing, so it runs on
# the host's kernel.  Then `netoopsctl apply` runs against a fake configfs
# and module parameter tree (NETOOPSCTL_TEST_ROOT, for tests only): an
# invalid file must leave a previously applied configuration untouched,
# re-applying an unchanged file must write nothing, a key removed from the
# file is reset, a failed key write never prints the key, `remove --all`
# removes every target.  Prints each case; exits 1 if one failed.
#
# NETOOPSCTL=CMD runs CMD instead of `chroot ROOT netoopsctl` (with ROOT /,
# to try a netoopsctl.sh from the tree).
set -euo pipefail

root=$1
dir=$root/tmp/ctl-check
fail=0
rm -rf "$dir"
mkdir -p "$dir"
fake=/tmp/ctl-check/root
if [ -n "${NETOOPSCTL:-}" ]; then
	[ "$root" = / ] || { echo "NETOOPSCTL needs ROOT /" >&2; exit 2; }
	read -r -a ctl <<< "$NETOOPSCTL"
	fakectl=(env "NETOOPSCTL_TEST_ROOT=$fake" "${ctl[@]}")
else
	ctl=(chroot "$root" netoopsctl)
	fakectl=(chroot "$root" env "NETOOPSCTL_TEST_ROOT=$fake" netoopsctl)
fi

# report NAME OK OUT: print the case, with OUT when it failed.
report()
{
	local l

	if [ "$2" = 0 ]; then
		echo "ok - netoopsctl/$1"
	else
		echo "not ok - netoopsctl/$1 # output:"
		while IFS= read -r l; do echo "    # $l"; done <<< "$3"
		fail=1
	fi
}

# expect NAME RC PATTERN: `netoopsctl -c /tmp/ctl-check/NAME.conf check`
# exits RC and its output matches PATTERN (grep -E).
expect()
{
	local name=$1 want=$2 pat=$3 rc=0 out

	out=$("${ctl[@]}" -c "/tmp/ctl-check/$name.conf" check 2>&1) || rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$pat" <<< "$out"; then
		report "$name" 0 ""
	else
		report "$name" 1 "exit $rc (want $want, /$pat/): $out"
	fi
}

cat > "$dir/good.conf" <<'EOF'
# comment
[module]
repeat = 2   # a comment after a blank

[target t0]
dev_name = eth0
remote_ip = 192.0.2.1
remote_port = 6667
user.site = rack#12
enabled = yes
EOF
expect good 0 '^target t0 user.site = rack#12$'

printf '[module]\nrepeat = 1\n[targt t0]\n' > "$dir/badsec.conf"
expect badsec 1 'badsec.conf:3: bad section'

printf '[target t0\nremote_ip = 192.0.2.1\n' > "$dir/unclosed.conf"
expect unclosed 1 'unclosed.conf:1: bad section'

printf '[target t0]\ndev_name eth0\n' > "$dir/noeq.conf"
expect noeq 1 'noeq.conf:2: expected KEY = VALUE'

printf '[target t0]\nremote_ip = 192.0.2.1\n[target t0]\n' > "$dir/twice.conf"
expect twice 1 'twice.conf:3: \[target t0\] twice \(first at line 1\)'

printf '[module]\nrepeat = 1\n[module]\n[target t0]\nremote_ip = 192.0.2.1\n' > "$dir/twice-module.conf"
expect twice-module 1 'twice-module.conf:3: \[module\] twice'

printf '[target t0]\nremote_ip = 192.0.2.1\nremote_ip = 192.0.2.2\n' > "$dir/dupkey.conf"
expect dupkey 1 'dupkey.conf:3: remote_ip set twice in \[target t0\] \(first at line 2\)'

printf '[target t0]\nremote_ip = 192.0.2.1\nremote_prot = 6667\n' > "$dir/unknown.conf"
expect unknown 1 'unknown.conf:3: unknown setting remote_prot in \[target t0\]'

printf '[module]\nrepaet = 2\n[target t0]\nremote_ip = 192.0.2.1\n' > "$dir/unknown-module.conf"
expect unknown-module 1 'unknown-module.conf:2: unknown setting repaet in \[module\]'

printf '[module]\nrepeat = 17\n[target t0]\nremote_ip = 192.0.2.1\n' > "$dir/bad-repeat.conf"
expect bad-repeat 1 'bad-repeat.conf:2: repeat = 17: must be 1 to 16'

printf '[target t0]\nremote_ip = 192.0.2.300\n' > "$dir/bad-ip.conf"
expect bad-ip 1 'bad-ip.conf:2: remote_ip = 192.0.2.300: must be an IPv4 or IPv6 address'

printf '[target t0]\nremote_ip = 2001:db8::1::2\n' > "$dir/bad-ip6.conf"
expect bad-ip6 1 'bad-ip6.conf:2: remote_ip = 2001:db8::1::2: must be'

printf '[target t0]\nremote_ip = 2001:db8::10\nlocal_ip = ::ffff:192.0.2.7\n' > "$dir/ip6.conf"
expect ip6 0 'target t0 remote_ip = 2001:db8::10'

printf '[target t0]\nremote_ip = 2001:db8::10\nlocal_ip = 192.0.2.7\n' > "$dir/mixed-ip.conf"
expect mixed-ip 1 'mixed-ip.conf:1: .*not both IPv4 or both IPv6'

printf '[target t0]\ndev_name = eth0\n' > "$dir/no-remote.conf"
expect no-remote 1 'no-remote.conf:1: \[target t0\]: remote_ip missing'

printf '[target t0]\nremote_ip = 192.0.2.1\nremote_port = 70000\n' > "$dir/bad-port.conf"
expect bad-port 1 'bad-port.conf:3: remote_port = 70000: must be a port, 1 to 65535'

printf '[target t0]\nremote_ip = 192.0.2.1\nlocal_port = 66a\n' > "$dir/bad-port2.conf"
expect bad-port2 1 'bad-port2.conf:3: local_port = 66a: must be a port'

printf '[target t0]\nremote_ip = 192.0.2.1\nremote_mac = 00:11:22:33:44\n' > "$dir/bad-mac.conf"
expect bad-mac 1 'bad-mac.conf:3: remote_mac = 00:11:22:33:44: must be a MAC address'

printf '[target t0]\nremote_ip = 192.0.2.1\nenabled = ture\n' > "$dir/bad-enabled.conf"
expect bad-enabled 1 'bad-enabled.conf:3: enabled = ture: must be 0, 1, yes, no, true, false, on or off'

printf '[target t0]\nremote_ip = 192.0.2.1\nenabled = off\n' > "$dir/enabled-off.conf"
expect enabled-off 0 'target t0 enabled = off'

printf '[target t0]\r\nremote_ip = 192.0.2.1\r\nuser.site = r1\r\n' > "$dir/crlf.conf"
expect crlf 0 'target t0 user.site = r1$'

printf '[module]  # the module\nrepeat = 1\n[target t0]\t# first\nremote_ip = 192.0.2.1\n' > "$dir/header-comment.conf"
expect header-comment 0 'target t0 remote_ip = 192.0.2.1'

printf '\357\273\277[target t0]\nremote_ip = 192.0.2.1\n' > "$dir/bom.conf"
expect bom 1 'bom.conf:1: starts with a byte order mark'

printf '[target t0]\nremote_ip = 192.0.2.1\nauth_key_id = 7\n' > "$dir/keyid-alone.conf"
expect keyid-alone 1 'keyid-alone.conf:1: .*auth_key_id and auth_key_file go together'

# keys: root-only files
od -An -tx1 -N 32 /dev/urandom | tr -d ' \n' > "$dir/key"
for c in key-readable key-private key-nothex key-short key-missing; do
	printf '[target t0]\nremote_ip = 192.0.2.1\nauth_key_id = 7\nauth_key_file = /tmp/ctl-check/key\n' > "$dir/$c.conf"
done
sed -i 's|/key$|/nokey|' "$dir/key-missing.conf"
expect key-missing 1 'key-missing.conf:4: key file /tmp/ctl-check/nokey: not found'
chmod 0644 "$dir/key"
expect key-readable 1 'key-readable.conf:4: key file /tmp/ctl-check/key: .*no access for group or others'
chmod 0600 "$dir/key"
expect key-private 0 'auth_key_file = /tmp/ctl-check/key'
cp -p "$dir/key" "$dir/key.good"
echo "not hex" > "$dir/key"
expect key-nothex 1 'not hex'
echo "00112233" > "$dir/key"
expect key-short 1 'key-short.conf:4: key file /tmp/ctl-check/key: 8 hex digits: must be 16 to 64 bytes'
cp -p "$dir/key.good" "$dir/key"

# --- apply, on a fake configfs -------------------------------------------
mkdir -p "$root$fake/sys/kernel/config/netoops" \
	 "$root$fake/sys/module/netoops/parameters"
p=$root$fake/sys/module/netoops/parameters
echo 131072 > "$p/record_size"
echo 1 > "$p/repeat"
echo N > "$p/oneshot"

# apply NAME: `netoopsctl -c NAME.conf apply` on the fake tree; sets out
# and rc.
apply()
{
	rc=0
	out=$("${fakectl[@]}" -c "/tmp/ctl-check/$1.conf" "${@:2}" 2>&1) || rc=$?
}
# snapshot: every file of the fake tree with its content and mtime (a
# write that stores the same value still changes the mtime)
snapshot()
{
	(cd "$root$fake" && find . -type f -o -type d | sort |
		while read -r f; do
			if [ -f "$f" ]; then
				printf '%s %s %s\n' "$f" "$(stat -c %y "$f")" "$(cat "$f")"
			else
				printf '%s/\n' "$f"
			fi
		done)
}
# attr T A: an attribute of fake target T.
attr()
{
	cat "$root$fake/sys/kernel/config/netoops/$1/$2"
}

cat > "$dir/a.conf" <<'EOF'
[module]
repeat = 2
record_size = 131072
oneshot = yes

[target t0]
dev_name = eth1
remote_ip = 192.0.2.10
local_ip = 192.0.2.99
remote_port = 6000
remote_mac = 00:11:22:33:44:55
auth_key_id = 7
auth_key_file = /tmp/ctl-check/key
user.site = rack-12
user.role = db
EOF
apply a apply
ok=1
[ "$rc" = 0 ] && [ "$(attr t0 enabled)" = 1 ] &&
	[ "$(attr t0 remote_mac)" = 00:11:22:33:44:55 ] &&
	[ "$(attr t0 userfields/site/value)" = rack-12 ] &&
	[ "$(attr t0 auth_key)" = "7:$(cat "$dir/key")" ] &&
	[ "$(cat "$p/repeat")" = 2 ] && ok=0
report apply-good "$ok" "exit $rc: $out"

before=$(snapshot)
apply a apply
ok=1
[ "$rc" = 0 ] && [ "$before" = "$(snapshot)" ] &&
	grep -q 'target t0 enabled .*unchanged' <<< "$out" && ok=0
report apply-idempotent "$ok" "exit $rc: $out
$(diff <(echo "$before") <(snapshot) || true)"

# every invalid file: refused before anything is written
cp "$dir/a.conf" "$dir/b.conf"
echo "remote_prot = 6000" >> "$dir/b.conf"
cp "$dir/a.conf" "$dir/c.conf"
sed -i 's|/key$|/nokey|' "$dir/c.conf"
cp "$dir/a.conf" "$dir/d.conf"
sed -i 's/^remote_ip = .*/remote_ip = 192.0.2.256/' "$dir/d.conf"
cp "$dir/a.conf" "$dir/e.conf"
sed -i 's/^dev_name = .*/dev_name = eth2/; s/^enabled = .*//; $a enabled = maybe' "$dir/e.conf"
for c in b c d e key-readable; do
	if [ $c = key-readable ]; then
		cp "$dir/a.conf" "$dir/f.conf"
		sed -i 's/^user.site = .*/user.site = rack-13/' "$dir/f.conf"
		chmod 0640 "$dir/key"
		c=f
	fi
	apply $c apply
	ok=1
	[ "$rc" = 1 ] && [ "$before" = "$(snapshot)" ] &&
		grep -q "$c.conf: invalid, nothing changed" <<< "$out" && ok=0
	report "apply-invalid-keeps-config/$c" "$ok" "exit $rc: $out
$(diff <(echo "$before") <(snapshot) || true)"
done
chmod 0600 "$dir/key"

# a failed key write: the kernel's error, never the key
od -An -tx1 -N 32 /dev/urandom | tr -d ' \n' > "$dir/key"
mv "$root$fake/sys/kernel/config/netoops/t0/auth_key" "$dir/auth_key.saved"
mkdir "$root$fake/sys/kernel/config/netoops/t0/auth_key"
apply a apply
ok=1
[ "$rc" = 1 ] && grep -q 'cannot write auth_key of target t0: ' <<< "$out" &&
	! grep -qi "$(cat "$dir/key")" <<< "$out" &&
	! grep -q "$(cut -c1-16 "$dir/key")" <<< "$out" && ok=0
report apply-key-error-hides-key "$ok" "exit $rc: $out"
rmdir "$root$fake/sys/kernel/config/netoops/t0/auth_key"
mv "$dir/auth_key.saved" "$root$fake/sys/kernel/config/netoops/t0/auth_key"
apply a apply
ok=1
[ "$rc" = 0 ] && [ "$(attr t0 auth_key)" = "7:$(cat "$dir/key")" ] &&
	[ "$(attr t0 enabled)" = 1 ] && ok=0
report apply-new-key "$ok" "exit $rc: $out"

# keys removed from the file are reset
grep -v '^remote_mac\|^local_ip\|^user.role\|^dev_name\|^auth_key' "$dir/a.conf" > "$dir/g.conf"
apply g apply
ok=1
[ "$rc" = 0 ] && [ "$(attr t0 remote_mac)" = ff:ff:ff:ff:ff:ff ] &&
	[ "$(attr t0 local_ip)" = 0.0.0.0 ] && [ "$(attr t0 dev_name)" = eth0 ] &&
	[ "$(attr t0 auth_key)" = none ] &&
	[ ! -e "$root$fake/sys/kernel/config/netoops/t0/userfields/role" ] &&
	[ "$(attr t0 userfields/site/value)" = rack-12 ] && ok=0
report apply-reset-removed "$ok" "exit $rc: $out"

# a target that is not in the file: a warning; remove --all takes all
mkdir -p "$root$fake/sys/kernel/config/netoops/stray/userfields/x"
echo 0 > "$root$fake/sys/kernel/config/netoops/stray/enabled"
apply g apply
ok=1
[ "$rc" = 0 ] && grep -q 'warning: target stray is in .* but not in' <<< "$out" &&
	[ -d "$root$fake/sys/kernel/config/netoops/stray" ] && ok=0
report apply-warns-stray "$ok" "exit $rc: $out"
apply g remove --all
ok=1
[ "$rc" = 0 ] && [ -z "$(ls -A "$root$fake/sys/kernel/config/netoops")" ] &&
	grep -q 'target stray removed' <<< "$out" &&
	grep -q 'target t0 removed' <<< "$out" && ok=0
report remove-all "$ok" "exit $rc: $out"

# record_size from a log buffer larger than netoops takes: clamped
echo 8388608 > "$root$fake/logbuf-size"
printf '[target t0]\nremote_ip = 192.0.2.1\n' > "$dir/h.conf"
apply h check
ok=1
[ "$rc" = 0 ] && grep -q "warning: log buffer is 8388608 bytes; record_size clamped to netoops' maximum, 4194304" <<< "$out" &&
	grep -q '^modprobe netoops record_size=4194304$' <<< "$out" && ok=0
report record-size-clamped "$ok" "exit $rc: $out"

rm -rf "$dir"
exit $fail
