// SPDX-License-Identifier: GPL-2.0
/*
 * The signature scan as it was before it was made faster (commit 45d0972's
 * sig/signature.c, unchanged but for this comment and the function's
 * name): the reference the differential test (test_sig_diff.c) and the
 * fuzz target compare sig/signature.c with.  The signature defines how
 * crashes are grouped into buckets, so a faster scan must give the very
 * same answer for every input.  Do not optimize this file.
 */
/*
 * Crash signatures: reduce the first crash report of a kernel log to a title,
 * the top meaningful frames of its call trace and a hash of both.
 *
 * Normalization rules (also in tests/signatures/README.rst):
 *
 * Lines
 *   Lines end at '\n' or NUL; a trailing '\r' is dropped.  Stripped from
 *   the front: a syslog level "<N>", a /dev/kmsg or extended netconsole
 *   header "6,338,8483953,-;", a syslog/journal "Dec  3 10:28:57 host
 *   kernel: " or "2026-12-03T10:28:57... host kernel: ", up to two bracket
 *   groups of at most 48 bytes (timestamp "[   12.345678]", caller id
 *   "[T123]"/"[C1]", dmesg -T "[Thu Dec  3 10:28:57 2026]"; never "[<"),
 *   a "kernel: " tag.  Only the first 511 bytes of a line are looked at.
 *   Leading and trailing blanks do not matter.
 *
 * Where the report starts
 *   The first line that opens a crash report (table below) wins; whatever
 *   follows it (the "Kernel panic" of panic_on_warn, hung_task_panic,
 *   softlockup_panic, a second oops) only ends its frames.  Lines before it
 *   (boot messages, "sysrq: Trigger a crash", the OOM killer's report) are
 *   not reports by themselves.
 *
 * Titles: volatile parts are dropped
 *   addresses, CPU numbers, PIDs, comm names, timings, line numbers (they
 *   move between kernel versions), the "probably for non-canonical address"
 *   hint (it depends on the garbage value, not on the bug), the rcu flavour
 *   (rcu_preempt/rcu_sched depends on the config), "Oops: " (6.12 prefixes
 *   every oops with it, 6.1 does not).  FUNC is the first meaningful frame
 *   unless the line names the function itself (WARNING, KASAN,
 *   stack-protector).  Without any frame the " in FUNC" part is left out.
 *
 *   line starts with                        title                     kind
 *   BUG: kernel NULL pointer dereference     BUG: kernel NULL pointer  null-deref
 *                                            dereference in FUNC
 *   BUG: unable to handle page fault         BUG: unable to handle     page-fault
 *                                            page fault in FUNC
 *   [Oops: ]general protection fault         general protection fault  gpf
 *                                            in FUNC
 *   kernel BUG at lib/list_debug.c           list corruption in FUNC   list-corruption
 *   kernel BUG at FILE:LINE!                 kernel BUG in FUNC        bug
 *                                            (kernel BUG at FILE with no frame;
 *                                            an absolute FILE keeps its name)
 *   list_add/list_del corruption, list_add   list_add corruption in    list-corruption
 *   double add                               FUNC (first two words)
 *   WARNING: ... at [FILE:LINE] FUNC+0x      WARNING in FUNC           warn
 *   [watchdog: ]BUG: soft lockup             soft lockup in FUNC       soft-lockup
 *   ...Watchdog detected hard LOCKUP         hard lockup in FUNC       hard-lockup
 *   INFO: task C:P blocked for more than     INFO: task hung in FUNC   hung-task
 *   [rcu: ]INFO: rcu_* ... detected stall    INFO: rcu detected stall  rcu-stall
 *                                            in FUNC
 *   BUG: scheduling while atomic             BUG: scheduling while     sched-atomic
 *                                            atomic in FUNC
 *   BUG: sleeping function called from       BUG: sleeping function    might-sleep
 *   invalid context                          called from invalid
 *                                            context in FUNC
 *   BUG: KASAN: TYPE in FUNC                 KASAN: TYPE in FUNC       kasan
 *                                            (slab-use-after-free of 6.4+ is
 *                                            spelled use-after-free as in 6.1)
 *   UBSAN: TYPE in FILE                      UBSAN: TYPE in FUNC       ubsan
 *   PANIC: double fault                      double fault in FUNC      double-fault
 *   BUG: stack guard page was hit            kernel stack overflow in  stack-overflow
 *                                            FUNC
 *   Kernel panic - not syncing: stack-       stack-protector: Kernel   stack-protector
 *   protector: ... corrupted in: FUNC+0x     stack is corrupted in FUNC
 *   Kernel panic - not syncing: MSG          Kernel panic: MSG         panic, or oom
 *                                            (MSG: numbers -> N,       (memory), hung-task,
 *                                            hex words -> X)           soft-lockup,
 *                                                                      hard-lockup, warn
 *   other BUG: WHAT[:,!]...                  BUG: WHAT in FUNC         bug
 *   [Oops: ]invalid opcode / Oops: ...       Oops: WHAT in FUNC        oops
 *
 * Frames
 *   Taken, innermost first, from the first kernel "RIP: 0010:" line of the
 *   report, then from its first "Call Trace:" block (if it starts within
 *   MAX_PRE_TRACE_LINES of the start line).  Dropped: "? "
 *   (unreliable) frames, raw addresses, frames without a symbol, user-space
 *   RIPs, duplicates, and generic frames (is_generic() below: die/oops/panic
 *   and exception plumbing, printk, syscall entry and the __x64_sys_ /
 *   __do_sys_ wrappers, irq/softirq/timer/workqueue plumbing, the scheduler
 *   and sleeping lock primitives, the reporters of KASAN/UBSAN/list_debug/
 *   stack-protector/RCU/watchdogs, the page allocator).  Kept as printed:
 *   sysrq frames (sysrq_handle_crash, __handle_sysrq, write_sysrq_trigger).
 *   Each name loses "+0x1a/0x50", the module "[foo]" (a function keeps its
 *   name whether built in or modular), a compiler suffix (".cold",
 *   ".isra.0", ".constprop.0", ".part.0": everything from the first '.')
 *   and the "_noprof" suffix of 6.10+ allocators.
 *   In a fault, a crash inside <IRQ>/<NMI>/<SOFTIRQ> ends the frames at the
 *   end of that block: below it is the interrupted, unrelated context.  For
 *   soft/hard lockups and RCU stalls it is the reverse: the interrupt is the
 *   detector, so frames inside those blocks are skipped.
 *   At most NETOOPS_SIG_MAX_FRAMES frames are kept.
 *
 * Signature
 *   text = "TITLE | F1 | F2 | F3" (only the frames found), hash = 64-bit
 *   FNV-1a of text in 16 lowercase hex digits.
 *
 * No crash report: -ENOENT, kind "unknown", title = last non-empty line
 * normalized like a panic message (or "unknown"), no frames.
 *
 * Bounded: one pass to find the start, at most MAX_REPORT_LINES lines after
 * it for frames, every line examined through a 512-byte window.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sig/signature.h"

#define LINE_WINDOW		512
#define MAX_REPORT_LINES	2000
#define MAX_PRE_TRACE_LINES	300	/* start line to "Call Trace:" */
#define TITLE_MSG_MAX		160
#define MAX_BRACKET_PREFIX	48	/* "[Thu Dec  3 10:28:57 2026]" fits */
#define MAX_SYSLOG_PREFIX	128	/* date, host name, " kernel: " */

