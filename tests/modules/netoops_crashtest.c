// SPDX-License-Identifier: GPL-2.0
/*
 * netoops_crashtest: make the kernel crash on purpose, in the ways netoops
 * has to report.  TEST ONLY: never install this module on a real system.
 *
 * Write a command to /proc/netoops_crashtest (root only, mode 0200):
 *
 *   oops              NULL dereference in the writer's process context
 *   oops_kthread [N]  NULL dereference in N (default 1, max 16) fresh
 *                     kthreads bound to CPU 0, one after the other: the
 *                     writer survives, which makes repeated oopses easy
 *                     (one-shot tests)
 *   free_oops_task    drop the reference oops and oops_kthread keep on
 *                     the last task that oopsed, once it is the last one:
 *                     the task_struct is
 *                     freed here, in the writer's context (pin the writer
 *                     to CPU 0 and fork right after, and the new task
 *                     likely gets it)
 *   reuses_oops_task  succeeds (else -ESRCH) if the writer runs on CPU 0
 *                     in the task_struct of the last task that oopsed,
 *                     freed and handed to a new task: a stale copy of the
 *                     oops must not pass for this task's
 *   oops_softirq      NULL dereference in a timer callback (softirq)
 *   bug               BUG()
 *   warn              WARN() (panics with panic_on_warn=1)
 *   softlockup [S]    spin with preemption disabled for up to S seconds
 *                     (default 60): with softlockup_panic=1 the watchdog
 *                     panics first
 *   panic             panic() without an oops
 *   panic_nomem       take every page and skb that GFP_ATOMIC still
 *                     gets, count the skbs allocated on this CPU from
 *                     then on (a kprobe on __alloc_skb), panic(), and
 *                     print the count from a kmsg dumper that runs after
 *                     the ones registered before (netoops' pstore)
 *   hold_txq DEV [Q [CPU]]  a kthread on CPU (default 1) takes DEV's tx
 *                     queue Q (default 0) lock for 50 ms, frees it for
 *                     1 ms, and again, as a busy transmitter would, until
 *                     "release" (at most 60 s); returns once it holds it
 *   hold_txq_forever DEV [Q [CPU]]  the same, never freeing it (at most
 *                     60 s)
 *   hold_txq_noowner DEV [Q [CPU]]  as hold_txq_forever, but the lock is
 *                     taken without writing the queue's owner: a holder
 *                     stopped between the two
 *   oops_holding_txq DEV  a kthread on CPU 0 takes DEV's tx queue 0 lock
 *                     and oopses holding it: the dump runs on the CPU that
 *                     holds the lock (the lock stays held: DEV is dead
 *                     for transmit afterwards)
 *   release           end hold_txq
 *   panic_nmi         from another CPU: arm an NMI handler that panics on
 *                     CPU 0, make CPU 0 spin with interrupts off (an
 *                     IPI), and send it an NMI (x86): a panic in NMI
 *                     context, as the hard-lockup detector's
 *   wait_txq_stopped DEV  return once DEV's tx queue 0 is stopped (its
 *                     device no longer takes what is queued), or fail
 *                     with ETIMEDOUT after 60 s
 *
 * The file is written through /proc rather than a module parameter on
 * purpose: a parameter's set() runs under kernel_param_lock, and an oops
 * there would leave that mutex held for every later write.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kmsg_dump.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/panic.h>
#include <linux/proc_fs.h>
#include <linux/sched/clock.h>
#include <linux/skbuff.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#ifdef CONFIG_X86
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

#define CT_MAX_KTHREADS		16
#define CT_SOFTLOCKUP_MAX_S	600

/*
 * A NULL pointer the compiler cannot see through, so the dereference is
 * really emitted (a literal NULL dereference is undefined behaviour the
 * compiler may turn into something else).
 */
static int *volatile ct_null;

static noinline void ct_deref_null(void)
{
	*ct_null = 0x6e6f7073;	/* "nops" */
}

