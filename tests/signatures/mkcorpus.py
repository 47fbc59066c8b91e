#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the golden crash-signature corpus of tests/signatures/.

Every log is composed here from the pieces an x86_64 Debian 6.1 or 6.12
kernel prints (timestamps, Modules linked in, CPU/Hardware name lines,
registers, Code:, Call Trace with <TASK>/<IRQ>/<NMI> and "? " frames, end
markers).  Addresses, offsets, PIDs and timestamps are pseudo-random but
fixed (seeded by the file name), so re-running gives the same files.

The expected TITLE/KIND/FRAMES/BUCKET headers are written by hand in the
case table below, NOT computed by the library under test.

    tests/signatures/mkcorpus.py          # rewrite *.txt and nocrash/*.txt
"""
import hashlib
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

K61 = "6.1"
K612 = "6.12"
HW = ("Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), "
      "BIOS 1.16.2-debian-1.16.2-1 04/01/2014")


def h(s, mod):
    return int(hashlib.sha1(s.encode()).hexdigest(), 16) % mod


class Log:
    def __init__(self, name, kernel, t0):
        self.rng = random.Random(name)
        self.k = kernel
        self.t = t0
        self.lines = []
        self.prefix = ""

    # one printk line with a timestamp
    def p(self, text):
        self.t += self.rng.uniform(0.000001, 0.000090)
        self.lines.append("%s[%12.6f] %s" % (self.prefix, self.t, text))

    def gap(self, seconds):
        self.t += seconds

    def hexq(self, lo=0, hi=1 << 64):
        return "%016x" % self.rng.randrange(lo, hi)

    def kaddr(self):
        return "ffff8880%08x" % self.rng.randrange(0x1000000, 0x7ffffff0)

    def stackaddr(self):
        return "ffffc900%08x" % self.rng.randrange(0x100000, 0xfffff0, 8)

    # "func+0x1a/0x50 [mod]" with offsets that differ per kernel
    def fr(self, func, mod=None, unreliable=False, off=None):
        size = 0x20 + h(func + self.k, 0x400)
        o = off if off is not None else 1 + h(func + self.k + "o", size - 1)
        s = "%s+0x%x/0x%x" % (func, o, size)
        if mod:
            s += " [%s]" % mod
        return ("? " if unreliable else "") + s

    def cpu_lines(self, cpu, pid, comm, taint="G           O      "):
        if self.k == K61:
            tainted = ("Not tainted" if taint is None else
                       "Tainted: " + taint)
            self.p("CPU: %d PID: %d Comm: %s %s 6.1.0-57-amd64 #1  "
                   "Debian 6.1.192-3" % (cpu, pid, comm, tainted))
        else:
            tainted = ("Not tainted" if taint is None else
                       "Tainted: " + taint)
            self.p("CPU: %d UID: 0 PID: %d Comm: %s %s 6.12.118+deb12-amd64"
                   " #1  Debian 6.12.118-1~deb12u1" % (cpu, pid, comm,
                                                        tainted))
            if taint is not None:
                flags = []
                if "O" in taint:
                    flags.append("[O]=OOT_MODULE")
                if "L" in taint:
                    flags.append("[L]=SOFTLOCKUP")
                if "W" in taint:
                    flags.append("[W]=WARN")
                if "D" in taint:
                    flags.append("[D]=DIE")
                self.p("Tainted: " + ", ".join(flags))
        self.p(HW)

    def code(self):
        b = [self.rng.randrange(256) for _ in range(64)]
        parts = ["%02x" % x for x in b]
        parts[42] = "<%s>" % parts[42]
        self.p("Code: " + " ".join(parts))

    def regs(self, rip, user=False):
        if user:
            self.p("RIP: 0033:0x7f%010x" % self.rng.randrange(1 << 40))
            self.code()
            self.p("RSP: 002b:00007ffd%08x EFLAGS: 00000246 ORIG_RAX: "
                   "0000000000000001" % self.rng.randrange(1 << 32))
        else:
            self.p("RIP: 0010:" + rip)
            self.code()
            self.p("RSP: 0018:%s EFLAGS: 00010246" % self.stackaddr())
        def r():
            x = self.rng.random()
            if x < .3:
                return "0" * 16
            if x < .55:
                return self.kaddr()
            if x < .65:
                return self.stackaddr()
            if x < .75:
                return "ffffffff%08x" % self.rng.randrange(0x81000000,
                                                         0x83000000)
            return "%016x" % self.rng.randrange(1 << self.rng.choice(
                (8, 16, 32)))
        self.p("RAX: %s RBX: %s RCX: %s" % (r(), r(), r()))
        self.p("RDX: %s RSI: %s RDI: %s" % (r(), r(), r()))
        self.p("RBP: %s R08: %s R09: %s" % (r(), r(), r()))
        self.p("R10: %s R11: %s R12: %s" % (r(), r(), r()))
        self.p("R13: %s R14: %s R15: %s" % (r(), r(), r()))
        if user:
            return
        self.p("FS:  00007f%07x000(0000) GS:ffff88803e%d00000(0000) "
               "knlGS:0000000000000000" % (self.rng.randrange(1 << 28),
                                           self.rng.choice((8, 9))))
        self.p("CS:  0010 DS: 0000 ES: 0000 CR0: 0000000080050033")
        self.p("CR2: 00007f%010x CR3: 000000000%04x000 CR4: "
               "00000000000006f0" % (self.rng.randrange(1 << 40),
                                     self.rng.randrange(1 << 16)))

    def trace(self, frames):
        self.p("Call Trace:")
        for f in frames:
            if f.startswith("<") or f.startswith("@"):
                if f.startswith("@RIP"):
                    # interrupted context inside the trace
                    self.regs(f[5:])
                elif f == "@USER":
                    self.regs(None, user=True)
                else:
                    self.p(" " + f)
            else:
                self.p(" " + f)

    def modules(self, mods):
        self.p("Modules linked in: " + " ".join(mods))

    def oops_line(self, what, err="0000"):
        """what: None for a page fault oops, else 'invalid opcode' etc."""
        flags = "PREEMPT SMP NOPTI" if self.k == K612 else "SMP NOPTI"
        if what is None:
            pre = "Oops: Oops: " if self.k == K612 else "Oops: "
            self.p("%s%s [#1] %s" % (pre, err, flags))
        else:
            pre = "Oops: " if self.k == K612 else ""
            self.p("%s%s: %s [#1] %s" % (pre, what, err, flags))

    def pf_head(self, addr, access="read", why="not-present page",
                code="0x0000"):
        self.p("#PF: supervisor %s access in kernel mode" % access)
        self.p("#PF: error_code(%s) - %s" % (code, why))

    def end_trace(self):
        self.p("---[ end trace 0000000000000000 ]---")

    def fatal(self, msg="Fatal exception", rip=None):
        if rip:
            self.regs(rip)
        self.p("Kernel panic - not syncing: " + msg)
        self.p("Kernel Offset: 0x%x from 0xffffffff81000000 (relocation "
               "range: 0xffffffff80000000-0xffffffffbfffffff)" %
               (self.rng.randrange(1, 0x3f) << 24))
        self.p("---[ end Kernel panic - not syncing: %s ]---" % msg)

    def text(self):
        return "\n".join(self.lines) + "\n"


MODS_A = ["crashme(O)", "netoops(O)", "netpoll_targets(O)", "binfmt_misc",
          "nls_ascii", "nls_cp437", "vfat", "fat", "ppdev", "parport_pc",
          "parport", "button", "evdev", "joydev", "serio_raw", "sg",
          "loop", "fuse", "efi_pstore", "configfs", "ip_tables", "x_tables",
          "autofs4", "ext4", "crc16", "mbcache", "jbd2", "crc32c_generic",
          "sd_mod", "t10_pi", "crc64_rocksoft", "ata_generic", "ata_piix",
          "libata", "e1000", "scsi_mod", "psmouse", "scsi_common",
          "i2c_piix4", "floppy"]
MODS_B = ["crashme(O)", "netoops(O)", "netpoll_targets(O)", "9p", "9pnet_virtio",
          "9pnet", "netfs", "virtio_net", "net_failover", "failover",
          "virtio_rng", "rng_core", "configfs", "efi_pstore", "nfnetlink",
          "ip_tables", "x_tables", "autofs4", "virtio_blk", "virtio_pci",
          "virtio_pci_legacy_dev", "virtio_pci_modern_dev", "virtio",
          "virtio_ring", "serio_raw", "floppy"]


def boot_noise(L, n=6):
    msgs = ["e1000: enp0s3 NIC Link is Up 1000 Mbps Full Duplex, Flow "
            "Control: RX",
            "IPv6: ADDRCONF(NETDEV_CHANGE): enp0s3: link becomes ready",
            "netpoll: netoops: local port 6665",
            "netpoll: netoops: local IPv4 address 10.0.2.15",
            "netpoll: netoops: interface 'enp0s3'",
            "netpoll: netoops: remote port 6666",
            "netpoll: netoops: remote IPv4 address 10.0.2.2",
            "netoops: target 'collector' enabled",
            "crashme: loading out-of-tree module taints kernel.",
            "random: crng init done",
            "systemd[1]: Started systemd-journald.service - Journal Service.",
            "EXT4-fs (vda1): re-mounted 6a1c1c36-8b1e-4cd7-8a43-1c0a9f5e9d21 r/w. Quota mode: none."]
    for m in msgs[:n]:
        L.p(m)
        L.gap(L.rng.uniform(0.01, 0.4))


def std_tail_write(L, m=None):
    """debugfs write from user space, shared by many crashme cases"""
    f = L.fr
    t = [f("full_proxy_write"), f("vfs_write"),
         f("__do_sys_newfstatat", unreliable=True), f("ksys_write"),
         f("do_syscall_64")]
    if L.k == K612:
        t.insert(4, f("x64_sys_call"))
        t.insert(4, f("__x64_sys_write"))
    t += [f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"]
    return t


def page_fault_frames(L, func, mod, irq=False):
    f = L.fr
    t = [f("__die", unreliable=True), f("page_fault_oops", unreliable=True)]
    if L.k == K612:
        t.append(f("search_module_extables", unreliable=True))
    t += [f("exc_page_fault", unreliable=True),
          f("asm_exc_page_fault", unreliable=True)]
    if func:
        t.append(f(func, mod, unreliable=True))
    return t


# ---------------------------------------------------------------- cases --

def null_deref_debugfs(L, noise=False, second=False):
    f = L.fr
    if noise:
        boot_noise(L, 12)
        L.gap(3.2)
        L.p("crashme: arming null pointer write via debugfs")
    L.p("BUG: kernel NULL pointer dereference, address: 0000000000000008")
    L.pf_head(None, "write", code="0x0002")
    L.p("PGD 0 P4D 0 ")
    L.oops_line(None, "0002")
    pid = L.rng.randrange(300, 3000)
    L.cpu_lines(L.rng.randrange(2), pid, "sh" if L.k == K61 else "bash")
    rip = f("crashme_write", "crashme")
    L.regs(rip)
    t = ["<TASK>"] + page_fault_frames(L, "crashme_write", "crashme")
    t += std_tail_write(L)
    L.trace(t)
    L.modules(MODS_A if L.k == K61 else MODS_B)
    L.p("CR2: 0000000000000008")
    L.end_trace()
    L.regs(rip)
    if L.k == K612:
        L.p("note: bash[%d] exited with irqs disabled" % pid)
    if second:
        # a later, unrelated report in the same dump: only the first counts
        L.gap(0.8)
        L.p("BUG: unable to handle page fault for address: ffffc90000a45000")
        L.pf_head(None)
        L.oops_line(None, "0000")
    L.fatal("Fatal exception")


def null_deref_timer(L):
    f = L.fr
    L.p("crashme: timer armed, expires in 100 jiffies")
    L.gap(0.4)
    L.p("BUG: kernel NULL pointer dereference, address: 0000000000000010")
    L.pf_head(None)
    L.p("PGD 0 P4D 0 ")
    L.oops_line(None)
    cpu = L.rng.randrange(2)
    L.cpu_lines(cpu, 0, "swapper/%d" % cpu)
    rip = f("crashme_timer_fn", "crashme")
    L.regs(rip)
    t = ["<IRQ>"] + page_fault_frames(L, "crashme_timer_fn", "crashme")
    if L.k == K612:
        t += [f("__pfx_crashme_timer_fn", "crashme", unreliable=True),
              f("call_timer_fn"), f("__run_timers"), f("run_timer_base"),
              f("run_timer_softirq"), f("handle_softirqs"),
              f("__irq_exit_rcu"), f("sysvec_apic_timer_interrupt"),
              "</IRQ>", "<TASK>", f("asm_sysvec_apic_timer_interrupt"),
              "@RIP " + f("default_idle"),
              f("default_idle_call"), f("do_idle"),
              f("cpu_startup_entry"), f("start_secondary"),
              f("common_startup_64"), "</TASK>"]
    else:
        t += [f("crashme_timer_fn", "crashme", unreliable=True),
              f("call_timer_fn"), f("__run_timers"),
              f("run_timer_softirq"), f("__do_softirq"),
              f("__irq_exit_rcu"), f("sysvec_apic_timer_interrupt"),
              "</IRQ>", "<TASK>", f("asm_sysvec_apic_timer_interrupt"),
              "@RIP " + f("native_safe_halt"),
              f("default_idle"), f("default_idle_call"), f("do_idle"),
              f("cpu_startup_entry"), f("start_secondary"),
              f("secondary_startup_64_no_verify"), "</TASK>"]
    L.trace(t)
    L.modules(MODS_A if L.k == K61 else MODS_B)
    L.p("CR2: 0000000000000010")
    L.end_trace()
    L.fatal("Fatal exception in interrupt", rip)


def null_fnptr(L):
    f = L.fr
    L.p("BUG: kernel NULL pointer dereference, address: 0000000000000000")
    L.pf_head(None, "instruction fetch", code="0x0010")
    L.p("PGD 0 P4D 0 ")
    L.oops_line(None, "0010")
    L.cpu_lines(1, 733, "crashctl")
    L.p("RIP: 0010:0x0")
    L.p("Code: Unable to access opcode bytes at 0xffffffffffffffd6.")
    L.p("RSP: 0018:%s EFLAGS: 00010246" % L.stackaddr())
    L.p("RAX: 0000000000000000 RBX: %s RCX: 0000000000000000" % L.kaddr())
    L.p("RDX: 0000000000000000 RSI: 0000000000000003 RDI: %s" % L.kaddr())
    L.p("RBP: %s R08: 0000000000000000 R09: 0000000000000000" % L.stackaddr())
    L.p("R10: 0000000000000000 R11: 0000000000000000 R12: 0000000000000003")
    L.p("R13: 0000000000000000 R14: %s R15: 0000000000000000" % L.kaddr())
    L.p("FS:  00007f2c3d1e4740(0000) GS:ffff88803ed00000(0000) knlGS:0000000000000000")
    L.p("CS:  0010 DS: 0000 ES: 0000 CR0: 0000000080050033")
    L.p("CR2: ffffffffffffffd6 CR3: 0000000004c2e000 CR4: 00000000000006f0")
    t = ["<TASK>"] + page_fault_frames(L, None, None)
    t += [f("notifier_call_chain"), f("blocking_notifier_call_chain"),
          f("crashme_ioctl", "crashme"), f("__x64_sys_ioctl"),
          f("do_syscall_64"), f("entry_SYSCALL_64_after_hwframe"),
          "@USER", "</TASK>"]
    L.trace(t)
    L.modules(MODS_A)
    L.p("CR2: 0000000000000000")
    L.end_trace()
    L.fatal("Fatal exception")


def gpf_list_poison(L):
    f = L.fr
    L.p("general protection fault, probably for non-canonical address "
        "0xdead000000000122: 0000 [#1] %sSMP NOPTI" %
        ("PREEMPT " if L.k == K612 else "")
        if L.k == K61 else
        "Oops: general protection fault, probably for non-canonical "
        "address 0xdead000000000122: 0000 [#1] PREEMPT SMP NOPTI")
    L.cpu_lines(L.rng.randrange(2), L.rng.randrange(100, 900),
                "kworker/%d:2" % L.rng.randrange(2))
    if L.k == K612:
        L.p("Workqueue: events crashme_reaper_work [crashme]")
    else:
        L.p("Workqueue: events crashme_reaper_work [crashme]")
    rip = f("crashme_reap_one", "crashme")
    L.regs(rip)
    t = ["<TASK>", f("die_addr", unreliable=True),
         f("exc_general_protection", unreliable=True),
         f("asm_exc_general_protection", unreliable=True),
         f("crashme_reap_one", "crashme", unreliable=True),
         f("crashme_reaper_work", "crashme"), f("process_one_work"),
         f("worker_thread"), f("__pfx_worker_thread", unreliable=True),
         f("kthread"), f("__pfx_kthread", unreliable=True),
         f("ret_from_fork")]
    if L.k == K612:
        t += [f("__pfx_kthread", unreliable=True), f("ret_from_fork_asm")]
    t += ["</TASK>"]
    L.trace(t)
    L.modules(MODS_A if L.k == K61 else MODS_B)
    L.end_trace()
    L.fatal("Fatal exception", rip)


def gpf_plain(L):
    f = L.fr
    L.p("general protection fault: 0000 [#1] SMP NOPTI")
    L.cpu_lines(0, 1211, "crashctl")
    rip = f("crashme_load_desc", "crashme")
    L.regs(rip)
    t = ["<TASK>", f("die", unreliable=True),
         f("do_trap", unreliable=True),
         f("exc_general_protection", unreliable=True),
         f("asm_exc_general_protection", unreliable=True),
         f("crashme_load_desc", "crashme", unreliable=True),
         f("crashme_apply_desc", "crashme"), f("crashme_ioctl", "crashme"),
         f("__x64_sys_ioctl"), f("do_syscall_64"),
         f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"]
    L.trace(t)
    L.modules(MODS_A)
    L.end_trace()
    L.fatal("Fatal exception", rip)


def bug_on(L):
    f = L.fr
    line = 211 if L.k == K61 else 224
    L.p("------------[ cut here ]------------")
    L.p("kernel BUG at drivers/misc/crashme/crashme.c:%d!" % line)
    L.oops_line("invalid opcode")
    L.cpu_lines(L.rng.randrange(2), L.rng.randrange(400, 4000),
                "crashctl" if L.k == K61 else "python3")
    rip = f("crashme_check_refcount", "crashme")
    L.regs(rip)
    t = ["<TASK>", f("die", unreliable=True),
         f("do_trap", unreliable=True),
         f("crashme_check_refcount", "crashme", unreliable=True),
         f("do_error_trap", unreliable=True),
         f("crashme_check_refcount", "crashme", unreliable=True),
         f("exc_invalid_op", unreliable=True),
         f("crashme_check_refcount", "crashme", unreliable=True),
         f("asm_exc_invalid_op", unreliable=True),
         f("crashme_check_refcount", "crashme", unreliable=True),
         f("crashme_release", "crashme"), f("__fput"),
         f("task_work_run")]
    if L.k == K612:
        t += [f("syscall_exit_to_user_mode"), f("do_syscall_64")]
    else:
        t += [f("exit_to_user_mode_prepare"),
              f("syscall_exit_to_user_mode"), f("do_syscall_64")]
    t += [f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"]
    L.trace(t)
    L.modules(MODS_A if L.k == K61 else MODS_B)
    L.end_trace()
    L.fatal("Fatal exception", rip)


def warn_frames(L):
    f = L.fr
    t = ["<TASK>", f("__warn", unreliable=True),
         f("crashme_warn_state", "crashme", unreliable=True),
         f("report_bug", unreliable=True), f("handle_bug", unreliable=True),
         f("exc_invalid_op", unreliable=True),
         f("asm_exc_invalid_op", unreliable=True),
         f("crashme_warn_state", "crashme", unreliable=True),
         f("crashme_state_work", "crashme"),
         f("process_one_work"), f("worker_thread"),
         f("__pfx_worker_thread", unreliable=True), f("kthread"),
         f("__pfx_kthread", unreliable=True), f("ret_from_fork")]
    if L.k == K612:
        t += [f("__pfx_kthread", unreliable=True), f("ret_from_fork_asm")]
    return t + ["</TASK>"]


def warn_state(L, panic_on_warn=False, then_oops=False):
    f = L.fr
    line = 150 if L.k == K61 else 158
    cpu = L.rng.randrange(2)
    pid = L.rng.randrange(20, 200)
    comm = "kworker/%d:%d" % (cpu, L.rng.randrange(1, 4))
    if then_oops:
        boot_noise(L, 9)
    L.p("------------[ cut here ]------------")
    L.p("crashme: state 4 unexpected in work item")
    L.p("WARNING: CPU: %d PID: %d at drivers/misc/crashme/crashme.c:%d "
        "%s" % (cpu, pid, line, f("crashme_warn_state", "crashme")))
    L.modules(MODS_A if L.k == K61 else MODS_B)
    L.cpu_lines(cpu, pid, comm)
    L.p("Workqueue: events crashme_state_work [crashme]")
    rip = f("crashme_warn_state", "crashme")
    L.regs(rip)
    L.trace(warn_frames(L))
    if panic_on_warn:
        msg = "kernel: panic_on_warn set ..."
        L.p("Kernel panic - not syncing: " + msg)
        L.cpu_lines(cpu, pid, comm)
        L.p("Workqueue: events crashme_state_work [crashme]")
        t = ["<TASK>", f("dump_stack_lvl"), f("panic"),
             f("check_panic_on_warn"), f("__warn"),
             f("crashme_warn_state", "crashme", unreliable=True),
             f("report_bug"), f("handle_bug"), f("exc_invalid_op"),
             f("asm_exc_invalid_op"), "@RIP " + rip] + warn_frames(L)[7:]
        L.trace(t)
        L.p("Kernel Offset: 0x1e000000 from 0xffffffff81000000 (relocation "
            "range: 0xffffffff80000000-0xffffffffbfffffff)")
        L.p("---[ end Kernel panic - not syncing: %s ]---" % msg)
        return
    L.end_trace()
    if then_oops:
        L.gap(5.5)
        L.p("BUG: kernel NULL pointer dereference, address: 0000000000000040")
        L.pf_head(None)
        L.p("PGD 0 P4D 0 ")
        L.oops_line(None)
        L.cpu_lines(cpu, pid, comm, "G        W  O      ")
        rip2 = f("crashme_state_next", "crashme")
        L.regs(rip2)
        t = ["<TASK>"] + page_fault_frames(L, "crashme_state_next",
                                           "crashme")
        t += [f("crashme_state_work", "crashme"), f("process_one_work"),
              f("worker_thread"), f("kthread"), f("ret_from_fork"),
              "</TASK>"]
        L.trace(t)
        L.end_trace()
        L.fatal("Fatal exception", rip2)


def soft_lockup(L, panic=False):
    f = L.fr
    cpu = L.rng.randrange(2)
    pid = L.rng.randrange(500, 900)
    L.p("crashme: spinning with preemption disabled")
    L.gap(26.1)
    L.p("watchdog: BUG: soft lockup - CPU#%d stuck for %ds! [crashme_spin:%d]"
        % (cpu, 22 + L.rng.randrange(8), pid))
    L.modules(MODS_A if L.k == K61 else MODS_B)
    L.cpu_lines(cpu, pid, "crashme_spin",
                "G           O L    " if L.k == K612 else "G           O L    ")
    rip = f("crashme_spin_loop", "crashme")
    L.regs(rip)
    t = ["<IRQ>", f("watchdog_timer_fn", unreliable=True),
         f("__pfx_watchdog_timer_fn", unreliable=True),
         f("__hrtimer_run_queues", unreliable=True),
         f("hrtimer_interrupt", unreliable=True),
         f("__sysvec_apic_timer_interrupt", unreliable=True),
         f("sysvec_apic_timer_interrupt", unreliable=True), "</IRQ>",
         "<TASK>", f("asm_sysvec_apic_timer_interrupt", unreliable=True),
         f("crashme_spin_loop", "crashme", unreliable=True),
         f("crashme_spin_thread", "crashme"), f("kthread"),
         f("__pfx_kthread", unreliable=True), f("ret_from_fork")]
    if L.k == K612:
        t += [f("ret_from_fork_asm")]
    t += ["</TASK>"]
    L.trace(t)
    if panic:
        L.p("Kernel panic - not syncing: softlockup: hung tasks")
        L.cpu_lines(cpu, pid, "crashme_spin", "G           O L    ")
        t = ["<IRQ>", f("dump_stack_lvl"), f("panic"),
             f("watchdog_timer_fn"), f("__hrtimer_run_queues"),
             f("hrtimer_interrupt"), f("__sysvec_apic_timer_interrupt"),
             f("sysvec_apic_timer_interrupt"), "</IRQ>", "<TASK>",
             f("asm_sysvec_apic_timer_interrupt"), "@RIP " + rip,
             f("crashme_spin_thread", "crashme"), f("kthread"),
             f("ret_from_fork"), f("ret_from_fork_asm"), "</TASK>"]
        L.trace(t)
        L.p("Kernel Offset: 0x3a000000 from 0xffffffff81000000 (relocation "
            "range: 0xffffffff80000000-0xffffffffbfffffff)")
        L.p("---[ end Kernel panic - not syncing: softlockup: hung tasks ]---")


def hung_task(L, panic=False):
    f = L.fr
    pid = L.rng.randrange(700, 2000)
    comm = "crashctl" if L.k == K61 else "cat"
    L.gap(242.0)
    L.p("INFO: task %s:%d blocked for more than %d seconds." %
        (comm, pid, 120 if L.k == K61 else 241))
    L.p("      Tainted: G           O       %s" %
        ("6.1.0-57-amd64 #1 Debian 6.1.192-3" if L.k == K61 else
         "6.12.118+deb12-amd64 #1 Debian 6.12.118-1~deb12u1"))
    L.p('"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this '
        'message.')
    if L.k == K61:
        L.p("task:%-15s state:D stack:0     pid:%-5d ppid:%-5d flags:0x00004002"
            % (comm, pid, pid - 3))
    else:
        L.p("task:%-15s state:D stack:0     pid:%-5d tgid:%-5d ppid:%-5d "
            "flags:0x00004002" % (comm, pid, pid, pid - 3))
    t = ["<TASK>", f("__schedule"), f("schedule"),
         f("schedule_preempt_disabled"), f("__mutex_lock.constprop.0"),
         f("crashme_lock_both", "crashme"), f("crashme_ioctl", "crashme"),
         f("__x64_sys_ioctl"), f("do_syscall_64")]
    if L.k == K612:
        t.insert(-1, f("x64_sys_call"))
    t += [f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"]
    L.trace(t)
    if panic:
        L.p("Kernel panic - not syncing: hung_task: blocked tasks")
        L.cpu_lines(1, 41, "khungtaskd")
        t = ["<TASK>", f("dump_stack_lvl"), f("panic"), f("watchdog"),
             f("__pfx_watchdog", unreliable=True), f("kthread"),
             f("__pfx_kthread", unreliable=True), f("ret_from_fork"),
             f("ret_from_fork_asm"), "</TASK>"]
        L.trace(t)
        L.p("Kernel Offset: 0x10000000 from 0xffffffff81000000 (relocation "
            "range: 0xffffffff80000000-0xffffffffbfffffff)")
        L.p("---[ end Kernel panic - not syncing: hung_task: blocked tasks ]---")


def sysrq(L, pstore=False):
    f = L.fr
    if pstore:
        L.lines.append("Panic#1 Part1")
        L.prefix = "<0>"
    boot_noise(L, 8)
    L.p("sysrq: Trigger a crash")
    L.p("Kernel panic - not syncing: sysrq triggered crash")
    L.cpu_lines(L.rng.randrange(2), L.rng.randrange(200, 600), "sh",
                "G           O      ")
    t = ["<TASK>", f("dump_stack_lvl"), f("panic")]
    if L.k == K61:
        t += [f("_printk", unreliable=True), f("sysrq_handle_crash"),
              f("__handle_sysrq.cold")]
    else:
        t += [f("sysrq_handle_crash"), f("__handle_sysrq")]
    t += [f("write_sysrq_trigger"), f("proc_reg_write"), f("vfs_write"),
          f("ksys_write"), f("do_syscall_64"),
          f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"]
    L.trace(t)
    L.p("Kernel Offset: 0x2c000000 from 0xffffffff81000000 (relocation "
        "range: 0xffffffff80000000-0xffffffffbfffffff)")
    L.p("---[ end Kernel panic - not syncing: sysrq triggered crash ]---")


def oom_report(L, comm, pid):
    f = L.fr
    L.p("%s invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|"
        "__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=0" % comm)
    L.cpu_lines(1, pid, comm, None)
    L.trace(["<TASK>", f("dump_stack_lvl"), f("dump_header"),
             f("out_of_memory"), f("__alloc_pages_slowpath.constprop.0"),
             f("__alloc_pages"), f("__folio_alloc"), f("vma_alloc_folio"),
             f("__handle_mm_fault"), f("handle_mm_fault"),
             f("do_user_addr_fault"), f("exc_page_fault"),
             f("asm_exc_page_fault"), "@USER", "</TASK>"])
    L.p("Mem-Info:")
    L.p("active_anon:2 inactive_anon:58840 isolated_anon:0")
    L.p(" active_file:12 inactive_file:9 isolated_file:0")
    L.p("Node 0 DMA32 free:1604kB boost:0kB min:1628kB low:2032kB "
        "high:2436kB")
    L.p("Tasks state (memory values in pages):")
    L.p("[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents "
        "oom_score_adj name")
    L.p("[    %d]     0   %d    61234    58801   516096        0"
        "             0 %s" % (pid, pid, comm))


def oom_deadlocked(L):
    f = L.fr
    comm, pid = "memhog", 388
    oom_report(L, comm, pid)
    L.p("Out of memory and no killable processes...")
    L.p("Kernel panic - not syncing: System is deadlocked on memory")
    L.cpu_lines(1, pid, comm, None)
    L.trace(["<TASK>", f("dump_stack_lvl"), f("panic"),
             f("out_of_memory"), f("__alloc_pages_slowpath"),
             f("__alloc_pages_noprof"), f("alloc_pages_mpol_noprof"),
             f("vma_alloc_folio_noprof"), f("do_anonymous_page"),
             f("__handle_mm_fault"), f("handle_mm_fault"),
             f("do_user_addr_fault"), f("exc_page_fault"),
             f("asm_exc_page_fault"), "@USER", "</TASK>"])
    L.p("Kernel Offset: 0x16000000 from 0xffffffff81000000 (relocation "
        "range: 0xffffffff80000000-0xffffffffbfffffff)")
    L.p("---[ end Kernel panic - not syncing: System is deadlocked on "
        "memory ]---")


def oom_panic_on_oom(L):
    f = L.fr
    comm, pid = "stress-ng-vm", 1421
    oom_report(L, comm, pid)
    msg = "Out of memory: compulsory panic_on_oom is enabled"
    L.p("Kernel panic - not syncing: " + msg)
    L.cpu_lines(0, pid, comm, None)
    L.trace(["<TASK>", f("dump_stack_lvl"), f("panic"),
             f("out_of_memory.cold"), f("__alloc_pages_slowpath.constprop.0"),
             f("__alloc_pages"), f("__folio_alloc"), f("vma_alloc_folio"),
             f("__handle_mm_fault"), f("handle_mm_fault"),
             f("do_user_addr_fault"), f("exc_page_fault"),
             f("asm_exc_page_fault"), "@USER", "</TASK>"])
    L.p("Kernel Offset: 0x22000000 from 0xffffffff81000000 (relocation "
        "range: 0xffffffff80000000-0xffffffffbfffffff)")
    L.p("---[ end Kernel panic - not syncing: %s ]---" % msg)


def stack_protector(L):
    f = L.fr
    msg = ("stack-protector: Kernel stack is corrupted in: " +
           f("crashme_copy_name", "crashme"))
    L.p("Kernel panic - not syncing: " + msg)
    L.cpu_lines(0, 922, "crashctl")
    L.trace(["<TASK>", f("dump_stack_lvl"), f("panic"),
             f("crashme_copy_name", "crashme", unreliable=True),
             f("__stack_chk_fail"), f("crashme_copy_name", "crashme"),
             f("crashme_set_name", "crashme"), f("crashme_ioctl", "crashme"),
             f("__x64_sys_ioctl"), f("do_syscall_64"),
             f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"])
    L.p("Kernel Offset: 0x0 from 0xffffffff81000000 (relocation range: "
        "0xffffffff80000000-0xffffffffbfffffff)")
    L.p("---[ end Kernel panic - not syncing: %s ]---" % msg)


def list_add(L):
    f = L.fr
    a, b, c = L.kaddr(), L.kaddr(), L.kaddr()
    if L.k == K61:
        L.p("list_add corruption. prev->next should be next (%s), but was "
            "%s. (prev=%s)." % (a, b, c))
    else:
        L.p("list_add corruption. prev->next should be next (%s), but was "
            "%s. (prev=%s)." % (a, b, c))
    L.p("------------[ cut here ]------------")
    L.p("kernel BUG at lib/list_debug.c:%d!" % (30 if L.k == K61 else 32))
    L.oops_line("invalid opcode")
    L.cpu_lines(1, L.rng.randrange(300, 3000), "crashctl")
    v = "__list_add_valid.cold" if L.k == K61 else \
        "__list_add_valid_or_report"
    rip = f(v)
    L.regs(rip)
    L.trace(["<TASK>", f("die", unreliable=True),
             f("do_trap", unreliable=True), f(v, unreliable=True),
             f("do_error_trap", unreliable=True),
             f("exc_invalid_op", unreliable=True),
             f("asm_exc_invalid_op", unreliable=True),
             f(v, unreliable=True),
             f("crashme_add_client", "crashme"),
             f("crashme_open", "crashme"), f("chrdev_open"),
             f("__pfx_chrdev_open", unreliable=True),
             f("do_dentry_open"), f("path_openat"), f("do_filp_open"),
             f("do_sys_openat2"), f("__x64_sys_openat"), f("do_syscall_64"),
             f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"])
    L.modules(MODS_A if L.k == K61 else MODS_B)
    L.end_trace()
    L.fatal("Fatal exception", rip)


def list_del(L):
    f = L.fr
    a = L.kaddr()
    L.p("list_del corruption, %s->next is LIST_POISON1 (dead000000000100)"
        % a)
    L.p("------------[ cut here ]------------")
    L.p("kernel BUG at lib/list_debug.c:56!")
    L.oops_line("invalid opcode")
    L.cpu_lines(0, 1802, "crashctl")
    rip = f("__list_del_entry_valid.cold")
    L.regs(rip)
    L.trace(["<TASK>", f("die", unreliable=True),
             f("do_trap", unreliable=True),
             f("__list_del_entry_valid.cold", unreliable=True),
             f("do_error_trap", unreliable=True),
             f("exc_invalid_op", unreliable=True),
             f("asm_exc_invalid_op", unreliable=True),
             f("__list_del_entry_valid.cold", unreliable=True),
             f("crashme_remove_client", "crashme"),
             f("crashme_release", "crashme"), f("__fput"),
             f("task_work_run"), f("do_exit"), f("do_group_exit"),
             f("__x64_sys_exit_group"), f("do_syscall_64"),
             f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"])
    L.modules(MODS_A)
    L.end_trace()
    L.fatal("Fatal exception", rip)


def page_fault_irq(L):
    f = L.fr
    L.p("BUG: unable to handle page fault for address: ffffc90000bf2010")
    L.pf_head(None)
    L.p("PGD 100000067 P4D 100000067 PUD 1001b0067 PMD 1002f3067 PTE 0")
    L.oops_line(None)
    L.cpu_lines(1, 0, "swapper/1")
    rip = f("crashme_rx_poll", "crashme")
    L.regs(rip)
    L.trace(["<IRQ>"] + page_fault_frames(L, "crashme_rx_poll", "crashme") +
            [f("__napi_poll"), f("net_rx_action"), f("handle_softirqs"),
             f("__irq_exit_rcu"), f("common_interrupt"), "</IRQ>",
             "<TASK>", f("asm_common_interrupt"),
             "@RIP " + f("default_idle"), f("default_idle_call"),
             f("do_idle"), f("cpu_startup_entry"), f("start_secondary"),
             f("common_startup_64"), "</TASK>"])
    L.modules(MODS_B)
    L.p("CR2: ffffc90000bf2010")
    L.end_trace()
    L.fatal("Fatal exception in interrupt", rip)


def page_fault_process(L):
    f = L.fr
    L.p("BUG: unable to handle page fault for address: ffffc900002e5000")
    L.pf_head(None)
    L.p("PGD 100000067 P4D 100000067 PUD 1001b0067 PMD 10262b067 PTE 0")
    L.oops_line(None)
    L.cpu_lines(0, 1544, "crashctl")
    rip = f("crashme_dump_ring", "crashme")
    L.regs(rip)
    L.trace(["<TASK>"] + page_fault_frames(L, "crashme_dump_ring",
                                           "crashme") +
            [f("seq_read_iter"), f("seq_read"), f("vfs_read"),
             f("ksys_read"), f("do_syscall_64"),
             f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"])
    L.modules(MODS_A)
    L.p("CR2: ffffc900002e5000")
    L.end_trace()
    L.fatal("Fatal exception", rip)


def sched_atomic(L):
    f = L.fr
    L.p("BUG: scheduling while atomic: insmod/612/0x00000002")
    L.modules(MODS_A)
    L.p("Preemption disabled at:")
    L.p("[<ffffffffc0a4d0f2>] crashme_sleep_locked+0x12/0x40 [crashme]")
    L.cpu_lines(0, 612, "insmod", "G           O      ")
    L.trace(["<TASK>", f("dump_stack_lvl"), f("__schedule_bug.cold"),
             f("__schedule"), f("schedule"), f("schedule_timeout"),
             f("msleep"), f("crashme_sleep_locked", "crashme"),
             f("crashme_init", "crashme"),
             f("__pfx_crashme_init", "crashme", unreliable=True),
             f("do_one_initcall"), f("do_init_module"),
             f("__do_sys_finit_module"), f("do_syscall_64"),
             f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"])
    L.p("crashme: initialised")


def kasan_uaf(L):
    f = L.fr
    L.p("==================================================================")
    L.p("BUG: KASAN: slab-use-after-free in " +
        f("crashme_client_put", "crashme"))
    L.p("Read of size 4 at addr %s by task crashctl/2210" % L.kaddr())
    L.p("")
    L.cpu_lines(1, 2210, "crashctl", "G    B      O      ")
    L.trace(["<TASK>", f("dump_stack_lvl"),
             f("print_address_description.constprop.0"), f("print_report"),
             f("crashme_client_put", "crashme", unreliable=True),
             f("kasan_report"),
             f("crashme_client_put", "crashme"),
             f("crashme_release", "crashme"), f("__fput"),
             f("task_work_run"), f("syscall_exit_to_user_mode"),
             f("do_syscall_64"), f("entry_SYSCALL_64_after_hwframe"),
             "@USER", "</TASK>"])
    L.p("")
    L.p("Allocated by task 2210:")
    L.p(" kasan_save_stack+0x33/0x60")
    L.p(" kasan_save_track+0x14/0x30")
    L.p(" __kasan_kmalloc+0xaa/0xb0")
    L.p(" " + f("crashme_open", "crashme"))
    L.p(" " + f("chrdev_open"))
    L.p("")
    L.p("Freed by task 2210:")
    L.p(" kasan_save_stack+0x33/0x60")
    L.p(" kasan_save_track+0x14/0x30")
    L.p(" kasan_save_free_info+0x3b/0x60")
    L.p(" __kasan_slab_free+0x54/0x70")
    L.p(" kfree+0x14f/0x4a0")
    L.p(" " + f("crashme_client_drop", "crashme"))
    L.p("")
    L.p("The buggy address belongs to the object at ffff888004a1c600")
    L.p(" which belongs to the cache kmalloc-128 of size 128")
    L.p("==================================================================")
    L.p("Disabling lock debugging due to kernel taint")


def rcu_stall_self(L):
    f = L.fr
    L.gap(21.0)
    L.p("rcu: INFO: rcu_sched self-detected stall on CPU")
    L.p("rcu: \t1-....: (5250 ticks this GP) idle=a5c4/1/0x4000000000000000 "
        "softirq=3012/3012 fqs=2367")
    L.p("\t(t=5251 jiffies g=2973 q=1186 ncpus=2)")
    L.cpu_lines(1, 1288, "crashctl", "G           O L    ")
    rip = f("crashme_busy_loop", "crashme")
    L.regs(rip)
    L.trace(["<IRQ>", f("rcu_dump_cpu_stacks"), f("rcu_sched_clock_irq"),
             f("update_process_times"), f("tick_sched_handle"),
             f("tick_sched_timer"), f("__hrtimer_run_queues"),
             f("hrtimer_interrupt"), f("__sysvec_apic_timer_interrupt"),
             f("sysvec_apic_timer_interrupt"), "</IRQ>", "<TASK>",
             f("asm_sysvec_apic_timer_interrupt"),
             f("crashme_busy_loop", "crashme", unreliable=True),
             f("crashme_write", "crashme"), f("full_proxy_write"),
             f("vfs_write"), f("ksys_write"), f("do_syscall_64"),
             f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"])


def rcu_stall_nmi(L):
    f = L.fr
    L.gap(21.0)
    L.p("rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:")
    L.p("rcu: \t0-...!: (1 GPs behind) idle=b2dc/1/0x4000000000000000 "
        "softirq=2871/2872 fqs=2611")
    L.p("rcu: \t(detected by 1, t=5252 jiffies, g=1849, q=96 ncpus=2)")
    L.p("Sending NMI from CPU 1 to CPUs 0:")
    L.p("NMI backtrace for cpu 0")
    L.cpu_lines(0, 1701, "python3", "G           O      ")
    rip = f("crashme_busy_loop", "crashme")
    L.regs(rip)
    L.trace(["<NMI>", f("nmi_cpu_backtrace", unreliable=True),
             f("nmi_cpu_backtrace_handler", unreliable=True),
             f("nmi_handle", unreliable=True),
             f("default_do_nmi", unreliable=True),
             f("exc_nmi", unreliable=True),
             f("end_repeat_nmi", unreliable=True),
             f("crashme_busy_loop", "crashme", unreliable=True), "</NMI>",
             "<TASK>", f("crashme_write", "crashme"), f("full_proxy_write"),
             f("vfs_write"), f("ksys_write"), f("do_syscall_64"),
             f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"])
    L.p("rcu: rcu_preempt kthread starved for 2612 jiffies! g1849 f0x0 "
        "RCU_GP_WAIT_FQS(5) ->state=0x0 ->cpu=1")


def plain_panic(L):
    f = L.fr
    boot_noise(L, 5)
    msg = "crashme: refusing to continue with corrupt state 3"
    L.p("Kernel panic - not syncing: " + msg)
    L.cpu_lines(1, 2231, "crashctl", "G           O      ")
    L.trace(["<TASK>", f("dump_stack_lvl"), f("panic"),
             f("crashme_verify", "crashme"), f("crashme_write", "crashme"),
             f("full_proxy_write"), f("vfs_write"), f("ksys_write"),
             f("do_syscall_64"), f("entry_SYSCALL_64_after_hwframe"),
             "@USER", "</TASK>"])
    L.p("Kernel Offset: 0x38000000 from 0xffffffff81000000 (relocation "
        "range: 0xffffffff80000000-0xffffffffbfffffff)")
    L.p("---[ end Kernel panic - not syncing: %s ]---" % msg)


def hard_lockup(L):
    f = L.fr
    if L.k == K61:
        L.p("NMI watchdog: Watchdog detected hard LOCKUP on cpu 1")
    else:
        L.p("watchdog: CPU1: Watchdog detected hard LOCKUP on cpu 1")
    L.modules(MODS_A if L.k == K61 else MODS_B)
    L.cpu_lines(1, L.rng.randrange(300, 3000), "crashctl")
    rip = f("native_queued_spin_lock_slowpath")
    L.regs(rip)
    L.trace(["<NMI>", f("watchdog_overflow_callback", unreliable=True)
             if L.k == K61 else f("watchdog_hardlockup_check",
                                  unreliable=True),
             f("__perf_event_overflow", unreliable=True),
             f("handle_pmi_common", unreliable=True),
             f("intel_pmu_handle_irq", unreliable=True),
             f("perf_event_nmi_handler", unreliable=True),
             f("nmi_handle", unreliable=True),
             f("default_do_nmi", unreliable=True),
             f("exc_nmi", unreliable=True),
             f("end_repeat_nmi", unreliable=True),
             f("native_queued_spin_lock_slowpath", unreliable=True),
             "</NMI>", "<TASK>", f("_raw_spin_lock_irqsave"),
             f("crashme_irqoff_section", "crashme"),
             f("crashme_write", "crashme"), f("full_proxy_write"),
             f("vfs_write"), f("ksys_write"), f("do_syscall_64"),
             f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"])
    L.p("Kernel panic - not syncing: Hard LOCKUP")
    L.p("Kernel Offset: 0x8000000 from 0xffffffff81000000 (relocation "
        "range: 0xffffffff80000000-0xffffffffbfffffff)")
    L.p("---[ end Kernel panic - not syncing: Hard LOCKUP ]---")


def stack_overflow(L):
    f = L.fr
    base = "ffffc90000a08000"
    L.p("BUG: stack guard page was hit at ffffc90000a07ff8 (stack is "
        "%s..ffffc90000a0c000)" % base)
    if L.k == K61:
        L.p("kernel stack overflow (double-fault): 0000 [#1] SMP NOPTI")
    else:
        L.p("Oops: stack guard page: 0000 [#1] PREEMPT SMP NOPTI")
    L.cpu_lines(0, L.rng.randrange(300, 3000), "crashctl")
    rip = f("crashme_recurse", "crashme")
    L.regs(rip)
    L.trace(["<#DF>", f("handle_stack_overflow", unreliable=True),
             f("exc_double_fault", unreliable=True),
             f("asm_exc_double_fault", unreliable=True),
             f("crashme_recurse", "crashme", unreliable=True), "</#DF>",
             "<TASK>"] + [f("crashme_recurse", "crashme")] * 6 +
            [f("crashme_depth_write", "crashme"), f("full_proxy_write"),
             f("vfs_write"), f("ksys_write"), "</TASK>"])
    L.modules(MODS_A if L.k == K61 else MODS_B)
    L.end_trace()
    L.fatal("Fatal exception in interrupt", rip)


def ubsan_oob(L):
    f = L.fr
    L.p("------------[ cut here ]------------")
    L.p("UBSAN: array-index-out-of-bounds in "
        "drivers/misc/crashme/crashme.c:98:23")
    L.p("index 8 is out of range for type 'u32 [8]'")
    L.cpu_lines(0, 3121, "crashctl", "G           O      ")
    L.trace(["<TASK>", f("dump_stack_lvl"),
             f("__ubsan_handle_out_of_bounds"),
             f("crashme_set_slot", "crashme"), f("crashme_write", "crashme"),
             f("full_proxy_write"), f("vfs_write"), f("ksys_write"),
             f("do_syscall_64"), f("entry_SYSCALL_64_after_hwframe"),
             "@USER", "</TASK>"])
    L.p("---[ end trace ]---")
    L.gap(0.2)
    L.p("Kernel panic - not syncing: UBSAN: panic_on_warn set ...")


def might_sleep(L):
    f = L.fr
    L.p("BUG: sleeping function called from invalid context at "
        "kernel/locking/mutex.c:580")
    L.p("in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 1432, "
        "name: crashctl")
    L.p("preempt_count: 1, expected: 0")
    L.p("RCU nest depth: 0, expected: 0")
    L.p("1 lock held by crashctl/1432:")
    L.p(" #0: ffffffffc0a51040 (crashme_lock){+.+.}-{2:2}, at: "
        "crashme_flush+0x19/0x80 [crashme]")
    L.cpu_lines(1, 1432, "crashctl", "G           O      ")
    L.trace(["<TASK>", f("dump_stack_lvl"), f("__might_resched"),
             f("__mutex_lock"), f("crashme_flush", "crashme"),
             f("crashme_write", "crashme"), f("full_proxy_write"),
             f("vfs_write"), f("ksys_write"), f("do_syscall_64"),
             f("entry_SYSCALL_64_after_hwframe"), "@USER", "</TASK>"])


# name, kernel, function, kwargs, TITLE, KIND, FRAMES, BUCKET
CASES = [
    ("null-deref-write-6.1", K61, null_deref_debugfs, {},
     "BUG: kernel NULL pointer dereference in crashme_write", "null-deref",
     "crashme_write full_proxy_write vfs_write", "null-deref-write"),
    ("null-deref-write-6.12", K612, null_deref_debugfs, {},
     "BUG: kernel NULL pointer dereference in crashme_write", "null-deref",
     "crashme_write full_proxy_write vfs_write", "null-deref-write"),
    ("null-deref-write-noise-two-reports-6.12", K612, null_deref_debugfs,
     {"noise": True, "second": True},
     "BUG: kernel NULL pointer dereference in crashme_write", "null-deref",
     "crashme_write full_proxy_write vfs_write", "null-deref-write"),
    ("null-deref-timer-softirq-6.1", K61, null_deref_timer, {},
     "BUG: kernel NULL pointer dereference in crashme_timer_fn",
     "null-deref", "crashme_timer_fn", "null-deref-timer"),
    ("null-deref-timer-softirq-6.12", K612, null_deref_timer, {},
     "BUG: kernel NULL pointer dereference in crashme_timer_fn",
     "null-deref", "crashme_timer_fn", "null-deref-timer"),
    ("null-fnptr-call-6.1", K61, null_fnptr, {},
     "BUG: kernel NULL pointer dereference in notifier_call_chain",
     "null-deref",
     "notifier_call_chain blocking_notifier_call_chain crashme_ioctl",
     "null-fnptr-notifier"),
    ("gpf-noncanonical-list-poison-6.1", K61, gpf_list_poison, {},
     "general protection fault in crashme_reap_one", "gpf",
     "crashme_reap_one crashme_reaper_work", "gpf-reaper"),
    ("gpf-noncanonical-list-poison-6.12", K612, gpf_list_poison, {},
     "general protection fault in crashme_reap_one", "gpf",
     "crashme_reap_one crashme_reaper_work", "gpf-reaper"),
    ("gpf-plain-6.1", K61, gpf_plain, {},
     "general protection fault in crashme_load_desc", "gpf",
     "crashme_load_desc crashme_apply_desc crashme_ioctl", "gpf-load-desc"),
    ("bug-on-refcount-6.1", K61, bug_on, {},
     "kernel BUG in crashme_check_refcount", "bug",
     "crashme_check_refcount crashme_release __fput", "bug-refcount"),
    ("bug-on-refcount-6.12", K612, bug_on, {},
     "kernel BUG in crashme_check_refcount", "bug",
     "crashme_check_refcount crashme_release __fput", "bug-refcount"),
    ("warn-state-6.1", K61, warn_state, {},
     "WARNING in crashme_warn_state", "warn",
     "crashme_warn_state crashme_state_work", "warn-state"),
    ("warn-state-panic-on-warn-6.12", K612, warn_state,
     {"panic_on_warn": True},
     "WARNING in crashme_warn_state", "warn",
     "crashme_warn_state crashme_state_work", "warn-state"),
    ("warn-state-then-oops-6.1", K61, warn_state, {"then_oops": True},
     "WARNING in crashme_warn_state", "warn",
     "crashme_warn_state crashme_state_work", "warn-state"),
    ("soft-lockup-6.1", K61, soft_lockup, {},
     "soft lockup in crashme_spin_loop", "soft-lockup",
     "crashme_spin_loop crashme_spin_thread", "soft-lockup-spin"),
    ("soft-lockup-panic-6.12", K612, soft_lockup, {"panic": True},
     "soft lockup in crashme_spin_loop", "soft-lockup",
     "crashme_spin_loop crashme_spin_thread", "soft-lockup-spin"),
    ("hung-task-6.1", K61, hung_task, {},
     "INFO: task hung in crashme_lock_both", "hung-task",
     "crashme_lock_both crashme_ioctl", "hung-task-lock-both"),
    ("hung-task-panic-6.12", K612, hung_task, {"panic": True},
     "INFO: task hung in crashme_lock_both", "hung-task",
     "crashme_lock_both crashme_ioctl", "hung-task-lock-both"),
    ("sysrq-crash-6.1", K61, sysrq, {},
     "Kernel panic: sysrq triggered crash", "panic",
     "sysrq_handle_crash __handle_sysrq write_sysrq_trigger", "sysrq-crash"),
    ("sysrq-crash-6.12", K612, sysrq, {},
     "Kernel panic: sysrq triggered crash", "panic",
     "sysrq_handle_crash __handle_sysrq write_sysrq_trigger", "sysrq-crash"),
    ("sysrq-crash-pstore-dmesg-6.12", K612, sysrq, {"pstore": True},
     "Kernel panic: sysrq triggered crash", "panic",
     "sysrq_handle_crash __handle_sysrq write_sysrq_trigger", "sysrq-crash"),
    ("oom-deadlocked-6.12", K612, oom_deadlocked, {},
     "Kernel panic: System is deadlocked on memory", "oom",
     "do_anonymous_page __handle_mm_fault handle_mm_fault", "oom-deadlocked"),
    ("oom-panic-on-oom-6.1", K61, oom_panic_on_oom, {},
     "Kernel panic: Out of memory: compulsory panic_on_oom is enabled",
     "oom", "__handle_mm_fault handle_mm_fault", "oom-panic-on-oom"),
    ("stack-protector-6.1", K61, stack_protector, {},
     "stack-protector: Kernel stack is corrupted in crashme_copy_name",
     "stack-protector", "crashme_copy_name crashme_set_name crashme_ioctl",
     "stack-protector-copy-name"),
    ("list-add-corruption-6.1", K61, list_add, {},
     "list_add corruption in crashme_add_client", "list-corruption",
     "crashme_add_client crashme_open chrdev_open", "list-add-client"),
    ("list-add-corruption-6.12", K612, list_add, {},
     "list_add corruption in crashme_add_client", "list-corruption",
     "crashme_add_client crashme_open chrdev_open", "list-add-client"),
    ("list-del-corruption-6.1", K61, list_del, {},
     "list_del corruption in crashme_remove_client", "list-corruption",
     "crashme_remove_client crashme_release __fput", "list-del-client"),
    ("page-fault-in-interrupt-6.12", K612, page_fault_irq, {},
     "BUG: unable to handle page fault in crashme_rx_poll", "page-fault",
     "crashme_rx_poll __napi_poll net_rx_action", "page-fault-rx-poll"),
    ("page-fault-process-6.1", K61, page_fault_process, {},
     "BUG: unable to handle page fault in crashme_dump_ring", "page-fault",
     "crashme_dump_ring seq_read_iter seq_read", "page-fault-dump-ring"),
    ("sched-while-atomic-6.1", K61, sched_atomic, {},
     "BUG: scheduling while atomic in crashme_sleep_locked", "sched-atomic",
     "crashme_sleep_locked crashme_init do_one_initcall",
     "sched-atomic-init"),
    ("kasan-uaf-6.12", K612, kasan_uaf, {},
     "KASAN: use-after-free in crashme_client_put", "kasan",
     "crashme_client_put crashme_release __fput", "kasan-client-put"),
    ("rcu-stall-self-6.1", K61, rcu_stall_self, {},
     "INFO: rcu detected stall in crashme_busy_loop", "rcu-stall",
     "crashme_busy_loop crashme_write full_proxy_write", "rcu-stall-busy"),
    ("rcu-stall-nmi-6.12", K612, rcu_stall_nmi, {},
     "INFO: rcu detected stall in crashme_busy_loop", "rcu-stall",
     "crashme_busy_loop crashme_write full_proxy_write", "rcu-stall-busy"),
    ("panic-message-6.12", K612, plain_panic, {},
     "Kernel panic: crashme: refusing to continue with corrupt state N",
     "panic", "crashme_verify crashme_write full_proxy_write",
     "panic-corrupt-state"),
    ("hard-lockup-6.1", K61, hard_lockup, {},
     "hard lockup in crashme_irqoff_section", "hard-lockup",
     "crashme_irqoff_section crashme_write full_proxy_write",
     "hard-lockup-irqoff"),
    ("hard-lockup-6.12", K612, hard_lockup, {},
     "hard lockup in crashme_irqoff_section", "hard-lockup",
     "crashme_irqoff_section crashme_write full_proxy_write",
     "hard-lockup-irqoff"),
    ("stack-overflow-double-fault-6.1", K61, stack_overflow, {},
     "kernel stack overflow in crashme_recurse", "stack-overflow",
     "crashme_recurse crashme_depth_write full_proxy_write",
     "stack-overflow-recurse"),
    ("stack-overflow-guard-page-6.12", K612, stack_overflow, {},
     "kernel stack overflow in crashme_recurse", "stack-overflow",
     "crashme_recurse crashme_depth_write full_proxy_write",
     "stack-overflow-recurse"),
    ("ubsan-array-index-6.12", K612, ubsan_oob, {},
     "UBSAN: array-index-out-of-bounds in crashme_set_slot", "ubsan",
     "crashme_set_slot crashme_write full_proxy_write", "ubsan-set-slot"),
    ("might-sleep-6.12", K612, might_sleep, {},
     "BUG: sleeping function called from invalid context in crashme_flush",
     "might-sleep", "crashme_flush crashme_write full_proxy_write",
     "might-sleep-flush"),
]


def nocrash_boot(L):
    boot_noise(L, 12)
    L.p("systemd[1]: Reached target multi-user.target - Multi-User System.")
    L.p("crashme: ready, write to /sys/kernel/debug/crashme/trigger")


def nocrash_oom_kill(L):
    oom_report(L, "memhog", 512)
    L.p("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
        "mems_allowed=0,global_oom,task_memcg=/,task=memhog,pid=512,uid=0")
    L.p("Out of memory: Killed process 512 (memhog) total-vm:244936kB, "
        "anon-rss:235204kB, file-rss:0kB, shmem-rss:0kB, UID:0 "
        "pgtables:504kB oom_score_adj:0")


NOCRASH = [("boot-6.12", K612, nocrash_boot),
           ("oom-kill-no-panic-6.1", K61, nocrash_oom_kill)]


def main():
    for name, k, fn, kw, title, kind, frames, bucket in CASES:
        L = Log(name, k, random.Random(name + "t").uniform(8, 400))
        fn(L, **kw)
        hdr = ("TITLE: %s\nKIND: %s\nFRAMES: %s\nBUCKET: %s\n\n" %
               (title, kind, frames, bucket))
        with open(os.path.join(HERE, name + ".txt"), "w") as out:
            out.write(hdr + L.text())
    os.makedirs(os.path.join(HERE, "nocrash"), exist_ok=True)
    for name, k, fn in NOCRASH:
        L = Log(name, k, 5.0)
        fn(L)
        with open(os.path.join(HERE, "nocrash", name + ".txt"), "w") as out:
            out.write(L.text())
    print("wrote %d crash logs, %d without crash" % (len(CASES),
                                                      len(NOCRASH)))


if __name__ == "__main__":
    sys.exit(main())