enum sig_kind {
	K_NONE,
	K_NULL_DEREF,
	K_PAGE_FAULT,
	K_GPF,
	K_BUG,
	K_LIST,
	K_WARN,
	K_SOFT_LOCKUP,
	K_HARD_LOCKUP,
	K_HUNG_TASK,
	K_RCU_STALL,
	K_SCHED_ATOMIC,
	K_MIGHT_SLEEP,
	K_KASAN,
	K_UBSAN,
	K_DOUBLE_FAULT,
	K_STACK_OVERFLOW,
	K_STACK_PROTECTOR,
	K_PANIC,
	K_OOM,
	K_OOPS,
};

static const char *const kind_names[] = {
	[K_NONE]		= "unknown",
	[K_NULL_DEREF]		= "null-deref",
	[K_PAGE_FAULT]		= "page-fault",
	[K_GPF]			= "gpf",
	[K_BUG]			= "bug",
	[K_LIST]		= "list-corruption",
	[K_WARN]		= "warn",
	[K_SOFT_LOCKUP]		= "soft-lockup",
	[K_HARD_LOCKUP]		= "hard-lockup",
	[K_HUNG_TASK]		= "hung-task",
	[K_RCU_STALL]		= "rcu-stall",
	[K_SCHED_ATOMIC]	= "sched-atomic",
	[K_MIGHT_SLEEP]		= "might-sleep",
	[K_KASAN]		= "kasan",
	[K_UBSAN]		= "ubsan",
	[K_DOUBLE_FAULT]	= "double-fault",
	[K_STACK_OVERFLOW]	= "stack-overflow",
	[K_STACK_PROTECTOR]	= "stack-protector",
	[K_PANIC]		= "panic",
	[K_OOM]			= "oom",
	[K_OOPS]		= "oops",
};

/* What the start line of a report told us. */
struct report {
	enum sig_kind kind;
	/* title before " in FUNC", or the whole title when !want_func */
	char head[NETOOPS_SIG_TITLE_LEN];
	/* function named by the line itself (WARNING, KASAN, ...) */
	char func[NETOOPS_SIG_FRAME_LEN];
	/* fallback title when no function is known */
	char nofunc[NETOOPS_SIG_TITLE_LEN];
	bool want_func;
};

/* A cursor over the lines of the log. */
struct lines {
	const char *p;
	const char *end;
};