static void ct_timer_fn(struct timer_list *t)
{
	ct_deref_null();
}

static DEFINE_TIMER(ct_timer, ct_timer_fn);

/* The last task that oopsed: compared with current, never dereferenced. */
static const void *ct_oops_task;
/* ... and a reference on it until free_oops_task (or a later oops_kthread) */
static struct task_struct *ct_oops_ref;

static void ct_keep_oops_task(struct task_struct *t)
{
	WRITE_ONCE(ct_oops_task, t);
	if (ct_oops_ref)
		put_task_struct(ct_oops_ref);
	ct_oops_ref = get_task_struct(t);
}

static int ct_free_oops_task(void)
{
	struct task_struct *t = ct_oops_ref;
	unsigned long end = jiffies + 10 * HZ;

	if (!t)
		return -ENOENT;
	/* the exit path drops its references after an RCU grace period */
	while (refcount_read(&t->usage) > 1) {
		if (time_after(jiffies, end))
			return -EBUSY;
		schedule_timeout_uninterruptible(1);
	}
	ct_oops_ref = NULL;
	put_task_struct(t);
	return 0;
}

static int ct_kthread_fn(void *arg)
{
	struct completion *started = arg;

	complete(started);
	ct_deref_null();
	return 0;
}

static int ct_oops_kthreads(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		DECLARE_COMPLETION_ONSTACK(started);
		struct task_struct *t;
		unsigned long end;

		t = kthread_create(ct_kthread_fn, &started, "ct_oops/%u", i);
		if (IS_ERR(t))
			return PTR_ERR(t);
		kthread_bind(t, 0);
		get_task_struct(t);	/* keep it readable after it dies */
		ct_keep_oops_task(t);
		wake_up_process(t);
		wait_for_completion(&started);
		/*
		 * The thread oopses right after completing.  The dump runs in
		 * oops_exit(), before the thread is marked exiting, so once it
		 * is, the oops was reported and the next one may start.
		 */
		end = jiffies + 10 * HZ;
		while (!(READ_ONCE(t->flags) & PF_EXITING) &&
		       time_before(jiffies, end))
			schedule_timeout_uninterruptible(1);
		put_task_struct(t);
	}
	return 0;
}

/* hold_txq: the holder thread and what it holds. */
#define CT_HOLD_MAX_MS		60000
static struct task_struct *ct_holder;
static struct net_device *ct_hold_dev;
static unsigned int ct_hold_q;
static bool ct_hold_forever;
static bool ct_hold_noowner;
static DECLARE_COMPLETION(ct_hold_taken);

