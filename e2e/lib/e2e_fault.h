/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection for the guest programs of make faults, on the debug
 * kernel (debug/kunitconfig: CONFIG_FAULT_INJECTION and friends).
 *
 *	e2e_fault_setup();		// debugfs knobs, console quiet
 *	fd = e2e_kmsg_open();
 *	e2e_fault_arm(n);		// the n-th allocation of this task fails
 *	r = operation();
 *	left = e2e_fault_disarm();	// 0: it did; > 0: fewer than n
 *	e2e_fault_scan(fd, &pts, ...);	// where it failed, kernel reports
 *
 * e2e_fault_arm() writes n to /proc/thread-self/fail-nth: the n-th call of
 * this task (this thread only) to any fault point (failslab: slab
 * allocations; fail_page_alloc: page allocations) fails, once.  Both
 * knobs are set so that every allocation counts (also the sleeping ones
 * and order 0), and each failure logs "FAULT_INJECTION: forcing a failure"
 * with a stack trace (verbose 2, not rate limited).
 *
 * Messages without a level get level 5 and the console shows levels 0-4:
 * the traces of injected failures (dump_stack() without a level) stay in
 * the kernel log, where e2e_fault_scan() reads them (the failure point of
 * each is the first frame of its trace below the allocator), while
 * warnings and worse still reach the console.  A warning, lockdep or UBSAN
 * report there is echoed to the console as "# kernel report: <line>" (the
 * host's check of the console sees it) and counted.
 */
#ifndef E2E_FAULT_H
#define E2E_FAULT_H

#include "e2e_test.h"

#define E2E_DEBUGFS "/sys/kernel/debug"

static void e2e_fault_knob(const char *attr, const char *knob, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), E2E_DEBUGFS "/%s/%s", attr, knob);
	e2e_write_str(path, val);
}

/* debugfs mounted, both allocation fault points armed for fail-nth only
 * (probability 0: nothing fails unless a task asks), the console without
 * the traces. */
static void e2e_fault_setup(void)
{
	static const char *const attrs[] = { "failslab", "fail_page_alloc" };

	if (access(E2E_DEBUGFS "/failslab", F_OK)) {
		if (mount("debugfs", E2E_DEBUGFS, "debugfs", 0, NULL) && errno != EBUSY)
			E2E_FAIL("mount debugfs: %s", strerrorname_np(errno));
		if (access(E2E_DEBUGFS "/failslab", F_OK))
			E2E_FAIL("no " E2E_DEBUGFS "/failslab: not the debug kernel "
				 "(CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)?");
	}
	for (size_t i = 0; i < E2E_COUNT(attrs); i++) {
		e2e_fault_knob(attrs[i], "probability", "0");
		e2e_fault_knob(attrs[i], "interval", "1");
		e2e_fault_knob(attrs[i], "times", "-1");
		e2e_fault_knob(attrs[i], "verbose", "2");
		e2e_fault_knob(attrs[i], "verbose_ratelimit_interval_ms", "0");
		e2e_fault_knob(attrs[i], "ignore-gfp-wait", "N");
	}
	e2e_fault_knob("fail_page_alloc", "ignore-gfp-highmem", "N");
	e2e_fault_knob("fail_page_alloc", "min-order", "0");
	/* Messages without a level (the traces of injected failures) get
	 * level 5, which stays off the console; a warning (4) and worse still
	 * reaches it, a WARN's location line too when panic_on_warn stops
	 * the boot before the scan. */
	e2e_write_str("/proc/sys/kernel/printk", "5 5 1 7");
}

/* /proc/thread-self/fail-nth, opened before arming: opening it allocates,
 * and so would count; reading and writing it do not allocate.  Opened
 * again in a child (a fork's copy is still the parent's file). */
static int e2e_fail_nth_fd = -1;
static pid_t e2e_fail_nth_pid;

/* The n-th fault point this thread reaches from now on fails. */
static void e2e_fault_arm(unsigned int n)
{
	char v[16];
	int len = snprintf(v, sizeof(v), "%u", n);

	if (e2e_fail_nth_fd < 0 || e2e_fail_nth_pid != getpid()) {
		if (e2e_fail_nth_fd >= 0)
			close(e2e_fail_nth_fd);
		e2e_fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
		e2e_fail_nth_pid = getpid();
	}
	if (e2e_fail_nth_fd < 0)
		E2E_FAIL("open fail-nth: %s", strerrorname_np(errno));
	if (pwrite(e2e_fail_nth_fd, v, len, 0) != len)
		E2E_FAIL("arm fail-nth: %s", strerrorname_np(errno));
}

/* Disarm; returns what was left of n: 0 if the failure was injected. */
static unsigned int e2e_fault_disarm(void)
{
	char v[32];
	ssize_t len = pread(e2e_fail_nth_fd, v, sizeof(v) - 1, 0);

	if (len < 0)
		E2E_FAIL("read fail-nth: %s", strerrorname_np(errno));
	if (pwrite(e2e_fail_nth_fd, "0", 1, 0) != 1)
		E2E_FAIL("disarm fail-nth: %s", strerrorname_np(errno));
	v[len] = 0;
	return (unsigned int)strtoul(v, NULL, 10);
}

#define E2E_FAULT_MAX_POINTS 512