/* Small string helpers working on NUL-terminated windows. */

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *skip_prefix(const char *s, const char *prefix)
{
	return starts(s, prefix) ? s + strlen(prefix) : NULL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_xdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_sym_char(char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '$';
}

static const char *skip_blanks(const char *s)
{
	while (is_blank(*s))
		s++;
	return s;
}

/* Bounded copy that always terminates dst (size > 0). */
static void copy_str(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Append src to dst (size bytes, NUL-terminated), truncating. */
static void append(char *dst, size_t size, const char *src)
{
	size_t have = strlen(dst);

	if (have + 1 >= size)
		return;
	copy_str(dst + have, size - have, src, strlen(src));
}

static bool is_month_day_time(const char *s)
{
	/* "Dec  3 10:28:57" or "Dec 03 10:28:57" */
	return is_alpha(s[0]) && is_alpha(s[1]) && is_alpha(s[2]) &&
	       s[3] == ' ' && (is_blank(s[4]) || is_digit(s[4])) &&
	       is_digit(s[5]) && s[6] == ' ' && is_digit(s[7]) &&
	       is_digit(s[8]) && s[9] == ':';
}

static bool is_iso_date(const char *s)
{
	/* "2026-12-03T10:28:57" */
	return is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) &&
	       is_digit(s[3]) && s[4] == '-' && is_digit(s[5]) &&
	       is_digit(s[6]) && s[7] == '-' && is_digit(s[8]) &&
	       is_digit(s[9]) && (s[10] == 'T' || s[10] == ' ');
}

/* /dev/kmsg and extended netconsole "6,338,8483953,-;" (and ",ncfrag=") */
static const char *skip_ext_header(const char *s)
{
	const char *q = s;

	for (int field = 0; field < 3; field++) {
		if (!is_digit(*q))
			return s;
		while (is_digit(*q))
			q++;
		if (*q != ',')
			return s;
		q++;
	}
	q = strchr(q, ';');
	return q && q - s < MAX_BRACKET_PREFIX * 2 ? q + 1 : s;
}

/* syslog/journal "Dec  3 10:28:57 host kernel: " -> after "kernel: " */
static const char *skip_syslog_date(const char *s)
{
	const char *k;

	if (!is_month_day_time(s) && !is_iso_date(s))
		return s;
	k = strstr(s, " kernel: ");
	if (!k || k - s > MAX_SYSLOG_PREFIX)
		return s;
	return k + strlen(" kernel: ");
}

/*
 * Read the next line into win (NUL-terminated, at most LINE_WINDOW - 1
 * bytes, prefixes stripped, blanks trimmed).  Return false at the end.
 */
static bool next_line(struct lines *it, char *win)
{
	const char *s, *e, *nl;
	size_t n;
	char *w;

	if (it->p >= it->end)
		return false;
	s = it->p;
	for (nl = s; nl < it->end && *nl != '\n' && *nl != '\0'; nl++)
		;
	it->p = nl < it->end ? nl + 1 : nl;
	e = nl;
	if (e > s && e[-1] == '\r')
		e--;

	n = (size_t)(e - s);
	copy_str(win, LINE_WINDOW, s, n);

	w = win;
	/* "<4>" syslog level, as in pstore's dmesg files */
	if (w[0] == '<' && is_digit(w[1])) {
		char *q = w + 1;

		while (is_digit(*q))
			q++;
		if (*q == '>')
			w = q + 1;
	}
	w = (char *)skip_ext_header(w);
	w = (char *)skip_syslog_date(w);
	/*
	 * "[   12.345678]" then an optional "[  T123]" or "[ C1]"; also
	 * dmesg -T's "[Thu Dec  3 10:28:57 2026]".  Not "[<ffffffff8123>]",
	 * the address of an old-style frame.
	 */
	for (int i = 0; i < 2; i++) {
		char *q = (char *)skip_blanks(w), *close;

		if (q[0] != '[' || q[1] == '<')
			break;
		close = memchr(q, ']', strnlen(q, MAX_BRACKET_PREFIX));
		if (!close)
			break;
		w = close + 1;
	}
	w = (char *)skip_blanks(w);
	if (starts(w, "kernel: "))
		w += strlen("kernel: ");
	w = (char *)skip_blanks(w);

	n = strlen(w);
	while (n > 0 && (is_blank(w[n - 1]) || w[n - 1] == '\r'))
		n--;
	memmove(win, w, n);
	win[n] = '\0';
	return true;
}

/* Strip "_noprof" (6.10+ allocation profiling) from the end of a name. */
static void strip_noprof(char *name)
{
	static const char suffix[] = "_noprof";
	size_t n = strlen(name), k = sizeof(suffix) - 1;

	if (n > k && strcmp(name + n - k, suffix) == 0)
		name[n - k] = '\0';
}

/*
 * Parse "name+0x1a/0x50 [mod]" at s into out (name without compiler
 * suffix).  Return true when s starts with a symbolized address.
 */
static bool parse_symbol(const char *s, char *out, size_t size)
{
	const char *b = s, *e;
	size_t n;

	while (is_sym_char(*s))
		s++;
	if (s == b || !starts(s, "+0x"))
		return false;
	e = b;
	while (e < s && *e != '.')
		e++;
	n = (size_t)(e - b);
	if (n == 0)
		return false;
	copy_str(out, size, b, n);
	strip_noprof(out);
	return out[0] != '\0';
}

/* Skip one or more "[<ffffffff81234567>]" markers of older traces. */
static const char *skip_raw_addresses(const char *s)
{
	for (;;) {
		const char *q = skip_blanks(s);

		if (q[0] != '[' || q[1] != '<')
			return q;
		q += 2;
		while (is_xdigit(*q))
			q++;
		if (q[0] != '>' || q[1] != ']')
			return s;
		s = q + 2;
	}
}

/*
 * A call trace line: "func+0x1a/0x50 [mod]", "? func+0x..",
 * "[<ffffffff8123>] func+0x..".  Sets *unreliable for "? ".
 */
static bool parse_frame(const char *s, char *out, size_t size,
			bool *unreliable)
{
	s = skip_raw_addresses(s);
	*unreliable = false;
	if (s[0] == '?' && s[1] == ' ') {
		*unreliable = true;
		s = skip_blanks(s + 2);
	}
	return parse_symbol(s, out, size);
}

/*
 * "RIP: 0010:func+0x1a/0x50 [mod]".  Returns 1 for a symbolized kernel
 * RIP, 0 for any other RIP line (user space, raw address), -1 otherwise.
 */
static int parse_rip(const char *s, char *out, size_t size)
{
	const char *r = skip_prefix(s, "RIP: ");

	if (!r)
		return -1;
	r = skip_blanks(r);
	if (is_xdigit(r[0]) && is_xdigit(r[1]) && is_xdigit(r[2]) &&
	    is_xdigit(r[3]) && r[4] == ':') {
		/* user code segments: 0x33 (64-bit), 0x23 (compat) */
		if (starts(r, "0033") || starts(r, "0023"))
			return 0;
		r += 5;
	}
	r = skip_raw_addresses(r);
	return parse_symbol(r, out, size) ? 1 : 0;
}

/* Generic frames: plumbing that says nothing about the bug. */
static const char *const generic_exact[] = {
	/* reporting, dying, panicking */
	"panic", "vpanic", "nmi_panic", "dump_stack", "dump_stack_lvl",
	"show_stack", "show_trace_log_lvl", "show_regs", "__show_regs",
	"__warn", "warn_slowpath_fmt", "warn_slowpath_null", "report_bug",
	"handle_bug", "check_panic_on_warn", "die", "__die", "__die_body",
	"die_addr", "oops_end", "oops_begin", "bust_spinlocks",
	"make_task_dead", "rewind_stack_and_make_dead",
	"rewind_stack_do_exit", "do_exit", "do_group_exit",
	/* exceptions and faults */
	"exc_invalid_op", "page_fault_oops", "kernelmode_fixup_or_oops",
	"no_context", "__bad_area_nosemaphore", "bad_area_nosemaphore",
	"bad_area", "do_user_addr_fault", "do_kern_addr_fault",
	"exc_page_fault", "handle_page_fault", "do_general_protection",
	"exc_general_protection", "do_trap", "do_error_trap",
	"do_int3", "exc_int3", "exc_double_fault", "handle_stack_overflow",
	"fixup_exception", "search_exception_tables",
	/* syscall entry */
	"do_syscall_64", "do_fast_syscall_32", "do_int80_syscall_32",
	"x64_sys_call", "ia32_sys_call", "syscall_exit_to_user_mode",
	"exit_to_user_mode_prepare", "exit_to_user_mode_loop",
	"syscall_enter_from_user_mode",
	/* scheduler, sleeping and lock primitives */
	"__schedule", "schedule", "schedule_idle", "preempt_schedule",
	"preempt_schedule_common", "preempt_schedule_irq",
	"preempt_schedule_thunk", "schedule_timeout",
	"schedule_timeout_uninterruptible", "schedule_timeout_interruptible",
	"schedule_timeout_killable", "schedule_preempt_disabled",
	"schedule_hrtimeout", "schedule_hrtimeout_range",
	"schedule_hrtimeout_range_clock", "io_schedule",
	"io_schedule_timeout", "__schedule_bug", "schedule_debug",
	"__might_resched", "__might_sleep", "___might_sleep",
	"__cond_resched", "_cond_resched", "msleep", "usleep_range",
	"usleep_range_state", "mutex_lock", "__mutex_lock",
	"__mutex_lock_slowpath", "mutex_lock_nested",
	"mutex_lock_interruptible", "mutex_lock_killable",
	"__mutex_lock_interruptible_slowpath",
	"__mutex_lock_killable_slowpath", "down", "down_read",
	"down_write", "down_interruptible", "down_killable",
	"down_read_killable", "down_write_killable", "__down",
	"__down_common", "__down_interruptible", "__down_killable",
	"rwsem_down_read_slowpath", "rwsem_down_write_slowpath",
	"__rwsem_down_read_slowpath", "wait_for_completion",
	"wait_for_completion_timeout", "wait_for_completion_interruptible",
	"wait_for_completion_killable", "wait_for_common",
	"__wait_for_common", "do_wait_for_common", "wait_for_common_io",
	"_raw_spin_lock", "_raw_spin_lock_irqsave", "_raw_spin_lock_irq",
	"_raw_spin_lock_bh", "_raw_spin_unlock",
	"_raw_spin_unlock_irqrestore", "_raw_spin_unlock_irq",
	"_raw_spin_unlock_bh", "native_queued_spin_lock_slowpath",
	"queued_spin_lock_slowpath", "do_raw_spin_lock",
	/* threads and work */
	"kthread", "ret_from_fork", "ret_from_fork_asm", "worker_thread",
	"process_one_work", "process_scheduled_works", "smpboot_thread_fn",
	"run_ksoftirqd", "rescuer_thread",
	/* printk */
	"printk", "_printk", "vprintk", "vprintk_emit", "vprintk_default",
	"vprintk_func", "console_unlock", "console_flush_all",
	/* interrupts, softirqs, timers */
	"irq_exit", "irq_exit_rcu", "__irq_exit_rcu", "__do_softirq",
	"handle_softirqs", "do_softirq", "do_softirq_own_stack",
	"__local_bh_enable_ip", "local_bh_enable", "run_on_irqstack_cond",
	"call_timer_fn", "__run_timers", "run_timer_softirq",
	"__run_timer_base", "run_timer_base", "expire_timers",
	"__hrtimer_run_queues", "hrtimer_interrupt", "hrtimer_run_queues",
	"tick_sched_handle", "tick_sched_timer", "tick_nohz_handler",
	"tick_handle_periodic", "update_process_times", "scheduler_tick",
	"sched_tick", "handle_irq_event", "handle_irq_event_percpu",
	"__handle_irq_event_percpu", "handle_edge_irq", "handle_fasteoi_irq",
	"common_interrupt", "__common_interrupt", "handle_irq",
	/* lockup, stall and hung task detectors */
	"watchdog_timer_fn", "watchdog_overflow_callback",
	"watchdog_hardlockup_check", "watchdog_buddy_check_hardlockup",
	"__perf_event_overflow", "perf_event_nmi_handler", "nmi_handle",
	"default_do_nmi", "exc_nmi", "nmi_cpu_backtrace",
	"nmi_trigger_cpumask_backtrace", "arch_trigger_cpumask_backtrace",
	"trigger_single_cpu_backtrace", "dump_cpu_task",
	"rcu_dump_cpu_stacks", "print_cpu_stall", "print_other_cpu_stall",
	"check_cpu_stall", "rcu_pending", "rcu_sched_clock_irq",
	"check_hung_uninterruptible_tasks", "check_hung_task",
	"sched_show_task", "show_state_filter",
	/* bug reporters */
	"kasan_report", "__kasan_report", "print_report",
	"print_address_description", "kasan_check_range",
	"__kasan_check_read", "__kasan_check_write", "ubsan_epilogue",
	"__stack_chk_fail", "__list_add_valid", "__list_add_valid_or_report",
	"__list_del_entry_valid", "__list_del_entry_valid_or_report",
	"__list_valid_slowpath", "list_add", "list_del", "__list_add",
	"__list_del_entry",
	/* page allocator and OOM */
	"out_of_memory", "__alloc_pages", "__alloc_pages_slowpath",
	"__alloc_pages_may_oom", "alloc_pages", "alloc_pages_mpol",
	"__folio_alloc", "folio_alloc", "alloc_pages_current",
	"vma_alloc_folio", "folio_alloc_mpol", "alloc_page_vma",
	"__get_free_pages", "get_zeroed_page", "alloc_pages_bulk",
	"dump_header", "oom_kill_process", "pagefault_out_of_memory",
	"kmalloc", "__kmalloc", "kmalloc_trace", "__kmalloc_node",
	"kmalloc_large", "kmem_cache_alloc", "kmem_cache_alloc_lru",
	"kmem_cache_alloc_node", "__kmalloc_cache", "__kmalloc_large_node",
	"___slab_alloc", "__slab_alloc", "slab_alloc_node", "vmalloc",
	"__vmalloc", "__vmalloc_node", "__vmalloc_node_range",
	/* idle loop */
	"do_idle", "cpu_startup_entry", "default_idle", "default_idle_call",
	"arch_cpu_idle", "cpuidle_idle_call", "start_secondary",
	"rest_init", "start_kernel", "x86_64_start_kernel",
	"x86_64_start_reservations", "secondary_startup_64",
	"secondary_startup_64_no_verify", "common_startup_64",
};

static const char *const generic_prefix[] = {
	"asm_", "__pfx_", "entry_SYSCALL", "entry_INT80", "__x64_sys_",
	"__ia32_sys_", "__se_sys_", "__do_sys_", "__ia32_compat_sys_",
	"sysvec_", "__sysvec_", "__asan_", "__ubsan_handle_", "__kasan_",
	"kasan_", "lock_acquire", "__lock_acquire", "irqentry_",
};

static bool is_generic(const char *name)
{
	for (size_t i = 0; i < sizeof(generic_exact) / sizeof(*generic_exact);
	     i++)
		if (strcmp(name, generic_exact[i]) == 0)
			return true;
	for (size_t i = 0;
	     i < sizeof(generic_prefix) / sizeof(*generic_prefix); i++)
		if (starts(name, generic_prefix[i]))
			return true;
	return false;
}

/*
 * Normalize a free-form message (panic text, last line): numbers -> "N",
 * words of 8+ hex digits (addresses) -> "X", "sym+0x1/0x2 [mod]" -> "sym",
 * runs of blanks -> one space, at most TITLE_MSG_MAX bytes.
 */
static void normalize_msg(const char *s, char *out, size_t size)
{
	size_t o = 0, lim = size - 1;

	if (lim > TITLE_MSG_MAX)
		lim = TITLE_MSG_MAX;
	s = skip_blanks(s);
	while (*s && o < lim) {
		bool boundary = o == 0 || !is_sym_char(out[o - 1]);

		if (is_blank(*s)) {
			s = skip_blanks(s);
			if (*s)
				out[o++] = ' ';
			continue;
		}
		if (starts(s, "+0x")) {
			/* symbol offset, and a "[module]" right after it */
			s++;
			while (*s && !is_blank(*s))
				s++;
			if (s[0] == ' ' && s[1] == '[') {
				const char *q = strchr(s, ']');

				if (q)
					s = q + 1;
			}
			continue;
		}
		if (boundary && is_digit(*s)) {
			/* 42, 0x2a, 22s: the number goes, a unit stays */
			if (starts(s, "0x") || starts(s, "0X"))
				s += 2;
			while (is_xdigit(*s))
				s++;
			out[o++] = 'N';
			continue;
		}
		if (boundary && is_xdigit(*s)) {
			const char *q = s;

			while (is_xdigit(*q))
				q++;
			if (q - s >= 8 && !is_sym_char(*q)) {
				out[o++] = 'X';
				s = q;
				continue;
			}
		}
		out[o++] = *s++;
	}
	while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '.'))
		o--;
	out[o] = '\0';
}