static int ct_hold_fn(void *arg)
{
	struct netdev_queue *txq = netdev_get_tx_queue(ct_hold_dev, ct_hold_q);
	unsigned long end = jiffies + msecs_to_jiffies(CT_HOLD_MAX_MS);

	while (!kthread_should_stop() && time_before(jiffies, end)) {
		if (ct_hold_noowner)
			spin_lock_bh(&txq->_xmit_lock);
		else
			__netif_tx_lock_bh(txq);
		complete(&ct_hold_taken);
		do {
			mdelay(50);
		} while (ct_hold_forever && !kthread_should_stop() &&
			 time_before(jiffies, end));
		if (ct_hold_noowner)
			spin_unlock_bh(&txq->_xmit_lock);
		else
			__netif_tx_unlock_bh(txq);
		udelay(1000);
		cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static void ct_release(void)
{
	if (!ct_holder)
		return;
	kthread_stop(ct_holder);
	put_task_struct(ct_holder);
	ct_holder = NULL;
	dev_put(ct_hold_dev);
	ct_hold_dev = NULL;
}

/* "DEV [Q [CPU]]" */
static int ct_hold_txq(char *args, bool forever, bool noowner)
{
	char *name = strsep(&args, " ");
	char *qs = strsep(&args, " "), *cpus = strsep(&args, " ");
	unsigned int q = 0, cpu = 1;
	struct task_struct *t;

	if (args || (qs && kstrtouint(qs, 0, &q)) ||
	    (cpus && kstrtouint(cpus, 0, &cpu)))
		return -EINVAL;
	if (ct_holder)
		return -EBUSY;
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -ENXIO;
	ct_hold_dev = dev_get_by_name(&init_net, name);
	if (!ct_hold_dev)
		return -ENODEV;
	if (q >= ct_hold_dev->real_num_tx_queues) {
		dev_put(ct_hold_dev);
		ct_hold_dev = NULL;
		return -EINVAL;
	}
	ct_hold_q = q;
	ct_hold_forever = forever;
	ct_hold_noowner = noowner;
	reinit_completion(&ct_hold_taken);
	t = kthread_create(ct_hold_fn, NULL, "ct_hold_txq");
	if (IS_ERR(t)) {
		dev_put(ct_hold_dev);
		ct_hold_dev = NULL;
		return PTR_ERR(t);
	}
	kthread_bind(t, cpu);
	get_task_struct(t);
	ct_holder = t;
	wake_up_process(t);
	if (!wait_for_completion_timeout(&ct_hold_taken, 10 * HZ)) {
		ct_release();
		return -ETIMEDOUT;
	}
	return 0;
}

static int ct_oops_holding_fn(void *arg)
{
	struct net_device *dev = arg;
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 0);

	__netif_tx_lock_bh(txq);
	ct_deref_null();
	__netif_tx_unlock_bh(txq);
	return 0;
}

/* The device reference is leaked on purpose: its tx lock stays held. */
static int ct_oops_holding_txq(const char *name)
{
	struct net_device *dev;
	struct task_struct *t;

	dev = dev_get_by_name(&init_net, name);
	if (!dev)
		return -ENODEV;
	t = kthread_create(ct_oops_holding_fn, dev, "ct_oops_txq");
	if (IS_ERR(t)) {
		dev_put(dev);
		return PTR_ERR(t);
	}
	kthread_bind(t, 0);
	get_task_struct(t);
	wake_up_process(t);
	/* as in ct_oops_kthreads(): the dump is sent once it is exiting */
	while (!(READ_ONCE(t->flags) & PF_EXITING))
		schedule_timeout_uninterruptible(1);
	put_task_struct(t);
	return 0;
}

/*
 * wait_txq_stopped: wait until tx queue 0 of @name is stopped (a NIC whose
 * ring the device no longer drains), -ETIMEDOUT after CT_WEDGE_WAIT_MS.
 */
#define CT_WEDGE_WAIT_MS	60000

static int ct_wait_txq_stopped(const char *name)
{
	unsigned long end = jiffies + msecs_to_jiffies(CT_WEDGE_WAIT_MS);
	struct net_device *dev;
	int err = -ETIMEDOUT;

	dev = dev_get_by_name(&init_net, name);
	if (!dev)
		return -ENODEV;
	while (time_before(jiffies, end)) {
		if (netif_xmit_stopped(netdev_get_tx_queue(dev, 0))) {
			err = 0;
			break;
		}
		if (msleep_interruptible(10)) {
			err = -EINTR;
			break;
		}
	}
	dev_put(dev);
	return err;
}

#ifdef CONFIG_X86
#define CT_NMI_WAIT_NS		(5 * NSEC_PER_SEC)

static atomic_t ct_nmi_armed = ATOMIC_INIT(0);
static atomic_t ct_nmi_spinning = ATOMIC_INIT(0);
static bool ct_nmi_registered;

static int ct_nmi(unsigned int type, struct pt_regs *regs)
{
	if (raw_smp_processor_id() != 0 || !atomic_xchg(&ct_nmi_armed, 0))
		return NMI_DONE;
	panic("netoops_crashtest: requested panic in NMI context");
}

/*
 * On CPU 0, from an IPI: interrupts off and no lock held, as in a hard
 * lockup.  Wait there for the NMI, at most CT_NMI_WAIT_NS.  The NMI then
 * never finds CPU 0 holding a lock CPU 1 spins on with interrupts off,
 * which would leave panic() only x86's NMI stop for CPU 1.
 */
static void ct_nmi_spin(void *unused)
{
	u64 end = local_clock() + CT_NMI_WAIT_NS;

	atomic_set(&ct_nmi_spinning, 1);
	while (atomic_read(&ct_nmi_armed) && local_clock() < end)
		cpu_relax();
	atomic_set(&ct_nmi_armed, 0);
	atomic_set(&ct_nmi_spinning, 0);
}

static int ct_panic_nmi(void)
{
	u64 end;
	int err;

	if (!ct_nmi_registered) {
		err = register_nmi_handler(NMI_LOCAL, ct_nmi, 0, "ct_panic");
		if (err)
			return err;
		ct_nmi_registered = true;
	}
	if (get_cpu() == 0) {
		put_cpu();
		return -EINVAL;	/* the NMI is for CPU 0, from elsewhere */
	}
	atomic_set(&ct_nmi_armed, 1);
	err = smp_call_function_single(0, ct_nmi_spin, NULL, 0);
	end = local_clock() + CT_NMI_WAIT_NS;
	while (!err && !atomic_read(&ct_nmi_spinning)) {
		if (local_clock() > end)
			err = -ETIMEDOUT;
		cpu_relax();
	}
	if (!err)
		apic->send_IPI(0, NMI_VECTOR);
	else
		atomic_set(&ct_nmi_armed, 0);
	put_cpu();
	return err;
}

static void ct_nmi_unregister(void)
{
	if (ct_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "ct_panic");
}
#else
static int ct_panic_nmi(void)
{
	return -EOPNOTSUPP;
}

static void ct_nmi_unregister(void)
{
}
#endif

static void ct_softlockup(unsigned int secs)
{
	u64 end = local_clock() + (u64)secs * NSEC_PER_SEC;

	pr_info("spinning with preemption disabled for up to %u s\n", secs);
	preempt_disable();
	while (local_clock() < end)
		cpu_relax();
	preempt_enable();
	pr_info("softlockup spin ended without a panic\n");
}

static int ct_count_cpu = -1;
static atomic_t ct_skb_allocs;

static int ct_alloc_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (raw_smp_processor_id() == READ_ONCE(ct_count_cpu))
		atomic_inc(&ct_skb_allocs);
	return 0;
}

