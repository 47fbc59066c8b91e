// SPDX-License-Identifier: GPL-2.0
/*
 * netoops register capture.
 *
 * Two sources, tagged on the wire:
 *  NETOOPS_REGS_OOPS	the registers of the context that oopsed, copied
 *			by a die notifier (DIE_OOPS) into a single
 *			preallocated slot.  die() serialises oopses with its
 *			own lock, so one slot is enough.
 *  NETOOPS_REGS_DUMPER	the registers of the context running the dump,
 *			captured on the spot by crash_setup_regs() (kexec's,
 *			so only with CONFIG_KEXEC_CORE; else no registers
 *			are sent).  Used for a panic that had no oops
 *			(panic(), sysrq-c, a watchdog) and for soft dumps.
 *
 * The oops slot is used for a crash dump only if it was filled on the
 * dumping CPU by the dumping task less than NETOOPS_OOPS_REGS_MAX_AGE ago:
 * that covers the OOPS dump from oops_exit() and the PANIC dump that follows
 * it with panic_on_oops or an oops in interrupt context, and rejects an old
 * oops of another task when a later panic has no oops of its own.  The task
 * is matched by pointer and start time: the task that oopsed is freed once
 * it exits, and a new task may get its task_struct.  Soft dumps never use
 * the slot: they report the operator's request, not an oops.
 */
#include <linux/kdebug.h>
#include <linux/kernel.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#ifdef CONFIG_X86_64
#include <linux/kexec.h>
#include <asm/ptrace.h>
#endif

#include "netoops_enc.h"
#include "netoops_internal.h"

#define NETOOPS_OOPS_REGS_MAX_AGE	(10 * NSEC_PER_SEC)

#ifdef CONFIG_X86_64

/* The oops slot; written by the die notifier under die()'s lock. */
static struct {
	struct pt_regs		regs;	/* copy of the oopsing context */
	const struct task_struct *task;	/* current at the oops, never deref'd */
	u64			task_start; /* its start_time, tells reuse apart */
	u64			ns;	/* mono fast clock at the oops */
	int			cpu;	/* CPU that oopsed */
	bool			valid;	/* slot filled at least once */
} netoops_oops;

static int netoops_die_notify(struct notifier_block *nb, unsigned long val,
			      void *data)
{
	struct die_args *args = data;

	if (val != DIE_OOPS || !args || !args->regs)
		return NOTIFY_DONE;
	netoops_oops.valid = false;
	barrier();
	memcpy(&netoops_oops.regs, args->regs, sizeof(netoops_oops.regs));
	netoops_oops.task = current;
	netoops_oops.task_start = current->start_time;
	netoops_oops.ns = ktime_get_mono_fast_ns();
	netoops_oops.cpu = raw_smp_processor_id();
	barrier();
	netoops_oops.valid = true;
	return NOTIFY_DONE;
}

static struct notifier_block netoops_die_nb = {
	.notifier_call = netoops_die_notify,
	/* Run early: a later notifier may not return. */
	.priority = INT_MAX,
};

static bool netoops_oops_regs_usable(void)
{
	return READ_ONCE(netoops_oops.valid) &&
	       netoops_oops.cpu == raw_smp_processor_id() &&
	       netoops_oops.task == current &&
	       netoops_oops.task_start == current->start_time &&
	       ktime_get_mono_fast_ns() - netoops_oops.ns <
			NETOOPS_OOPS_REGS_MAX_AGE;
}

/* Wire order of enum netoops_x86_64_reg, from a pt_regs. */
static void netoops_regs_to_wire(const struct pt_regs *r, u64 *w)
{
	w[NETOOPS_X86_64_REG_R15] = r->r15;
	w[NETOOPS_X86_64_REG_R14] = r->r14;
	w[NETOOPS_X86_64_REG_R13] = r->r13;
	w[NETOOPS_X86_64_REG_R12] = r->r12;
	w[NETOOPS_X86_64_REG_RBP] = r->bp;
	w[NETOOPS_X86_64_REG_RBX] = r->bx;
	w[NETOOPS_X86_64_REG_R11] = r->r11;
	w[NETOOPS_X86_64_REG_R10] = r->r10;
	w[NETOOPS_X86_64_REG_R9] = r->r9;
	w[NETOOPS_X86_64_REG_R8] = r->r8;
	w[NETOOPS_X86_64_REG_RAX] = r->ax;
	w[NETOOPS_X86_64_REG_RCX] = r->cx;
	w[NETOOPS_X86_64_REG_RDX] = r->dx;
	w[NETOOPS_X86_64_REG_RSI] = r->si;
	w[NETOOPS_X86_64_REG_RDI] = r->di;
	w[NETOOPS_X86_64_REG_ORIG_RAX] = r->orig_ax;
	w[NETOOPS_X86_64_REG_RIP] = r->ip;
	w[NETOOPS_X86_64_REG_CS] = r->cs;
	w[NETOOPS_X86_64_REG_EFLAGS] = r->flags;
	w[NETOOPS_X86_64_REG_RSP] = r->sp;
	w[NETOOPS_X86_64_REG_SS] = r->ss;
}

/*
 * Where the dumper's registers are captured.  Not on the stack: storing the
 * callee-saved registers into a stack slot looks to objtool like a second
 * save of them and breaks its frame tracking.  Per CPU, so two dumps on two
 * CPUs do not mix (used with preemption disabled).
 */
#ifdef CONFIG_KEXEC_CORE
static DEFINE_PER_CPU(struct pt_regs, netoops_dumper_regs);
#endif

/**
 * netoops_put_regs() - append NETOOPS_TLV_REGS for the current dump
 * @b:		metadata being built
 * @crash:	a crash dump, which may report the oops' registers; else a
 *		soft dump, which reports the dumper's
 *
 * Context: any; no allocation (the wire array takes 168 bytes of stack).
 *
 * Return: as netoops_tlv_put().
 */
int netoops_put_regs(struct netoops_tlv_buf *b, bool crash)
{
	u64 wire[NETOOPS_X86_64_NR_REGS];
	struct pt_regs *now __maybe_unused;
	u8 context;

	if (crash && netoops_oops_regs_usable()) {
		netoops_regs_to_wire(&netoops_oops.regs, wire);
		context = NETOOPS_REGS_OOPS;
	} else {
#ifdef CONFIG_KEXEC_CORE
		preempt_disable();
		now = this_cpu_ptr(&netoops_dumper_regs);
		memset(now, 0, sizeof(*now));
		crash_setup_regs(now, NULL);
		now->orig_ax = -1;
		netoops_regs_to_wire(now, wire);
		preempt_enable();
		context = NETOOPS_REGS_DUMPER;
#else
		return 0;
#endif
	}
	return netoops_tlv_put_regs(b, NETOOPS_ARCH_X86_64, context, wire,
				    NETOOPS_X86_64_NR_REGS);
}

int netoops_regs_init(void)
{
	return register_die_notifier(&netoops_die_nb);
}

void netoops_regs_exit(void)
{
	unregister_die_notifier(&netoops_die_nb);
}

#else /* !CONFIG_X86_64 */

/* Only x86_64 is captured so far: no REGS TLV elsewhere. */
int netoops_put_regs(struct netoops_tlv_buf *b, bool crash)
{
	return 0;
}

int netoops_regs_init(void)
{
	return 0;
}

void netoops_regs_exit(void)
{
}

#endif /* CONFIG_X86_64 */