/* Copy the words of s up to the first of stop (exclusive) into out. */
static void copy_until(const char *s, const char *stop, char *out,
		       size_t size)
{
	size_t n = strcspn(s, stop);

	while (n > 0 && is_blank(s[n - 1]))
		n--;
	copy_str(out, size, s, n);
}

static void set_report(struct report *r, enum sig_kind kind,
		       const char *head, bool want_func)
{
	r->kind = kind;
	copy_str(r->head, sizeof(r->head), head, strlen(head));
	r->want_func = want_func;
}

/* "Kernel panic - not syncing: MSG" */
static void classify_panic(const char *msg, struct report *r)
{
	char norm[NETOOPS_SIG_TITLE_LEN];
	const char *p;

	p = skip_prefix(msg, "stack-protector: Kernel stack is corrupted in:");
	if (p) {
		set_report(r, K_STACK_PROTECTOR,
			   "stack-protector: Kernel stack is corrupted", true);
		p = skip_blanks(p);
		if (!parse_symbol(p, r->func, sizeof(r->func)))
			r->func[0] = '\0';
		return;
	}

	normalize_msg(msg, norm, sizeof(norm));
	r->kind = K_PANIC;
	if (starts(msg, "System is deadlocked on memory") ||
	    starts(msg, "Out of memory"))
		r->kind = K_OOM;
	else if (starts(msg, "hung_task:"))
		r->kind = K_HUNG_TASK;
	else if (starts(msg, "softlockup:"))
		r->kind = K_SOFT_LOCKUP;
	else if (starts(msg, "Hard LOCKUP") || starts(msg, "hardlockup:"))
		r->kind = K_HARD_LOCKUP;
	else if (strstr(msg, "panic_on_warn set"))
		r->kind = K_WARN;
	copy_str(r->head, sizeof(r->head), "Kernel panic: ", 14);
	append(r->head, sizeof(r->head), norm[0] ? norm : "unknown");
	r->want_func = false;
}

