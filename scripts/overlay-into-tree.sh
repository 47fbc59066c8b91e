#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# overlay-into-tree.sh SRC_TREE - drop the project's kernel code into a
# kernel source tree and hook it in, as the Kconfig.netoops and
# Makefile.netoops fragments document:
#
#   drivers/net/Kconfig    "select NETPOLL_TARGETS" and "depends on
#                          !PREEMPT_RT" in config NETCONSOLE, then source
#                          "drivers/net/Kconfig.netoops" after that entry
#   drivers/net/Makefile   include $(srctree)/$(src)/Makefile.netoops
#   fs/pstore/Kconfig      source "fs/pstore/Kconfig.netoops"
#   fs/pstore/Makefile     include $(srctree)/$(src)/Makefile.netoops
#
# Our drivers/net/netconsole.c replaces the tree's: it keeps upstream's
# user ABI on top of netpoll_targets.
#
# Idempotent: a file whose content did not change is not touched (its mtime
# stays, so kbuild rebuilds only what changed), and a hook already present
# is not added again.  Prints the number of files it copied.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 SRC_TREE" >&2; exit 2; }
tree=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)

die()
{
	echo "overlay: error: $*" >&2
	exit 1
}

[ -f "$tree/Makefile" ] && [ -f "$tree/drivers/net/Kconfig" ] &&
	[ -f "$tree/fs/pstore/Kconfig" ] || die "$tree is not a kernel source tree"

# The project's kernel files: sources, headers and the Kbuild fragments
# (build products such as *.mod.c are left out).
files=()
for f in "$root"/include/linux/*.h "$root"/include/uapi/linux/*.h \
	 "$root"/drivers/net/*.[ch] "$root"/drivers/net/K*.netoops \
	 "$root"/drivers/net/Makefile.netoops \
	 "$root"/fs/pstore/netoops*.[ch] "$root"/fs/pstore/K*.netoops \
	 "$root"/fs/pstore/Makefile.netoops; do
	[ -f "$f" ] || continue
	case $f in *.mod.c) continue ;; esac
	files+=("${f#"$root"/}")
done
[ ${#files[@]} -gt 0 ] || die "no kernel files found under $root"

copied=0
for f in "${files[@]}"; do
	if ! cmp -s "$root/$f" "$tree/$f"; then
		install -D -m 0644 "$root/$f" "$tree/$f"
		copied=$((copied + 1))
	fi
done

# add_line FILE LINE: append LINE to FILE unless it is already there.
add_line()
{
	grep -qxF "$2" "$1" || printf '%s\n' "$2" >> "$1"
}

# drivers/net/Kconfig: NETCONSOLE selects the library; the library's entry
# follows NETCONSOLE's.  awk rewrites the file only when a hook is missing.
kc=$tree/drivers/net/Kconfig
if ! grep -qxF '	select NETPOLL_TARGETS' "$kc" ||
   ! grep -qxF 'source "drivers/net/Kconfig.netoops"' "$kc"; then
	grep -qx 'config NETCONSOLE' "$kc" || die "no 'config NETCONSOLE' in $kc"
	awk '
	/^config NETCONSOLE$/ { in_nc = 1; print; next }
	in_nc && /^[ \t]+tristate/ {
		print
		if (!sel) print "\tselect NETPOLL_TARGETS"
		sel = 1
		next
	}
	in_nc && /^(config|menuconfig|if|endif|source|menu|endmenu|comment)/ {
		if (!src) print "source \"drivers/net/Kconfig.netoops\"\n"
		src = 1
		in_nc = 0
	}
	/^\tselect NETPOLL_TARGETS$/ { sel = 1 }
	/^source "drivers\/net\/Kconfig.netoops"$/ { src = 1 }
	{ print }
	' "$kc" > "$kc.tmp"
	mv "$kc.tmp" "$kc"
	grep -qxF '	select NETPOLL_TARGETS' "$kc" &&
		grep -qxF 'source "drivers/net/Kconfig.netoops"' "$kc" ||
		die "could not hook $kc"
fi

# NETCONSOLE builds our netconsole.c, whose crash path is not for
# PREEMPT_RT (and selects NETPOLL_TARGETS, which depends on !PREEMPT_RT).
# No grep -q at the end of a pipe: pipefail would see the writer's SIGPIPE.
nc_no_rt()
{
	grep -A1 -xF '	select NETPOLL_TARGETS' "$kc" |
		grep -xF '	depends on !PREEMPT_RT' >/dev/null
}
if ! nc_no_rt; then
	sed -i 's/^\tselect NETPOLL_TARGETS$/&\n\tdepends on !PREEMPT_RT/' "$kc"
	nc_no_rt || die "could not hook $kc"
fi

add_line "$tree/drivers/net/Makefile" 'include $(srctree)/$(src)/Makefile.netoops'
add_line "$tree/fs/pstore/Kconfig" 'source "fs/pstore/Kconfig.netoops"'
add_line "$tree/fs/pstore/Makefile" 'include $(srctree)/$(src)/Makefile.netoops'

echo "overlay: $copied of ${#files[@]} files copied into $tree"
