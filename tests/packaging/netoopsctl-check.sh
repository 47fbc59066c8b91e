#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netoopsctl-check.sh ROOT - the installed netoopsctl (run in ROOT with
# chroot) parses targets.conf as targets.conf(5) says and refuses what it
# must: `netoopsctl check` changes nothing, so it runs on the host's
# kernel.  Prints each case; exits 1 if one failed.
set -euo pipefail

root=$1
dir=$root/tmp/ctl-check
fail=0
rm -rf "$dir"
mkdir -p "$dir"

# expect NAME RC PATTERN: `netoopsctl -c /tmp/ctl-check/NAME.conf check`
# exits RC and its output matches PATTERN (grep -E).
expect()
{
	local name=$1 want=$2 pat=$3 rc=0 out l

	out=$(chroot "$root" netoopsctl -c "/tmp/ctl-check/$name.conf" check 2>&1) || rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$pat" <<< "$out"; then
		echo "ok - netoopsctl/$name"
	else
		echo "not ok - netoopsctl/$name # exit $rc (want $want), output:"
		while IFS= read -r l; do echo "    # $l"; done <<< "$out"
		fail=1
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
EOF
expect good 0 '^target t0 user.site = rack#12$'

printf '[module]\nrepeat = 1\n[targt t0]\n' > "$dir/badsec.conf"
expect badsec 1 'badsec.conf:3: bad section'

printf '[target t0]\ndev_name eth0\n' > "$dir/noeq.conf"
expect noeq 1 'noeq.conf:2: expected KEY = VALUE'

printf '[target t0]\n[target t0]\n' > "$dir/twice.conf"
expect twice 1 'twice.conf:2: target t0 twice'

# keys: root-only files
od -An -tx1 -N 32 /dev/urandom | tr -d ' \n' > "$dir/key"
for c in key-readable key-private key-nothex; do
	printf '[target t0]\nauth_key_id = 7\nauth_key_file = /tmp/ctl-check/key\n' > "$dir/$c.conf"
done
chmod 0644 "$dir/key"
expect key-readable 1 'mode 0600 or 0400'
chmod 0600 "$dir/key"
expect key-private 0 'auth_key_file = /tmp/ctl-check/key'
echo "not hex" > "$dir/key"
expect key-nothex 1 'not hex'

rm -rf "$dir"
exit $fail