/* "WARNING: CPU: 0 PID: 1 at drivers/x.c:42 func+0x1a/0x30 [mod]" */
static void classify_warning(const char *s, struct report *r)
{
	const char *at = strstr(s, " at ");

	set_report(r, K_WARN, "WARNING", true);
	if (!at)
		return;
	at = skip_blanks(at + 4);
	if (parse_symbol(at, r->func, sizeof(r->func)))
		return;
	/* skip "file:line" */
	while (*at && !is_blank(*at))
		at++;
	at = skip_blanks(at);
	if (!parse_symbol(at, r->func, sizeof(r->func)))
		r->func[0] = '\0';
}

/* "kernel BUG at lib/list_debug.c:29!" */
static void classify_kernel_bug(const char *file, struct report *r)
{
	char path[NETOOPS_SIG_TITLE_LEN - 32];

	/* an out-of-tree build prints its absolute path: keep the name */
	if (file[0] == '/') {
		const char *slash = file, *q;

		for (q = file; *q && *q != ':' && !is_blank(*q); q++)
			if (*q == '/')
				slash = q;
		file = slash + 1;
	}
	copy_until(file, ":! ", path, sizeof(path));
	if (strcmp(path, "lib/list_debug.c") == 0) {
		set_report(r, K_LIST, "list corruption", true);
		return;
	}
	set_report(r, K_BUG, "kernel BUG", true);
	snprintf(r->nofunc, sizeof(r->nofunc), "kernel BUG at %s",
		 path[0] ? path : "unknown");
}