/* What the kernel log said since the last scan.  A failure injected into
 * an allocation that asked for __GFP_NOWARN is not logged (the kernel's
 * FAULT_NOWARN): it has no point here. */
struct e2e_fault_points {
	unsigned int logged;		/* "forcing a failure" lines */
	unsigned int unplaced;		/* of these, with no frame found */
	unsigned int count;		/* distinct failure points */
	char name[E2E_FAULT_MAX_POINTS][64];
	char last[64];			/* the point of the last failure */
	unsigned int reports;		/* kernel reports */
	char report[256];		/* the first one */
	int want_frame;			/* scanner state */
	int echo;			/* every record as "# log: <text>" */
	const char *echo_match;		/* and those containing this */
};

/* Frames of the allocators and of fault injection itself: a failure point
 * is the first frame of a trace that is none of these. */
static int e2e_fault_alloc_frame(const char *fn)
{
	static const char *const prefixes[] = {
		"dump_stack", "dump_backtrace", "show_stack",	/* arm64's first frames */
		"should_fail", "__should_fail", "fail_dump",
		"should_failslab", "kmem_cache_alloc", "__kmem_cache_alloc",
		"kmalloc", "__kmalloc", "kzalloc", "kvmalloc", "__kvmalloc",
		"kvzalloc", "krealloc", "__do_krealloc", "kmemdup", "kstrdup",
		"kstrndup", "kasprintf", "kvasprintf", "slab_", "__slab_",
		"___slab_alloc", "alloc_slab_page", "allocate_slab", "new_slab",
		"alloc_pages", "__alloc_pages", "alloc_page_interleave", "get_free_pages",
		"prepare_alloc_pages", "folio_alloc", "__folio_alloc",
		"vma_alloc_folio", "mempool_alloc", "__get_free_pages",
		"get_zeroed_page", "kasan_", "__kasan_", "stack_depot_",
		"__stack_depot_", "memdup_user",
	};

	for (size_t i = 0; i < E2E_COUNT(prefixes); i++)
		if (!strncmp(fn, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* Lines that are a kernel report on a debug kernel.  The failure report
 * of an injected allocation ("page allocation failure", its trace and
 * memory dump) is not one. */
static int e2e_fault_is_report(const char *text)
{
	static const char *const needles[] = {
		"WARNING:", "BUG:", "Oops", "KASAN", "UBSAN",
		"possible circular locking", "possible recursive locking",
		"inconsistent lock state", "suspicious RCU usage",
		"sleeping function called", "list_add corruption",
		"list_del corruption", "general protection fault",
		"Kernel panic", "kernel BUG",
	};

	for (size_t i = 0; i < E2E_COUNT(needles); i++)
		if (strstr(text, needles[i]))
			return 1;
	return 0;
}

static void e2e_fault_add_point(struct e2e_fault_points *p, const char *fn)
{
	for (unsigned int i = 0; i < p->count; i++)
		if (!strcmp(p->name[i], fn))
			return;
	if (p->count < E2E_FAULT_MAX_POINTS)
		snprintf(p->name[p->count++], sizeof(p->name[0]), "%s", fn);
}

/* Read every kernel log record since the last call: count injected
 * failures and their points, and reports (echoed to the console). */
static void e2e_fault_scan(int fd, struct e2e_fault_points *p)
{
	char rec[4096];

	while (e2e_kmsg_next(fd, rec, sizeof(rec))) {
		char *text, *fn, *end;

		rec[strcspn(rec, "\n")] = 0;	/* the record, not its dict */
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		/* (the host takes a "Call Trace" line for a kernel report) */
		if ((p->echo || (p->echo_match && strstr(text, p->echo_match))) &&
		    !strstr(text, "Call Trace") && !e2e_fault_is_report(text))
			e2e_line("# log: %s", text);
		if (strstr(text, "FAULT_INJECTION: forcing a failure")) {
			if (p->want_frame)
				p->unplaced++;
			p->logged++;
			p->want_frame = 1;
			continue;
		}
		if (e2e_fault_is_report(text)) {
			if (!p->reports++)
				snprintf(p->report, sizeof(p->report), "%.255s", text);
			e2e_line("# kernel report: %s", text);
			continue;
		}
		if (!p->want_frame)
			continue;
		/* a frame: "  name+0x1a/0x40", "  ? name+0x..." */
		fn = text + strspn(text, " \t");
		if (*fn == '?' || *fn == '<')
			continue;
		end = strstr(fn, "+0x");
		if (!end || end == fn)
			continue;
		*end = 0;
		if (strchr(fn, ' ') || e2e_fault_alloc_frame(fn))
			continue;
		e2e_fault_add_point(p, fn);
		snprintf(p->last, sizeof(p->last), "%s", fn);
		p->want_frame = 0;
	}
}

/* "# <what>: N failure points: a b c ..." (the first ones), a line. */
static void e2e_fault_print_points(const char *what,
				   const struct e2e_fault_points *p)
{
	char list[700] = "";
	size_t len = 0;

	for (unsigned int i = 0; i < p->count && len < sizeof(list) - 80; i++)
		len += snprintf(list + len, sizeof(list) - len, " %s", p->name[i]);
	e2e_diag("%s: %u failure points:%s%s", what, p->count, list,
		 len >= sizeof(list) - 80 ? " ..." : "");
}

#endif /* E2E_FAULT_H */