static struct kprobe ct_alloc_kp = {
	.symbol_name	= "__alloc_skb",
	.pre_handler	= ct_alloc_pre,
};

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static void ct_alloc_report(struct kmsg_dumper *dumper,
			    struct kmsg_dump_detail *detail)
{
	enum kmsg_dump_reason reason = detail->reason;
#else
static void ct_alloc_report(struct kmsg_dumper *dumper,
			    enum kmsg_dump_reason reason)
{
#endif
	if (reason == KMSG_DUMP_PANIC)
		pr_emerg("skb allocations on the panicking CPU during the dump: %d\n",
			 atomic_read(&ct_skb_allocs));
}

static struct kmsg_dumper ct_alloc_dumper = {
	.dump	= ct_alloc_report,
};

/*
 * Exhaust what an atomic allocation can get: pages down to the reserves,
 * then the partial slabs of the caches skbs come from.  Nothing is freed:
 * the kernel panics right after.
 */
static void ct_exhaust_atomic(void)
{
	static const unsigned int sizes[] = {
		65536, 16384, 8192, 4096, 2048, 1024, 512, 256, 0
	};
	unsigned long pages = 0, skbs = 0;
	unsigned int i;

	while (alloc_page(GFP_ATOMIC | __GFP_NOWARN))
		pages++;
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		while (alloc_skb(sizes[i], GFP_ATOMIC | __GFP_NOWARN))
			skbs++;
	pr_info("took %lu pages and %lu skbs: atomic allocations now fail\n",
		pages, skbs);
}

static ssize_t ct_write(struct file *file, const char __user *ubuf,
			size_t count, loff_t *ppos)
{
	char buf[48], *arg, *word = NULL;
	unsigned int n = 0;
	int err = 0;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);
	arg = strchr(buf, ' ');
	if (arg) {
		*arg++ = '\0';
		word = skip_spaces(arg);
		if (strncmp(buf, "hold_txq", 8) && strcmp(buf, "oops_holding_txq") &&
		    strcmp(buf, "wait_txq_stopped") && kstrtouint(word, 0, &n))
			return -EINVAL;
	}