/* "BUG: KASAN: slab-use-after-free in func+0x1a/0x30 [mod]" */
static void classify_kasan(const char *s, struct report *r)
{
	char type[64];
	const char *in = strstr(s, " in ");

	copy_until(s, " ", type, sizeof(type));
	if (strcmp(type, "slab-use-after-free") == 0)
		copy_str(type, sizeof(type), "use-after-free", 14);
	r->kind = K_KASAN;
	snprintf(r->head, sizeof(r->head), "KASAN: %s", type);
	r->want_func = true;
	if (!in || !parse_symbol(skip_blanks(in + 4), r->func,
				 sizeof(r->func)))
		r->func[0] = '\0';
}

/* Oops lines of either kernel: "Oops: 0000 [#1]", "invalid opcode: ..." */
static bool classify_oops(const char *s, struct report *r)
{
	const char *o = skip_prefix(s, "Oops: ");
	char what[64];
	bool had_oops = o != NULL;

	if (!o)
		o = s;
	if (starts(o, "general protection fault")) {
		set_report(r, K_GPF, "general protection fault", true);
		return true;
	}
	if (starts(o, "double fault")) {
		set_report(r, K_DOUBLE_FAULT, "double fault", true);
		return true;
	}
	if (starts(o, "kernel stack overflow") || starts(o, "stack guard page")) {
		set_report(r, K_STACK_OVERFLOW, "kernel stack overflow", true);
		return true;
	}
	if (!had_oops && !starts(o, "invalid opcode: "))
		return false;
	/* "Oops: 0002 [#1] ..." or "Oops: int3: 0000 [#1]" */
	if (is_xdigit(o[0]) && is_xdigit(o[1]) && is_xdigit(o[2]) &&
	    is_xdigit(o[3]) && o[4] == ' ') {
		set_report(r, K_OOPS, "Oops", true);
		return true;
	}
	copy_until(o, ":[,", what, sizeof(what));
	r->kind = K_OOPS;
	snprintf(r->head, sizeof(r->head), "Oops: %s", what);
	r->want_func = true;
	return true;
}

/*
 * Does this line open a crash report?  Fill r and return true if so.
 * The order matters only where one pattern is a prefix of another.
 */
