#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot-patching.sh KERNEL: the guests boot without patching kernel text
# while a second vCPU runs.
#
# Multi-threaded TCG can keep a stale translation of text that one vCPU
# translated while another patched it, and later run the int3 that
# text_poke_bp() had put there ("Oops: int3" at boot, about one boot in
# 130 on Debian's 6.12).  gh_boot therefore boots on one vCPU (maxcpus=1,
# no_ipi_broadcast=1) and the init brings the others online.  This test
# boots with the function tracer on text_poke_bp() and text_poke_queue()
# (every jump label, static call and ftrace patch of live text goes
# through one of them), and checks on the trace:
#   - the boot did patch text before the second vCPU came up (the trace
#     sees patches at all);
#   - after it came up, the only patches are those of a module load
#     (the module's own text, and keys its init enables), none of the
#     boot's own;
#   - the random pool was ready before it came up.  crng_is_ready is a
#     static key: enabled later, when the pool fills, it patched
#     get_random_u64() under a running vCPU ("Oops: int3 in
#     get_random_u64", once in a flake round).  gh_boot gives the guest
#     RDRAND (-cpu qemu64,+rdrand), which the kernel trusts at boot;
#   - sched_clock was not marked stable and the clocksource is not the
#     TSC: a TSC found unstable later (by the clocksource watchdog, or at
#     onlining) disables the __sched_clock_stable key.  gh_boot passes
#     tsc=unstable.
# trace_clock=global from the start: 6.1 switches to it by itself when it
# finds the clock unstable, and drops the buffer then.  Without maxcpus=1
# this test fails on both Debian kernels (DO_ONCE's and
# page_alloc_init_late()'s keys patched with two vCPUs up).
# Recorded as boot/<ver>/text-patching.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"

ver=$(gh_resolve_kernel "$1")
name=boot-patching-$ver
script=$(mktemp "$GH_OUT/.boot-patching.XXXXXX")
cat > "$script" <<'EOF'
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
echo "CPUS $(cat /sys/devices/system/cpu/online)"
dmesg | grep -m1 -E 'smpboot: Booting Node|smp: Brought up .* ([2-9]|[1-9][0-9]+) CPUs' |
	sed 's/^/ONLINE /'
dmesg | grep -m1 'random: crng init done' | sed 's/^/CRNG /'
dmesg | grep -m1 'sched_clock: Marking stable' | sed 's/^/SCHEDCLOCK /'
echo "CLOCKSOURCE $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
grep -v '^#' /sys/kernel/tracing/trace
EOF
mkdir -p "$GH_OUT/runs"
rc=0
gh_boot "$ver" "$name" "$script" 120 \
	"ftrace=function ftrace_filter=text_poke_bp,text_poke_queue trace_options=func_stack_trace trace_clock=global trace_buf_size=1M" ||
	rc=$?
rm -f "$script"

out=$(gh_results "$name" | python3 -c '
import re, sys

lines = sys.stdin.read().splitlines()
online = None
crng = None
events = []
for l in lines:
    m = re.match(r"ONLINE \[\s*([\d.]+)\]", l)
    if m:
        online = float(m.group(1))
        continue
    m = re.match(r"CRNG \[\s*([\d.]+)\]", l)
    if m:
        crng = float(m.group(1))
        continue
    m = re.match(r"\s*(\S+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): <stack trace>", l)
    if m:
        events.append({"t": float(m.group(3)), "task": m.group(1), "st": []})
    elif l.startswith(" => ") and events:
        events[-1]["st"].append(l[4:])
cpus = next((l.split()[1] for l in lines if l.startswith("CPUS ")), "?")
if online is None:
    print("no console line of a second vCPU coming up (CPUs online: %s)" % cpus)
    sys.exit(1)
before = [e for e in events if 0 < e["t"] < online]
after = [e for e in events if e["t"] >= online]
boot = [e for e in after if "do_init_module" not in e["st"] and "load_module" not in e["st"]]
print("second vCPU up at %.3f s (CPUs online: %s); text patches: %d before it, %d after it, %d of them outside a module load"
      % (online, cpus, len(before), len(after), len(boot)))
for e in boot[:5]:
    st = [s for s in e["st"] if not s.startswith(("arch_", "static_key_", "text_poke", "[FTRACE", "__static_call", "static_call"))]
    print("  %.3f %s: %s" % (e["t"], e["task"], " < ".join(st[:5])))
if not before:
    print("no patch before the second vCPU came up: the trace sees none (tracer not on?)")
    sys.exit(1)
if crng is None or crng >= online:
    print("random pool %s: its static key is patched under a running vCPU"
          % ("not ready by the end of the test" if crng is None
             else "ready at %.3f s, after the second vCPU came up" % crng))
    sys.exit(1)
print("random pool ready at %.3f s" % crng)
stable = [l for l in lines if l.startswith("SCHEDCLOCK ")]
cs = next((l.split()[1] for l in lines if l.startswith("CLOCKSOURCE ") and len(l.split()) > 1), "?")
if stable or cs == "tsc" or cs == "?":
    print("sched_clock %s, clocksource %s: a TSC found unstable later disables a static key under a running vCPU"
          % ("marked stable" if stable else "not marked stable", cs))
    sys.exit(1)
print("sched_clock not marked stable, clocksource %s" % cs)
sys.exit(1 if boot else 0)
' 2>&1) || {
	echo "$out" | sed 's/^/    # /'
	why=$(echo "$out" | grep -m1 -e '^random pool .*: its static key' \
		-e '^sched_clock .*: a TSC' -e '^no ' ||
		echo "$out" | head -n 1)
	gh_record "boot/$ver/text-patching" fail "$why (qemu rc=$rc; $GH_OUT/runs/$name)"
	exit 1
}
echo "$out" | sed 's/^/    # /'
gh_record "boot/$ver/text-patching" pass