	if (!strcmp(buf, "reuses_oops_task")) {	/* polled: not logged */
		if (current != READ_ONCE(ct_oops_task) ||
		    raw_smp_processor_id() != 0)
			return -ESRCH;
		return count;
	}

	pr_info("trigger '%s'\n", buf);
	if (!strcmp(buf, "oops")) {
		ct_keep_oops_task(current);
		ct_deref_null();
	} else if (!strcmp(buf, "oops_kthread")) {
		if (n > CT_MAX_KTHREADS)
			return -EINVAL;
		err = ct_oops_kthreads(n ? n : 1);
	} else if (!strcmp(buf, "oops_softirq")) {
		mod_timer(&ct_timer, jiffies + 1);
	} else if (!strcmp(buf, "bug")) {
		BUG();
	} else if (!strcmp(buf, "warn")) {
		WARN(1, "netoops_crashtest: requested warning\n");
	} else if (!strcmp(buf, "softlockup")) {
		if (n > CT_SOFTLOCKUP_MAX_S)
			return -EINVAL;
		ct_softlockup(n ? n : 60);
	} else if (!strcmp(buf, "hold_txq") && word) {
		err = ct_hold_txq(word, false, false);
	} else if (!strcmp(buf, "hold_txq_forever") && word) {
		err = ct_hold_txq(word, true, false);
	} else if (!strcmp(buf, "hold_txq_noowner") && word) {
		err = ct_hold_txq(word, true, true);
	} else if (!strcmp(buf, "oops_holding_txq") && word) {
		err = ct_oops_holding_txq(word);
	} else if (!strcmp(buf, "panic_nmi")) {
		err = ct_panic_nmi();
	} else if (!strcmp(buf, "wait_txq_stopped") && word) {
		err = ct_wait_txq_stopped(word);
	} else if (!strcmp(buf, "free_oops_task")) {
		err = ct_free_oops_task();
	} else if (!strcmp(buf, "release")) {
		ct_release();
	} else if (!strcmp(buf, "panic")) {
		panic("netoops_crashtest: requested panic");
	} else if (!strcmp(buf, "panic_nomem")) {
		err = register_kprobe(&ct_alloc_kp);
		if (err)
			return err;
		err = kmsg_dump_register(&ct_alloc_dumper);
		if (err) {
			unregister_kprobe(&ct_alloc_kp);
			return err;
		}
		ct_exhaust_atomic();
		preempt_disable();
		WRITE_ONCE(ct_count_cpu, smp_processor_id());
		panic("netoops_crashtest: requested panic, out of memory");
	} else {
		return -EINVAL;
	}
	return err ? err : count;
}

static const struct proc_ops ct_proc_ops = {
	.proc_write	= ct_write,
	.proc_lseek	= noop_llseek,
};

static struct proc_dir_entry *ct_entry;

static int __init ct_init(void)
{
	ct_entry = proc_create("netoops_crashtest", 0200, NULL, &ct_proc_ops);
	if (!ct_entry)
		return -ENOMEM;
	pr_warn("loaded: this module crashes the kernel on request (test only)\n");
	return 0;
}

static void __exit ct_exit(void)
{
	proc_remove(ct_entry);
	ct_nmi_unregister();
	ct_release();
	if (ct_oops_ref)
		put_task_struct(ct_oops_ref);
	del_timer_sync(&ct_timer);
}

module_init(ct_init);
module_exit(ct_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("netoops test only: crash the kernel on request");