static bool classify_start(const char *line, struct report *r)
{
	const char *s = line, *p;

	memset(r, 0, sizeof(*r));
	/* pr_fmt prefixes of the detectors */
	static const char *const detectors[] = {
		"watchdog: ", "NMI watchdog: ", "rcu: ",
	};

	for (size_t i = 0; i < sizeof(detectors) / sizeof(*detectors); i++) {
		p = skip_prefix(s, detectors[i]);
		if (p) {
			s = p;
			break;
		}
	}

	p = skip_prefix(s, "Kernel panic - not syncing:");
	if (p) {
		classify_panic(skip_blanks(p), r);
		return true;
	}
	p = skip_prefix(s, "kernel BUG at ");
	if (p) {
		classify_kernel_bug(p, r);
		return true;
	}
	if (starts(s, "WARNING: CPU:") || starts(s, "WARNING: at ") ||
	    (starts(s, "WARNING: ") && strstr(s, " at ") &&
	     strstr(s, "+0x"))) {
		classify_warning(s, r);
		return true;
	}
	if (starts(s, "list_add corruption") ||
	    starts(s, "list_del corruption") ||
	    starts(s, "list_add double add")) {
		char head[32];

		copy_until(s, ".,:", head, sizeof(head));
		if (starts(s, "list_add double add"))
			copy_str(head, sizeof(head), "list_add corruption", 19);
		set_report(r, K_LIST, head, true);
		return true;
	}
	if (strstr(s, "Watchdog detected hard LOCKUP")) {
		set_report(r, K_HARD_LOCKUP, "hard lockup", true);
		return true;
	}
	if (starts(s, "INFO: task ") && strstr(s, " blocked for more than ")) {
		set_report(r, K_HUNG_TASK, "INFO: task hung", true);
		return true;
	}
	if (starts(s, "INFO: rcu_") && strstr(s, "detected") &&
	    strstr(s, "stall")) {
		set_report(r, K_RCU_STALL, "INFO: rcu detected stall", true);
		return true;
	}
	if (starts(s, "PANIC: double fault")) {
		set_report(r, K_DOUBLE_FAULT, "double fault", true);
		return true;
	}
	p = skip_prefix(s, "UBSAN: ");
	if (p) {
		char type[64];

		copy_until(p, " ", type, sizeof(type));
		r->kind = K_UBSAN;
		snprintf(r->head, sizeof(r->head), "UBSAN: %s", type);
		r->want_func = true;
		return true;
	}
	p = skip_prefix(s, "BUG: ");
	if (p) {
		if (starts(p, "kernel NULL pointer dereference") ||
		    starts(p, "unable to handle kernel NULL pointer")) {
			set_report(r, K_NULL_DEREF,
				   "BUG: kernel NULL pointer dereference",
				   true);
		} else if (starts(p, "unable to handle page fault") ||
			   starts(p, "unable to handle kernel paging")) {
			set_report(r, K_PAGE_FAULT,
				   "BUG: unable to handle page fault", true);
		} else if (starts(p, "soft lockup")) {
			set_report(r, K_SOFT_LOCKUP, "soft lockup", true);
		} else if (starts(p, "scheduling while atomic")) {
			set_report(r, K_SCHED_ATOMIC,
				   "BUG: scheduling while atomic", true);
		} else if (starts(p, "sleeping function called from invalid context")) {
			set_report(r, K_MIGHT_SLEEP,
				   "BUG: sleeping function called from invalid context",
				   true);
		} else if (starts(p, "KASAN: ")) {
			classify_kasan(p + strlen("KASAN: "), r);
		} else if (starts(p, "stack guard page was hit")) {
			set_report(r, K_STACK_OVERFLOW,
				   "kernel stack overflow", true);
		} else {
			char raw[96], what[96];

			copy_until(p, ":,!(", raw, sizeof(raw));
			normalize_msg(raw, what, sizeof(what));
			r->kind = K_BUG;
			snprintf(r->head, sizeof(r->head), "BUG: %s",
				 what[0] ? what : "unknown");
			r->want_func = true;
		}
		return true;
	}
	return classify_oops(s, r);
}

/* Frame collector state. */
struct collector {
	struct netoops_sig *sig;
	bool skip_irq;		/* lockups/stalls: the interrupt is the detector */
	bool in_trace;		/* inside a "Call Trace:" block */
	bool saw_task;		/* the trace has <TASK> markers */
	int irq_depth;		/* inside <IRQ>/<NMI>/<SOFTIRQ> */
	bool irq_reliable;	/* a reliable frame was seen in that block */
	bool rip_done;		/* the report's RIP was looked at */
	bool done;
	int pre_trace_lines;	/* lines seen before "Call Trace:" */
};

static void add_frame(struct collector *c, const char *name)
{
	struct netoops_sig *sig = c->sig;

	if (is_generic(name))
		return;
	for (unsigned int i = 0; i < sig->nframes; i++)
		if (strcmp(sig->frames[i], name) == 0)
			return;
	copy_str(sig->frames[sig->nframes], NETOOPS_SIG_FRAME_LEN, name,
		 strlen(name));
	if (++sig->nframes == NETOOPS_SIG_MAX_FRAMES)
		c->done = true;
}

static bool is_register_line(const char *s)
{
	static const char *const regs[] = {
		"RSP:", "RAX:", "RDX:", "RBP:", "R10:", "R13:", "FS:", "CS:",
		"CR2:", "DR0:", "DR3:", "PKRU:", "Code:", "EIP:", "EAX:",
		"ESI:", "DS:", "Stack:",
	};

	for (size_t i = 0; i < sizeof(regs) / sizeof(*regs); i++)
		if (starts(s, regs[i]))
			return true;
	return false;
}

static bool ends_report(const char *s)
{
	/* the start line is consumed: any panic here follows the report */
	return starts(s, "---[ end ") || starts(s, "Kernel Offset:") ||
	       starts(s, "Kernel panic - not syncing");
}

/* "<IRQ>" (close == false) or "</IRQ>" (close == true), not TASK */
static bool is_stack_marker(const char *s, bool close)
{
	size_t n = strlen(s);

	if (n < 3 || s[0] != '<' || s[n - 1] != '>')
		return false;
	if ((s[1] == '/') != close)
		return false;
	s += close ? 2 : 1;
	if (starts(s, "TASK>"))
		return false;
	for (; *s != '>'; s++)
		if (!is_alpha(*s) && *s != '#' && *s != '_')
			return false;
	return true;
}

static void collect_line(struct collector *c, const char *s)
{
	char name[NETOOPS_SIG_FRAME_LEN];
	bool unreliable;
	int rip;

	if (ends_report(s)) {
		c->done = true;
		return;
	}
	rip = parse_rip(s, name, sizeof(name));
	if (rip >= 0) {
		/* the report's own RIP, or the interrupted one if nothing yet */
		if (rip == 1 && (!c->rip_done || c->sig->nframes == 0) &&
		    !(c->skip_irq && c->irq_depth > 0))
			add_frame(c, name);
		c->rip_done = true;
		return;
	}
	if (!c->in_trace) {
		if (starts(s, "Call Trace:") || starts(s, "Call trace:"))
			c->in_trace = true;
		/* a trace this far away belongs to something else */
		else if (++c->pre_trace_lines > MAX_PRE_TRACE_LINES)
			c->done = true;
		return;
	}
	if (strcmp(s, "<TASK>") == 0) {
		c->saw_task = true;
		return;
	}
	if (strcmp(s, "</TASK>") == 0) {
		c->done = true;
		return;
	}
	/* <IRQ>, <NMI>, <SOFTIRQ>, exception stacks like <#DF> */
	if (is_stack_marker(s, false)) {
		c->irq_depth++;
		c->irq_reliable = false;
		return;
	}
	if (is_stack_marker(s, true)) {
		if (c->irq_depth > 0)
			c->irq_depth--;
		/* a fault inside the interrupt: below is another context */
		if (!c->skip_irq && c->irq_reliable)
			c->done = true;
		return;
	}
	if (parse_frame(s, name, sizeof(name), &unreliable)) {
		if (unreliable)
			return;
		if (c->irq_depth > 0) {
			c->irq_reliable = true;
			if (c->skip_irq)
				return;
		}
		add_frame(c, name);
		return;
	}
	if (is_register_line(s) || s[0] == '\0' || starts(s, "R") ||
	    c->saw_task)
		return;
	/* an old-style trace ends at the first line that is not a frame */
	c->done = true;
}

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void finish(struct netoops_sig *sig, enum sig_kind kind)
{
	copy_str(sig->kind, sizeof(sig->kind), kind_names[kind],
		 strlen(kind_names[kind]));
	copy_str(sig->text, sizeof(sig->text), sig->title, strlen(sig->title));
	for (unsigned int i = 0; i < sig->nframes; i++) {
		append(sig->text, sizeof(sig->text), " | ");
		append(sig->text, sizeof(sig->text), sig->frames[i]);
	}
	snprintf(sig->hash, sizeof(sig->hash), "%016llx",
		 (unsigned long long)fnv1a64(sig->text));
}

int netoops_signature_ref(const char *log, size_t len,
			  struct netoops_sig *ret_sig);

int netoops_signature_ref(const char *log, size_t len,
			  struct netoops_sig *ret_sig)
{
	char win[LINE_WINDOW];
	char last[LINE_WINDOW] = "";
	struct report r = { .kind = K_NONE };
	struct collector c = { .sig = ret_sig };
	struct lines it;
	bool found = false;

	if (!ret_sig || (!log && len))
		return -EINVAL;
	memset(ret_sig, 0, sizeof(*ret_sig));
	it.p = log;
	it.end = log ? log + len : log;

	while (next_line(&it, win)) {
		if (classify_start(win, &r)) {
			found = true;
			break;
		}
		if (win[0])
			memcpy(last, win, sizeof(last));
	}

	if (!found) {
		normalize_msg(last, ret_sig->title, sizeof(ret_sig->title));
		if (!ret_sig->title[0])
			copy_str(ret_sig->title, sizeof(ret_sig->title),
				 "unknown", 7);
		finish(ret_sig, K_NONE);
		return -ENOENT;
	}

	c.skip_irq = r.kind == K_SOFT_LOCKUP || r.kind == K_HARD_LOCKUP ||
		     r.kind == K_RCU_STALL;
	for (int n = 0; n < MAX_REPORT_LINES && !c.done &&
	     next_line(&it, win); n++)
		collect_line(&c, win);

	if (r.want_func && (r.func[0] || ret_sig->nframes)) {
		copy_str(ret_sig->title, sizeof(ret_sig->title), r.head,
			 strlen(r.head));
		append(ret_sig->title, sizeof(ret_sig->title), " in ");
		append(ret_sig->title, sizeof(ret_sig->title),
		       r.func[0] ? r.func : ret_sig->frames[0]);
	} else if (r.want_func && r.nofunc[0])
		copy_str(ret_sig->title, sizeof(ret_sig->title), r.nofunc,
			 strlen(r.nofunc));
	else
		copy_str(ret_sig->title, sizeof(ret_sig->title), r.head,
			 strlen(r.head));
	finish(ret_sig, r.kind);
	return 0;
}
