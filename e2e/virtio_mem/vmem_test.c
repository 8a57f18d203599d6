// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of the virtio-mem end-to-end run (e2e/virtio_mem/run).
 *
 * The machine has two virtio-mem devices, both with a 4 GiB region:
 *   vm0: block-size=2M -> the driver uses Sub Block Mode (SBM),
 *   vm1: block-size=1G -> larger than a memory block: Big Block Mode (BBM).
 * The kernel onlines hot-added memory itself (memhp_default_state=
 * online_movable): every hot-added memory block lands in ZONE_MOVABLE.
 *
 * The host changes a device's requested-size when asked: host("set vm0
 * <bytes> <timeout>") prints "e2e-sync: vm <pid>.<n> set ..." and reads
 * the host's answer from the console (e2e_host_sync()).  Host commands and
 * answers (see vmem.py):
 *   hello <MemTotal kB>         -> "<baseline kB> <test> <test>..."
 *   info                        -> "<id> <addr> <max> <block> ..." per device
 *   set <id> <bytes> <s> [ev] [stall]
 *                               -> "ok <size> <ms> [ev=<ms>|ev=none]",
 *                                  "timeout <size> <ms>", "error <QMP text>",
 *                                  with stall "stalled <size> <ms>" once the
 *                                  size stood still for 20 s (vmem.py)
 *   request <id> <bytes>        -> "ok" at once (qom-set only), "error ..."
 *   settle <id> <bytes> <s> <stable s> -> like set, or "settled <size> <ms>"
 *                                  when size stopped moving short of it
 *   wait <id> <s>               -> size reaches requested-size: "ok ..."
 *   query <id>                  -> "<size> <requested-size>"
 *   reboot                      -> the host resets the machine (no answer)
 *
 * What the guest checks after every size change: MemTotal moves by exactly
 * the size change (kB), the memory blocks in the device's region are
 * online, in ZONE_MOVABLE, as many as the size needs, and the kernel log
 * has no virtio_mem warning/error and no OOM or allocation failure.
 *
 * bbm_pinned_unplug, bbm_offline_error and sbm_offline_error each show one
 * of the 6.5 fixes (6.1's series backports them) at work: each fails on
 * a kernel without its fix (the mutants that revert them);
 * sbm_request_changes runs the scenario of the fourth 6.5 fix;
 * race_bbm_sysfs the one of "mm/page_alloc: don't undo another caller's
 * isolation".
 * Failing offlining is injected through debugfs (notifier-error-inject).
 */
#include "e2e_fault.h"
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/uio.h>

#define KiB ((uint64_t)1024)
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)
#define VMEM_MIN(a, b) ((a) < (b) ? (a) : (b))

struct vdev {
	char id[16];
	uint64_t addr, max, block;
	int bbm;		/* expected mode */
};

static struct vdev devs[2];	/* [0] vm0 (SBM), [1] vm1 (BBM) */
static int ndevs;
static long baseline_kb;	/* MemTotal with nothing plugged (boot 1) */
static uint64_t mb_size;	/* Linux memory block size */
static int seq;
/* Set by a test on an idle machine, where the driver never has to wait for
 * its retry timer: resize() asks the host to give up once the size stands
 * still ("stall"), so a broken unplug is red in seconds. */
static int idle_machine;

#define SBM (&devs[0])
#define BBM (&devs[1])

/* ---- host requests -------------------------------------------------------- */

static __attribute__((format(printf, 4, 5)))
void host(char *ans, size_t size, int timeout, const char *fmt, ...)
{
	char cmd[100], tag[140];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(tag, sizeof(tag), "vm %d.%d %s", (int)getpid(), ++seq, cmd);
	e2e_host_sync(tag, ans, size, timeout);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *sz(uint64_t b, char *buf)
{
	if (b && !(b % GiB))
		sprintf(buf, "%" PRIu64 "G", b / GiB);
	else
		sprintf(buf, "%" PRIu64 "M", b / MiB);
	return buf;
}

/* ---- /proc/meminfo, memory blocks ------------------------------------------ */

static long meminfo(const char *key)
{
	char buf[8192], *p;

	if (e2e_get_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		E2E_FAIL("read /proc/meminfo: %s", strerrorname_np(errno));
	p = strstr(buf, key);
	E2E_ASSERT(p, "no %s in /proc/meminfo", key);
	return strtol(p + strlen(key), NULL, 10);
}

#define memtotal() meminfo("MemTotal:")

struct blocks {
	int online, offline, movable, other;
	char bad[400];		/* the first block not online+Movable */
};

/* Is entry e of /sys/devices/system/memory a memory block in d's region?
 * Its number goes to *id. */
static int block_of(const struct dirent *e, const struct vdev *d, long *id)
{
	uint64_t start;

	if (strncmp(e->d_name, "memory", 6) || !isdigit(e->d_name[6]))
		return 0;
	*id = strtol(e->d_name + 6, NULL, 10);
	start = (uint64_t)*id * mb_size;
	return start >= d->addr && start < d->addr + d->max;
}

/* The memory blocks of /sys/devices/system/memory in d's region. */
static void count_blocks(const struct vdev *d, struct blocks *b)
{
	DIR *dir = opendir("/sys/devices/system/memory");
	struct dirent *e;
	char p[320], s[64], z[128];

	memset(b, 0, sizeof(*b));
	E2E_ASSERT(dir, "opendir /sys/devices/system/memory: %s",
		   strerrorname_np(errno));
	while ((e = readdir(dir))) {
		long id;

		if (!block_of(e, d, &id))
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/memory/%s/state",
			 e->d_name);
		if (e2e_get_file(p, s, sizeof(s)) < 0)
			continue;	/* removed meanwhile */
		s[strcspn(s, "\n")] = 0;
		snprintf(p, sizeof(p), "/sys/devices/system/memory/%s/valid_zones",
			 e->d_name);
		if (e2e_get_file(p, z, sizeof(z)) < 0)
			z[0] = 0;
		z[strcspn(z, "\n")] = 0;
		if (!strcmp(s, "online")) {
			b->online++;
			/* an online block's valid_zones is its zone */
			if (!strcmp(z, "Movable")) {
				b->movable++;
				continue;
			}
		} else if (!strcmp(s, "offline")) {
			b->offline++;
		} else {
			b->other++;
		}
		if (!b->bad[0])
			snprintf(b->bad, sizeof(b->bad), "%s %s [%s]",
				 e->d_name, s, z);
	}
	closedir(dir);
}

/* ---- the kernel log ------------------------------------------------------ */

/* Is a /dev/kmsg record ("prio,seq,usec,flags;text\n KEY=..") bad news? */
static int kmsg_bad(const char *rec, int level)
{
	return (level <= 4 && strstr(rec, "virtio_mem")) ||
	       strstr(rec, "Out of memory") || strstr(rec, "oom-kill") ||
	       strstr(rec, "oom_reaper") ||
	       strstr(rec, "page allocation failure");
}

/*
 * Read the records of fd that are new since the last call: echo the
 * virtio_mem ones and any warning or worse as "# kmsg:" lines; fail the test
 * on a bad one (kmsg_bad), except records containing allow (if not NULL),
 * which the test expects: *nallow counts them.  Returns how many virtio_mem
 * records there were.
 */
static int kmsg_scan_allow(int fd, const char *what, const char *allow,
			   int *nallow)
{
	char rec[2048], bad[2048] = "";
	int nvm = 0;
	ssize_t n;

	for (;;) {
		int level;
		char *text;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		level = atoi(rec) & 7;
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		text[strcspn(text, "\n")] = 0;
		if (strstr(text, "virtio_mem"))
			nvm++;
		if (strstr(text, "virtio_mem") || level <= 4)
			e2e_diag("kmsg: <%d> %s", level, text);
		if (allow && strstr(text, allow)) {
			++*nallow;
			continue;
		}
		if (kmsg_bad(text, level) && !bad[0])
			snprintf(bad, sizeof(bad), "%s", text);
	}
	if (bad[0])
		E2E_FAIL("kernel log (%s): %s", what, bad);
	return nvm;
}

static int kmsg_scan(int fd, const char *what)
{
	return kmsg_scan_allow(fd, what, NULL, NULL);
}

/* The whole kernel log since boot (a fresh /dev/kmsg reader). */
static int kmsg_from_boot(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		E2E_FAIL("open /dev/kmsg: %s", strerrorname_np(errno));
	return fd;
}

/*
 * The last record since boot containing both a and b, copied to rec (size
 * 2048); 0 if there is none.
 */
static int kmsg_boot_find(const char *a, const char *b, char *rec)
{
	char r[2048];
	int fd = kmsg_from_boot(), found = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, r, sizeof(r) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		r[n] = 0;
		if (strstr(r, a) && strstr(r, b)) {
			memcpy(rec, r, n + 1);
			found = 1;
		}
	}
	close(fd);
	return found;
}

/* Is there a record since boot containing both a and b? */
static int kmsg_boot_has(const char *a, const char *b)
{
	char rec[2048];

	return kmsg_boot_find(a, b, rec);
}

/* The driver's "virtioN" of the device at d->addr, from its probe lines. */
static void dev_name(const struct vdev *d, char *name, size_t size)
{
	char rec[2048], want[64], *p;

	snprintf(want, sizeof(want), "start address: 0x%" PRIx64 "\n", d->addr);
	E2E_ASSERT(kmsg_boot_find("virtio_mem virtio", want, rec),
		   "no 'virtio_mem virtioN: start address: 0x%" PRIx64
		   "' in the kernel log", d->addr);
	p = strstr(rec, "virtio_mem virtio") + strlen("virtio_mem ");
	snprintf(name, size, "%.*s", (int)strcspn(p, ":"), p);
}

/* ---- size changes and their checks ---------------------------------------- */

/* Wait (up to timeout_s) for MemTotal == want; returns ms waited. */
static double wait_memtotal(long want, int timeout_s, const char *what)
{
	double t0 = now_ms();
	long m;

	while ((m = memtotal()) != want) {
		if (now_ms() - t0 > timeout_s * 1e3)
			E2E_FAIL("%s: MemTotal %ld kB, expected %ld kB (baseline "
				 "%+ld kB, off by %+ld kB) after %d s", what, m,
				 want, want - baseline_kb, m - want, timeout_s);
		usleep(20000);
	}
	return now_ms() - t0;
}

/* How many memory blocks does size bytes of d take, at least / at most? */
static void expected_blocks(const struct vdev *d, uint64_t size, int *lo,
			    int *hi)
{
	*lo = (size + mb_size - 1) / mb_size;
	*hi = *lo;
	(void)d;
}

/* Wait until d's region has the expected number of blocks, all online and
 * Movable, none offline. */
static void check_blocks(const struct vdev *d, uint64_t size, int exact,
			 const char *what)
{
	struct blocks b;
	int lo, hi;
	double t0 = now_ms();

	expected_blocks(d, size, &lo, &hi);
	if (!exact)
		hi = d->max / mb_size;
	for (;;) {
		count_blocks(d, &b);
		if (b.online >= lo && b.online <= hi && b.movable == b.online &&
		    !b.offline && !b.other)
			return;
		if (now_ms() - t0 > 30e3)
			E2E_FAIL("%s: %s has %d online (%d Movable), %d offline, "
				 "%d other memory blocks; expected %d..%d online "
				 "Movable (first odd one: %s)", what, d->id,
				 b.online, b.movable, b.offline, b.other, lo, hi,
				 b.bad[0] ? b.bad : "-");
		usleep(50000);
	}
}

struct step {
	uint64_t size;		/* reached size */
	double host_ms;		/* QEMU: request to size reached */
	double guest_ms;	/* guest: request to MemTotal reached */
	double ev_ms;		/* MEMORY_DEVICE_SIZE_CHANGE, -1: none */
};

/* The device's current size and requested-size, from QEMU. */
static void query(const struct vdev *d, uint64_t *size, uint64_t *req)
{
	char ans[200];

	host(ans, sizeof(ans), 30, "query %s", d->id);
	E2E_ASSERT(sscanf(ans, "%" SCNu64 " %" SCNu64, size, req) == 2,
		   "query %s: answer '%s'", d->id, ans);
}

/*
 * A size not reached: what the guest looks like, for the report.  The
 * driver's new kernel messages, then each of d's memory blocks (state,
 * zone), the buddy allocator's free lists and the migration and
 * compaction counters.
 */
static void stuck_diag(const struct vdev *d, int kfd)
{
	static const char *const files[] = { "/proc/buddyinfo", "/proc/vmstat",
					     "/proc/interrupts" };
	DIR *dir = opendir("/sys/devices/system/memory");
	char p[320], s[64], z[128], buf[16384], *l, *save;
	struct dirent *e;
	int n = 0;

	/* echoed, none fatal here: the caller fails */
	kmsg_scan_allow(kfd, "stuck", "", &n);
	while (dir && (e = readdir(dir))) {
		long id;

		if (!block_of(e, d, &id))
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/memory/%s/state", e->d_name);
		if (e2e_get_file(p, s, sizeof(s)) < 0)
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/memory/%s/valid_zones",
			 e->d_name);
		if (e2e_get_file(p, z, sizeof(z)) < 0)
			z[0] = 0;
		s[strcspn(s, "\n")] = 0;
		z[strcspn(z, "\n")] = 0;
		e2e_diag("stuck: %s %s: %s [%s]", d->id, e->d_name, s, z);
	}
	if (dir)
		closedir(dir);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (e2e_get_file(files[i], buf, sizeof(buf)) < 0)
			continue;
		for (l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (i == 0 || strstr(l, "virtio") || !strncmp(l, "pgmigrate", 9) ||
			    !strncmp(l, "compact", 7) || !strncmp(l, "nr_free", 7) ||
			    !strncmp(l, "nr_isolated", 11))
				e2e_diag("stuck: %s: %s", files[i], l);
	}
	/* the kernel workers and every task in D state: where they wait */
	dir = opendir("/proc");
	while (dir && (e = readdir(dir))) {
		char comm[64] = "", top[256];
		pid_t pid = atoi(e->d_name);

		if (pid <= 0)
			continue;
		snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
		if (e2e_get_file(p, comm, sizeof(comm)) < 0)
			continue;
		comm[strcspn(comm, "\n")] = 0;
		snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
		if (e2e_get_file(p, buf, sizeof(buf)) < 0 || !strrchr(buf, ')'))
			continue;
		if (strncmp(comm, "kworker", 7) && strrchr(buf, ')')[2] != 'D')
			continue;
		e2e_diag("stuck: task %d %s", (int)pid, comm);
		e2e_show_stack(pid, top, sizeof(top));
	}
	if (dir)
		closedir(dir);
}

/*
 * Ask for d at bytes; check: QEMU reports the size within timeout_s,
 * MemTotal moved by exactly the difference (or, want_kb >= 0, is want_kb),
 * the blocks are online/Movable in the right number (exact: for a fresh
 * sequence of plugs and unplugs), the driver logged nothing bad (kfd: a
 * reader of /dev/kmsg).
 */
static struct step resize_to(const struct vdev *d, uint64_t bytes,
			     int timeout_s, int want_event, int exact, int kfd,
			     long want_kb)
{
	struct step st = { .ev_ms = -1 };
	uint64_t old, req;
	long m0, want;
	char ans[300], what[80], a[16], b[16];
	double t0;

	query(d, &old, &req);
	m0 = memtotal();
	snprintf(what, sizeof(what), "%s %s -> %s", d->id, sz(old, a),
		 sz(bytes, b));
	t0 = now_ms();
	host(ans, sizeof(ans), timeout_s + 30, "set %s %" PRIu64 " %d%s%s", d->id,
	     bytes, timeout_s, want_event ? " ev" : "",
	     idle_machine ? " stall" : "");
	if (strncmp(ans, "ok ", 3)) {
		stuck_diag(d, kfd);
		E2E_FAIL("%s: host: %s", what, ans);
	}
	sscanf(ans + 3, "%" SCNu64 " %lf", &st.size, &st.host_ms);
	if (strstr(ans, "ev=") && !strstr(ans, "ev=none"))
		st.ev_ms = atof(strstr(ans, "ev=") + 3);
	E2E_ASSERT(st.size == bytes, "%s: size %" PRIu64, what, st.size);
	if (want_event)
		E2E_ASSERT(st.ev_ms >= 0, "%s: no MEMORY_DEVICE_SIZE_CHANGE "
			   "event with the new size", what);
	want = want_kb >= 0 ? want_kb :
		m0 + (long)((int64_t)(bytes - old) / (int64_t)KiB);
	wait_memtotal(want, 60, what);
	st.guest_ms = now_ms() - t0;
	check_blocks(d, bytes, exact, what);
	kmsg_scan(kfd, what);
	e2e_diag("%s: QEMU size in %.0f ms%s, MemTotal %ld kB (%+ld) in %.0f ms,"
		 " MemFree %ld kB", what, st.host_ms,
		 want_event ? (st.ev_ms >= 0 ? ", event" : ", NO event") : "",
		 want, want - baseline_kb, st.guest_ms, meminfo("MemFree:"));
	return st;
}

static struct step resize(const struct vdev *d, uint64_t bytes, int timeout_s,
			  int want_event, int exact, int kfd)
{
	return resize_to(d, bytes, timeout_s, want_event, exact, kfd, -1);
}

/* Both devices at 0 and MemTotal at the baseline: the start of every test
 * (after putting back to 0 what an earlier, failed, test left plugged).
 * At the start, memory that cannot be unplugged stops the run: every later
 * test would wait for it again (E2E_REQUIRE). */
static void expect_idle(const char *when)
{
	for (int i = 0; i < ndevs; i++) {
		uint64_t size, req;
		char ans[300];

		query(&devs[i], &size, &req);
		if ((size || req) && !strcmp(when, "start")) {
			e2e_diag("%s left at %" PRIu64 " MiB (requested %" PRIu64
				 " MiB) by an earlier test: asking for 0",
				 devs[i].id, size / MiB, req / MiB);
			host(ans, sizeof(ans), 90, "set %s 0 60 stall", devs[i].id);
			query(&devs[i], &size, &req);
			E2E_REQUIRE(size == 0 && req == 0, "%s: %s has size %"
				    PRIu64 " requested %" PRIu64 " after asking "
				    "for 0 (host: %s)", when, devs[i].id, size,
				    req, ans);
		}
		E2E_ASSERT(size == 0 && req == 0, "%s: %s has size %" PRIu64
			   " requested %" PRIu64, when, devs[i].id, size, req);
	}
	E2E_ASSERT(memtotal() == baseline_kb, "%s: MemTotal %ld kB, baseline "
		   "%ld kB", when, memtotal(), baseline_kb);
}

static void expect_mode(const struct vdev *d)
{
	char name[32], bbs[64];

	dev_name(d, name, sizeof(name));
	if (d->bbm) {
		snprintf(bbs, sizeof(bbs), "big block size: 0x%" PRIx64,
			 d->block > mb_size ? d->block : mb_size);
		E2E_ASSERT(kmsg_boot_has(name, bbs), "%s (%s): no '%s' in the "
			   "kernel log: not in Big Block Mode", d->id, name, bbs);
	} else {
		E2E_ASSERT(kmsg_boot_has(name, "subblock size: 0x"),
			   "%s (%s): no 'subblock size' in the kernel log: not "
			   "in Sub Block Mode", d->id, name);
	}
	e2e_diag("%s is %s, in %s", d->id, name,
		 d->bbm ? "Big Block Mode" : "Sub Block Mode");
}

/* ---- the scenarios ------------------------------------------------------- */

/* d through steps (each with the event), from and back to the baseline. */
static void grow_shrink(const struct vdev *d, const uint64_t *steps, size_t n)
{
	int kfd = e2e_kmsg_open();

	idle_machine = 1;
	expect_idle("start");
	expect_mode(d);
	for (size_t i = 0; i < n; i++)
		resize(d, steps[i], 120, 1, 1, kfd);
	E2E_ASSERT(memtotal() == baseline_kb, "MemTotal %ld kB at the end, "
		   "baseline %ld", memtotal(), baseline_kb);
}

/* 0 -> 1G -> 3G -> 512M -> 0 in 2 MiB device blocks. */
static void t_sbm_grow_shrink(void)
{
	static const uint64_t steps[] = { 1 * GiB, 3 * GiB, 512 * MiB, 0 };

	grow_shrink(SBM, steps, E2E_COUNT(steps));
}

/* The same in 1 GiB device blocks: Big Block Mode. */
static void t_bbm_grow_shrink(void)
{
	static const uint64_t steps[] = { 1 * GiB, 3 * GiB, 1 * GiB, 0 };

	grow_shrink(BBM, steps, E2E_COUNT(steps));
}

/* ---- unplug under use ----- */

static uint64_t pattern(size_t i)
{
	return (i + 1) * 0x9E3779B97F4A7C15ULL ^ 0x5bd1e995a5a5a5a5ULL;
}

static void fill(uint64_t *p, size_t words)
{
	for (size_t i = 0; i < words; i++)
		p[i] = pattern(i);
}

/* Every word still holds its pattern; returns a checksum. */
static uint64_t verify(const uint64_t *p, size_t words, const char *when)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < words; i++) {
		if (p[i] != pattern(i))
			E2E_FAIL("%s: data changed at byte %zu: %#" PRIx64
				 " instead of %#" PRIx64, when, i * 8, p[i],
				 pattern(i));
		sum = (sum ^ p[i]) * 0x100000001b3ULL;
	}
	return sum;
}

/* Physical frames of buf's pages (pagemap; root sees the PFNs); returns
 * how many lie in d's region. */
static size_t frames(const void *buf, size_t len, const struct vdev *d,
		     uint64_t *pfn)
{
	size_t pages = len / 4096, in = 0, done = 0;
	uint64_t ent[4096];
	int fd = E2E_OK(open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
	off_t off = (uintptr_t)buf / 4096 * 8;

	while (done < pages) {
		size_t n = pages - done < 4096 ? pages - done : 4096;
		ssize_t r = pread(fd, ent, n * 8, off + done * 8);

		E2E_ASSERT(r == (ssize_t)(n * 8), "pagemap read: %zd", r);
		for (size_t i = 0; i < n; i++) {
			uint64_t f, pa;

			/*
			 * A page being migrated (compaction, or the driver
			 * making room) reads as not present until the
			 * migration ends: touch it and read its entry again.
			 * A slow (debug) kernel shows this window.
			 */
			for (int t = 0; !(ent[i] >> 63) && t < 100; t++) {
				(void)*(volatile const char *)((const char *)buf +
							       (done + i) * 4096);
				usleep(1000);
				E2E_ASSERT(pread(fd, &ent[i], 8, off + (done + i) * 8) == 8,
					   "pagemap read");
			}
			E2E_ASSERT(ent[i] >> 63, "page %zu not present", done + i);
			f = ent[i] & ((1ULL << 55) - 1);
			pa = f * 4096;
			if (pa >= d->addr && pa < d->addr + d->max)
				in++;
			if (pfn)
				pfn[done + i] = f;
		}
		done += n;
	}
	close(fd);
	return in;
}

/* The driver's subblock size of d (SBM), from its probe lines. */
static uint64_t sb_size(const struct vdev *d)
{
	char rec[2048], name[32], want[64];
	uint64_t sb = 0;

	dev_name(d, name, sizeof(name));
	snprintf(want, sizeof(want), "virtio_mem %s: subblock size: 0x", name);
	if (kmsg_boot_find(want, want, rec))
		sb = strtoull(strstr(rec, want) + strlen(want), NULL, 16);
	E2E_ASSERT(sb, "no '%s' in the kernel log", want);
	return sb;
}

static void *map_filled(size_t len)
{
	void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	E2E_ASSERT(buf != MAP_FAILED, "mmap %zu: %s", len,
		   strerrorname_np(errno));
	fill(buf, len / 8);
	return buf;
}

/*
 * Pin up to max pages of buf (pfn: their frames) that lie in different
 * subblocks of d's region: a pipe holds a reference to each (vmsplice
 * without SPLICE_F_GIFT), which makes them unmovable until the pipe is
 * closed.  Returns the pipe's write end; *npinned: how many.
 */
static int pin_pages(void *buf, const uint64_t *pfn, size_t pages,
		     const struct vdev *d, uint64_t sb, int max, int *npinned)
{
	struct iovec iov[256];
	uint64_t used[256];
	int fds[2], n = 0;
	ssize_t r;

	E2E_ASSERT(max <= 256, "max %d", max);
	for (size_t i = 0; i < pages && n < max; i++) {
		uint64_t pa = pfn[i] * 4096, unit;
		int dup = 0;

		if (pa < d->addr || pa >= d->addr + d->max)
			continue;
		unit = (pa - d->addr) / sb;
		for (int j = 0; j < n; j++)
			dup |= used[j] == unit;
		if (dup)
			continue;
		used[n] = unit;
		iov[n].iov_base = (char *)buf + i * 4096;
		iov[n].iov_len = 4096;
		n++;
	}
	E2E_OK(pipe2(fds, O_CLOEXEC));
	E2E_OK(fcntl(fds[1], F_SETPIPE_SZ, 256 * 4096));
	r = vmsplice(fds[1], iov, n, 0);
	E2E_ASSERT(r == (ssize_t)n * 4096, "vmsplice of %d pages: %zd (%s)", n,
		   r, strerrorname_np(errno));
	*npinned = n;
	close(fds[0]);		/* the write end keeps the pipe (and pins) */
	return fds[1];
}

/*
 * Unplug under use, on vm0 (SBM):
 *
 * A. Plug 1.5G, fill a 640 MiB buffer (user memory goes to ZONE_MOVABLE
 *    first: it lands in vm0's memory), ask for 512M.  Possible only by
 *    migrating buffer pages out of the memory to unplug: size must reach
 *    512M, data intact, at least (buffer in vm0 - 512M) migrated.
 * B. Free it, fill a 128 MiB buffer (in vm0's memory again) and pin 16 of
 *    its pages in different subblocks; ask for 0.  The driver unplugs
 *    everything else (migrating the rest of the buffer) and stops: size
 *    settles > 0, at least one subblock per pinned page, below 512M; data
 *    intact; MemTotal = baseline + size.  Unpin, ask again (128M, then 0:
 *    a new request makes the driver retry at once, not after its 50 s
 *    retry timer): 0 is reached, the buffer all migrated, data intact.
 *
 * (Asking for more than the guest can spare at all, e.g. 0 while the
 * buffer of A is in use, is no test for the gate: 6.1's alloc_contig_range
 * then logs "page allocation failure" warnings with a call trace.)
 */
static void t_unplug_under_use(void)
{
	const size_t len = 640 * MiB, pages = len / 4096;
	const size_t len2 = 128 * MiB, pages2 = len2 / 4096;
	int kfd = e2e_kmsg_open(), pipe_fd, npinned;
	uint64_t *buf, *pfn0, *pfn1, size, req, sum0, sum, sb;
	size_t in0, in1, moved = 0;
	char ans[300];
	long m;

	expect_idle("start");
	sb = sb_size(SBM);
	resize(SBM, 1536 * MiB, 120, 0, 1, kfd);

	/* A: migration */
	pfn0 = calloc(pages, 8);
	pfn1 = calloc(pages, 8);
	E2E_ASSERT(pfn0 && pfn1, "calloc");
	buf = map_filled(len);
	sum0 = verify(buf, len / 8, "after filling");
	in0 = frames(buf, len, SBM, pfn0);
	e2e_diag("A: buffer %zu MiB, %zu MiB of it in vm0's memory, checksum "
		 "%016" PRIx64 ", MemFree %ld kB", (size_t)(len / MiB),
		 (size_t)(in0 * 4096 / MiB), sum0, meminfo("MemFree:"));
	E2E_ASSERT(in0 * 4096 > 512 * MiB, "only %zu MiB of the buffer in "
		   "vm0's memory: shrinking to 512M would not need migration",
		   (size_t)(in0 * 4096 / MiB));
	resize(SBM, 512 * MiB, 180, 0, 0, kfd);
	sum = verify(buf, len / 8, "after shrinking to 512M");
	in1 = frames(buf, len, SBM, pfn1);
	for (size_t i = 0; i < pages; i++)
		moved += pfn0[i] != pfn1[i];
	e2e_diag("A: after 1.5G -> 512M: %zu MiB of the buffer in vm0's memory,"
		 " %zu MiB migrated, checksum %016" PRIx64,
		 (size_t)(in1 * 4096 / MiB), (size_t)(moved * 4096 / MiB), sum);
	E2E_ASSERT(in1 * 4096 <= 512 * MiB, "%zu MiB of the buffer still in "
		   "vm0's memory, which has 512 MiB plugged",
		   (size_t)(in1 * 4096 / MiB));
	E2E_ASSERT(moved >= in0 - 512 * MiB / 4096, "only %zu pages migrated, "
		   "%zu needed", moved, (size_t)(in0 - 512 * MiB / 4096));
	munmap(buf, len);

	/* B: pinned pages */
	buf = map_filled(len2);
	sum0 = verify(buf, len2 / 8, "after filling");
	in0 = frames(buf, len2, SBM, pfn0);
	pipe_fd = pin_pages(buf, pfn0, pages2, SBM, sb, 16, &npinned);
	e2e_diag("B: buffer %zu MiB, %zu MiB of it in vm0's memory, %d pages "
		 "pinned in different %" PRIu64 " KiB subblocks",
		 (size_t)(len2 / MiB), (size_t)(in0 * 4096 / MiB), npinned,
		 sb / KiB);
	E2E_ASSERT(npinned >= 8, "only %d pages of the buffer to pin in vm0's "
		   "memory", npinned);
	host(ans, sizeof(ans), 200, "settle %s 0 120 5", SBM->id);
	e2e_diag("B: asking for 0 with %d pinned pages: host: %s", npinned, ans);
	E2E_ASSERT(!strncmp(ans, "settled ", 8), "asking for 0 with %d pinned "
		   "pages: host: %s", npinned, ans);
	query(SBM, &size, &req);
	sum = verify(buf, len2 / 8, "after asking for 0");
	E2E_ASSERT(sum == sum0, "checksum changed");
	in1 = frames(buf, len2, SBM, pfn1);
	moved = 0;
	for (size_t i = 0; i < pages2; i++)
		moved += pfn0[i] != pfn1[i];
	m = memtotal();
	e2e_diag("B: vm0 stopped at %" PRIu64 " MiB (requested 0; %d pinned "
		 "subblocks = %" PRIu64 " MiB), %zu MiB of the buffer migrated, "
		 "%zu MiB still in vm0's memory, MemTotal %ld kB, MemFree %ld kB",
		 size / MiB, npinned, npinned * sb / MiB,
		 (size_t)(moved * 4096 / MiB), (size_t)(in1 * 4096 / MiB), m,
		 meminfo("MemFree:"));
	E2E_ASSERT(size >= npinned * sb && size < 512 * MiB, "size %" PRIu64
		   " MiB after asking for 0 with %d pinned pages", size / MiB,
		   npinned);
	E2E_ASSERT(m == baseline_kb + (long)(size / KiB), "MemTotal %ld kB, "
		   "expected baseline + size = %ld kB", m,
		   baseline_kb + (long)(size / KiB));
	check_blocks(SBM, size, 0, "after asking for 0 with pinned pages");
	kmsg_scan(kfd, "asking for 0 with pinned pages");

	close(pipe_fd);		/* unpin */
	resize(SBM, 128 * MiB, 120, 0, 0, kfd);
	resize(SBM, 0, 120, 0, 1, kfd);
	sum = verify(buf, len2 / 8, "after unplugging everything");
	E2E_ASSERT(sum == sum0, "checksum changed");
	E2E_ASSERT(frames(buf, len2, SBM, NULL) == 0, "buffer pages still in "
		   "vm0's memory at size 0");
	munmap(buf, len2);
	E2E_ASSERT(memtotal() == baseline_kb, "MemTotal %ld kB at the end, "
		   "baseline %ld", memtotal(), baseline_kb);
}

/* 20 small grow/shrink cycles, alternating SBM (partial memory blocks)
 * and BBM. */
static void t_cycles(void)
{
	int kfd = e2e_kmsg_open();

	expect_idle("start");
	for (int i = 0; i < 20; i++) {
		const struct vdev *d = i % 2 ? BBM : SBM;
		uint64_t s = i % 2 ? 1 * GiB : 64 * MiB + (i / 2 % 4) * 128 * MiB;

		resize(d, s, 120, 0, 1, kfd);
		resize(d, 0, 120, 0, 1, kfd);
	}
	expect_idle("after 20 cycles");
}

/* Requests QEMU must refuse; nothing changes in the guest. */
static void t_bad_requests(void)
{
	static const struct {
		int dev;
		uint64_t bytes;
		const char *error;
	} bad[] = {
		{ 0, 3 * MiB, "'requested-size' has to be multiples of "
			      "'block-size' (0x200000)" },
		{ 0, 5 * GiB, "'requested-size' cannot exceed the memory "
			      "backend size(0x100000000)" },
		{ 1, 512 * MiB, "'requested-size' has to be multiples of "
				"'block-size' (0x40000000)" },
		{ 1, 8 * GiB, "'requested-size' cannot exceed the memory "
			      "backend size(0x100000000)" },
	};
	int kfd = e2e_kmsg_open();
	struct blocks b0, b1;
	uint64_t size, req;
	char ans[300], a[16];
	long m0;

	expect_idle("start");
	resize(SBM, 256 * MiB, 120, 0, 1, kfd);
	m0 = memtotal();
	count_blocks(SBM, &b0);
	for (size_t i = 0; i < E2E_COUNT(bad); i++) {
		const struct vdev *d = &devs[bad[i].dev];

		host(ans, sizeof(ans), 60, "set %s %" PRIu64 " 10", d->id,
		     bad[i].bytes);
		e2e_diag("%s requested-size=%s: %s", d->id, sz(bad[i].bytes, a),
			 ans);
		E2E_ASSERT(!strncmp(ans, "error ", 6), "%s: %s accepted: %s",
			   d->id, sz(bad[i].bytes, a), ans);
		E2E_ASSERT(strstr(ans, bad[i].error), "%s: %s: error '%s', "
			   "expected '%s'", d->id, sz(bad[i].bytes, a), ans + 6,
			   bad[i].error);
	}
	query(SBM, &size, &req);
	E2E_ASSERT(size == 256 * MiB && req == 256 * MiB, "vm0 size %" PRIu64
		   " requested %" PRIu64 " after refused requests", size, req);
	query(BBM, &size, &req);
	E2E_ASSERT(size == 0 && req == 0, "vm1 size %" PRIu64 " requested %"
		   PRIu64 " after refused requests", size, req);
	usleep(500000);
	E2E_ASSERT(memtotal() == m0, "MemTotal %ld kB, was %ld", memtotal(), m0);
	count_blocks(SBM, &b1);
	E2E_ASSERT(b1.online == b0.online && b1.movable == b0.movable,
		   "vm0 blocks %d online, were %d", b1.online, b0.online);
	E2E_ASSERT(kmsg_scan(kfd, "refused requests") == 0,
		   "the driver saw a refused request");
	resize(SBM, 0, 120, 0, 1, kfd);
}

/* Boot 1, last: plug 1G on each device; the host then resets. */
static void t_reboot_prepare(void)
{
	int kfd = e2e_kmsg_open();

	expect_idle("start");
	resize(SBM, 1 * GiB, 120, 0, 1, kfd);
	resize(BBM, 1 * GiB, 120, 0, 1, kfd);
	E2E_ASSERT(memtotal() == baseline_kb + (long)(2 * GiB / KiB),
		   "MemTotal %ld kB", memtotal());
}

/* MemTotal once it stopped changing for stable_s (at most timeout_s). */
static long stable_memtotal(int stable_s, int timeout_s)
{
	double t0 = now_ms(), since = now_ms();
	long m = memtotal(), n;

	while (now_ms() - since < stable_s * 1e3 && now_ms() - t0 < timeout_s * 1e3) {
		usleep(50000);
		n = memtotal();
		if (n != m) {
			m = n;
			since = now_ms();
		}
	}
	return m;
}

/*
 * Boot 2 (after the host's system_reset): QEMU unplugged everything on
 * reset and kept requested-size (1G each); the driver plugs back to it at
 * probe.  MemTotal at boot varies by a page or so from boot to boot (early
 * reservations), so the invariant is checked here by unplugging: MemTotal
 * drops by exactly 2G, to within 1 MiB of boot 1's baseline.
 */
static void t_reboot_replug(void)
{
	int kfd = kmsg_from_boot();	/* everything since boot */
	uint64_t size, req;
	char ans[300];
	long m1, m0, boot1 = baseline_kb;

	for (int i = 0; i < ndevs; i++) {
		host(ans, sizeof(ans), 150, "wait %s 120", devs[i].id);
		E2E_ASSERT(!strncmp(ans, "ok ", 3), "%s after reboot: %s",
			   devs[i].id, ans);
		query(&devs[i], &size, &req);
		E2E_ASSERT(size == 1 * GiB && req == 1 * GiB, "%s after "
			   "reboot: size %" PRIu64 " requested %" PRIu64,
			   devs[i].id, size, req);
	}
	check_blocks(SBM, 1 * GiB, 1, "after reboot");
	check_blocks(BBM, 1 * GiB, 1, "after reboot");
	m1 = stable_memtotal(1, 30);
	kmsg_scan(kfd, "boot after reset");
	e2e_diag("after the reset: vm0 and vm1 re-plugged to 1G each, MemTotal "
		 "%ld kB (boot 1 baseline + %ld kB)", m1, m1 - boot1);
	baseline_kb = m1 - (long)(2 * GiB / KiB);
	resize(SBM, 0, 120, 0, 1, kfd);
	resize(BBM, 0, 120, 0, 1, kfd);
	m0 = memtotal();
	e2e_diag("unplugged: MemTotal %ld kB; boot 1 baseline %ld kB (%+ld kB)",
		 m0, boot1, m0 - boot1);
	E2E_ASSERT(labs(m0 - boot1) <= 1024, "MemTotal %ld kB with nothing "
		   "plugged, boot 1 had %ld kB", m0, boot1);
	expect_idle("end");
}

/* ---- the 6.5 fixes (6.1's backports) -------------------------------------- */

#define INJECT_OFFLINE "/sys/kernel/debug/notifier-error-inject/memory/" \
		       "actions/MEM_GOING_OFFLINE/error"

/*
 * From now on, offlining memory fails with err (0: works again): the
 * memory notifier error injection of debugfs rejects MEM_GOING_OFFLINE,
 * as a memory notifier of a real driver may.
 */
static void inject_offline_error(int err)
{
	char v[16];

	if (access(INJECT_OFFLINE, W_OK)) {
		if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) &&
		    errno != EBUSY)
			E2E_FAIL("mount debugfs: %s", strerrorname_np(errno));
		E2E_ASSERT(!access(INJECT_OFFLINE, W_OK), "%s: %s (kernel "
			   "without CONFIG_MEMORY_NOTIFIER_ERROR_INJECT?)",
			   INJECT_OFFLINE, strerrorname_np(errno));
	}
	snprintf(v, sizeof(v), "%d", err);
	e2e_put_file(INJECT_OFFLINE, v, 0600);
}

/* Host answer "<word> <size> <ms>": the size. */
static uint64_t answer_size(const char *ans)
{
	const char *p = strchr(ans, ' ');

	return p ? strtoull(p + 1, NULL, 10) : UINT64_MAX;
}

/*
 * Patch 0006 (upstream f504e15b94eb): unplug in Big Block Mode of a big
 * block with a page that cannot move.  The kernel command line carries the
 * old virtio_mem.bbm_safe_unplug=0 (vmem.py).  6.1 without the patch then
 * offlines the big block without fake-offlining it first, and
 * offline_pages() retries migrating the pinned page forever in the
 * driver's workqueue: the guest stops serving the device.  With the patch
 * the parameter is gone: the driver fake-offlines, gives up on the busy
 * big block, and goes on serving requests.  6.12 has upstream's commit
 * (no parameter, the same expectations): there this checks upstream's code.
 *
 * vm1 at 1G; a 64 MiB buffer, most of it in vm1's memory (the only
 * ZONE_MOVABLE memory), pages of it pinned (vmsplice) in every memory
 * block of it that it can; ask for 0: settles at 1G (busy); ask for 2G:
 * served; 1G: served (the second big block is free); unpin; 0: served,
 * data intact, the buffer migrated out of vm1's memory.
 */
static void t_bbm_pinned_unplug(void)
{
	const size_t len = 64 * MiB, pages = len / 4096;
	int kfd = e2e_kmsg_open(), pipe_fd, npinned;
	uint64_t *buf, *pfn, sum0;
	char ans[300];
	double t0;

	expect_idle("start");
	resize(BBM, 1 * GiB, 120, 0, 1, kfd);
	pfn = calloc(pages, 8);
	E2E_ASSERT(pfn, "calloc");
	buf = map_filled(len);
	sum0 = verify(buf, len / 8, "after filling");
	E2E_ASSERT(frames(buf, len, BBM, pfn) > 0, "no page of the buffer in "
		   "vm1's memory");
	pipe_fd = pin_pages(buf, pfn, pages, BBM, mb_size, 8, &npinned);
	e2e_diag("%d pages pinned in different memory blocks of vm1", npinned);
	E2E_ASSERT(npinned >= 1, "no page of the buffer to pin in vm1's memory");

	host(ans, sizeof(ans), 150, "settle %s 0 120 5", BBM->id);
	e2e_diag("asking for 0 with %d pinned pages: host: %s", npinned, ans);
	E2E_ASSERT(!strncmp(ans, "settled ", 8) && answer_size(ans) == 1 * GiB,
		   "asking for 0 with pages pinned in the only big block: "
		   "host: %s", ans);

	t0 = now_ms();
	host(ans, sizeof(ans), 90, "set %s %" PRIu64 " 60", BBM->id, 2 * GiB);
	e2e_diag("then asking for 2G: host: %s", ans);
	E2E_ASSERT(!strncmp(ans, "ok ", 3), "asking for 2G after an unplug "
		   "the pinned pages refused: host: %s after %.0f ms: the "
		   "driver no longer serves the device (stuck offlining the "
		   "pinned pages?)", ans, now_ms() - t0);
	wait_memtotal(baseline_kb + (long)(2 * GiB / KiB), 60, "vm1 at 2G");
	kmsg_scan(kfd, "vm1 at 2G with pinned pages");
	resize(BBM, 1 * GiB, 120, 0, 1, kfd);

	close(pipe_fd);		/* unpin */
	resize(BBM, 0, 120, 0, 1, kfd);
	E2E_ASSERT(verify(buf, len / 8, "after unplugging") == sum0,
		   "checksum changed");
	E2E_ASSERT(frames(buf, len, BBM, NULL) == 0, "buffer pages still in "
		   "vm1's memory at size 0");
	munmap(buf, len);
	free(pfn);
	expect_idle("end");
}

/*
 * Patch 0007 (upstream ddf409851461): offlining a big block fails with an
 * error other than -EBUSY/-ENOMEM (-EINTR, injected).  6.1 without the
 * patch hands it to the workqueue, which logs "unknown error, marking
 * device broken" and never serves the device again.  With the patch the
 * driver logs the error, retries later and unplugs once offlining works.
 */
static void t_bbm_offline_error(void)
{
	int kfd = e2e_kmsg_open(), retrying = 0;
	uint64_t size, req;
	char ans[300];

	inject_offline_error(0);
	expect_idle("start");
	resize(BBM, 1 * GiB, 120, 0, 1, kfd);

	inject_offline_error(-EINTR);
	host(ans, sizeof(ans), 150, "settle %s 0 120 5", BBM->id);
	inject_offline_error(0);
	e2e_diag("asking for 0 while offlining fails with EINTR: host: %s", ans);
	E2E_ASSERT(!strncmp(ans, "settled ", 8) && answer_size(ans) == 1 * GiB,
		   "asking for 0 while offlining fails: host: %s", ans);
	query(BBM, &size, &req);
	E2E_ASSERT(size == 1 * GiB && req == 0, "vm1 size %" PRIu64
		   " requested %" PRIu64, size, req);
	check_blocks(BBM, 1 * GiB, 1, "while offlining failed");
	kmsg_scan_allow(kfd, "offlining fails with EINTR",
			"offlining and removing memory failed: -4",
			&retrying);
	E2E_ASSERT(retrying, "the driver did not log the offlining error (once)");

	/*
	 * Offlining works again.  The driver would retry on its own within
	 * its retry timer (50 s at first); asking for 0 again notifies it at
	 * once (QEMU signals a config change even for the same size).  The
	 * timer may have fired already (a slow debug kernel): then MemTotal
	 * is on its way down while the request is sent, so the end is checked
	 * against the baseline (vm0 is at 0), not against MemTotal before it.
	 */
	resize_to(BBM, 0, 120, 0, 1, kfd, baseline_kb);
	expect_idle("end");
}

/*
 * Patch 0009 (upstream f55484fd7be9): the host changes its request while
 * the driver is busy trying to fake-offline memory it cannot take.
 *
 * vm0 at 768M; an 864 MiB buffer fills it, a page pinned in each of its
 * subblocks: no subblock can go, and every attempt (alloc_contig_range(),
 * up to 5 times per memory block, then per subblock, in ZONE_MOVABLE)
 * first migrates the rest of the range away.  Ask for 0 without waiting,
 * at once ask for 1G and wait.  With the patch the driver leaves the scan
 * at its next attempt, so at most the memory block it was working on has
 * been migrated when it plugs; without it, it first tries every memory
 * block (6 x 128 MiB migrated on x86_64).  Checked: 1G reached, data
 * intact, MemTotal exact, then unpinned and back to 0; and at most two
 * memory blocks' worth of the buffer migrated - judged only when the two
 * requests reached QEMU within 100 ms of each other (the driver's first
 * attempt takes longer than that; measured as the guest's round trip of
 * the first request), else the test is reported skipped.
 */
static void t_sbm_request_changes(void)
{
	const uint64_t plugged = 768 * MiB, grow = 1 * GiB;
	const size_t len = plugged + 96 * MiB, pages = len / 4096;
	int kfd = e2e_kmsg_open(), pipe_fd, npinned;
	uint64_t *buf, *pfn0, *pfn1, sum0, sb, size, moved_kib;
	size_t moved = 0;
	char ans[300];
	double t0, gap, ms;

	expect_idle("start");
	sb = sb_size(SBM);
	resize(SBM, plugged, 120, 0, 1, kfd);
	pfn0 = calloc(pages, 8);
	pfn1 = calloc(pages, 8);
	E2E_ASSERT(pfn0 && pfn1, "calloc");
	buf = map_filled(len);
	sum0 = verify(buf, len / 8, "after filling");
	frames(buf, len, SBM, pfn0);
	pipe_fd = pin_pages(buf, pfn0, pages, SBM, sb, 256, &npinned);
	e2e_diag("%d pages pinned, one per %" PRIu64 " KiB subblock of vm0's "
		 "%d", npinned, sb / KiB, (int)(plugged / sb));
	/* pin_pages() pins at most 256 */
	E2E_ASSERT(npinned >= VMEM_MIN(256, (int)(plugged / sb)) * 3 / 4,
		   "only %d of vm0's subblocks hold a page of the buffer",
		   npinned);

	t0 = now_ms();
	host(ans, sizeof(ans), 30, "request %s 0", SBM->id);
	E2E_ASSERT(!strcmp(ans, "ok"), "asking for 0: host: %s", ans);
	gap = now_ms() - t0;
	host(ans, sizeof(ans), 200, "set %s %" PRIu64 " 180", SBM->id, grow);
	ms = now_ms() - t0 - gap;
	E2E_ASSERT(!strncmp(ans, "ok ", 3), "asking for 1G while the driver "
		   "tries to unplug pinned memory: host: %s", ans);
	frames(buf, len, SBM, pfn1);
	for (size_t i = 0; i < pages; i++)
		moved += pfn0[i] != pfn1[i];
	moved_kib = moved * 4096 / KiB;
	size = answer_size(ans);
	e2e_line("# request_changes: requests %.0f ms apart, 1G served %.0f ms "
		 "after the second, %" PRIu64 " KiB of the buffer migrated (%.1f "
		 "memory blocks)", gap, ms, moved_kib,
		 (double)moved_kib * KiB / mb_size);
	wait_memtotal(baseline_kb + (long)(size / KiB), 60, "vm0 at 1G");
	kmsg_scan(kfd, "vm0 at 1G with pinned pages");
	close(pipe_fd);		/* unpin */
	E2E_ASSERT(verify(buf, len / 8, "after the requests") == sum0,
		   "checksum changed");
	munmap(buf, len);
	free(pfn0);
	free(pfn1);
	if (gap <= 100)
		E2E_ASSERT(moved_kib * KiB <= 2 * mb_size, "%" PRIu64 " KiB of "
			   "the buffer migrated after the request changed to "
			   "1G: the driver went on fake-offlining memory for "
			   "the old request", moved_kib);
	resize(SBM, 0, 120, 0, 1, kfd);
	expect_idle("end");
	if (gap > 100)
		E2E_SKIP("the requests were %.0f ms apart: migration not judged",
			 gap);
}

/*
 * Patch 0008 (upstream a31648fd4f96): in Sub Block Mode the driver unplugs
 * all subblocks of a memory block, then offlining the block fails
 * (-EBUSY, injected).  6.1 without the patch never tries again: the empty
 * memory block stays online for good.  With the patch the driver retries
 * on its own and removes it once offlining works: its retry timer
 * (VIRTIO_MEM_RETRY_TIMER_MIN_MS, 50 s after the failed attempt) runs it
 * again, with no new request from the device in between.
 */
static void t_sbm_offline_error(void)
{
	int kfd = e2e_kmsg_open();
	struct blocks b;
	char ans[300];
	double t_failed;

	inject_offline_error(0);
	expect_idle("start");
	resize(SBM, mb_size, 120, 0, 1, kfd);

	inject_offline_error(-EBUSY);
	host(ans, sizeof(ans), 90, "set %s 0 60", SBM->id);
	t_failed = now_ms();
	e2e_diag("asking for 0 while offlining fails with EBUSY: host: %s", ans);
	if (strncmp(ans, "ok ", 3)) {
		inject_offline_error(0);
		E2E_FAIL("asking for 0 while offlining fails: host: %s "
			 "(the subblocks should unplug all the same)", ans);
	}
	wait_memtotal(baseline_kb, 60, "vm0 subblocks unplugged");
	usleep(500000);
	count_blocks(SBM, &b);
	inject_offline_error(0);
	E2E_ASSERT(b.online == 1 && !b.offline, "vm0: %d online and %d "
		   "offline memory blocks while offlining fails, expected the "
		   "one block to stay online", b.online, b.offline);
	kmsg_scan(kfd, "offlining fails with EBUSY");

	/*
	 * Offlining works again.  No request: the driver's retry timer must
	 * remove the block, 50 s after the attempt that failed (t_failed, a
	 * little before), given up after 65 s (TCG slack).
	 */
	for (;;) {
		count_blocks(SBM, &b);
		if (!b.online && !b.offline && !b.other)
			break;
		if (now_ms() - t_failed > 65e3) {
			/* clean up for the scenarios after this one */
			host(ans, sizeof(ans), 90, "set %s 0 60", SBM->id);
			E2E_FAIL("vm0: the memory block whose subblocks are all "
				 "unplugged is still there (%d online) 65 s after "
				 "removing it failed: the driver did not retry on "
				 "its own (asked again: host: %s)", b.online, ans);
		}
		usleep(200000);
	}
	e2e_diag("the empty memory block was removed %.0f ms after removing "
		 "it failed, with no new request", now_ms() - t_failed);
	kmsg_scan(kfd, "removing the unplugged memory block");
	expect_idle("end");
}

/*
 * Several things at once (the guest has two CPUs; e2e_parallel() pins the
 * workers to different ones), for RACE_SECONDS:
 *   worker 0: requests from QEMU ("request": answered at once) of random
 *             sizes on both devices, 0..300 ms apart, so that many change
 *             while the driver still plugs or unplugs for the last one;
 *   worker 1: offlines a random online memory block of the devices through
 *             sysfs and onlines it again (ZONE_MOVABLE); the driver may
 *             unplug and remove an offline block meanwhile (ENOENT,
 *             ENODEV), add it again (EINVAL: already online) or deny
 *             onlining one it is removing (EPERM);
 *   worker 2: maps 32 MiB, fills it, checks every word, unmaps.
 * Then every memory block back online (a denied one must be gone within
 * 10 s) and a last request per device that none of the random ones was
 * (so the driver acts on it at once, not on its retry timer): QEMU's size reaches it, MemTotal is the baseline plus
 * both sizes, the blocks of both regions are online and Movable, as many
 * as the sizes need (BBM: exactly); then 0, and the baseline again.  The
 * seed is printed: "race_resize: seed N".
 */
#define RACE_SECONDS	20
#define RACE_SEED	20261203u
#define RACE_ALLOC	(32 * MiB)

static double race_deadline;
/* Which devices worker 0 resizes and worker 1 offlines/onlines blocks of
 * (bit i: devs[i]). */
static int race_resize_devs, race_sysfs_devs;

static unsigned int race_rand(unsigned int *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* A random device among mask's. */
static int race_pick(unsigned int *x, int mask)
{
	int n = __builtin_popcount(mask), k = race_rand(x) % n;

	for (int i = 0; i < ndevs; i++)
		if ((mask >> i & 1) && !k--)
			return i;
	return 0;
}

/* The numbers of d's memory blocks in state want ("online", "offline"). */
static int blocks_in(const struct vdev *d, const char *want, long *ids, int max)
{
	DIR *dir = opendir("/sys/devices/system/memory");
	struct dirent *e;
	char p[320], st[64];
	int n = 0;

	E2E_ASSERT(dir, "opendir /sys/devices/system/memory: %s",
		   strerrorname_np(errno));
	while ((e = readdir(dir)) && n < max) {
		long id;

		if (!block_of(e, d, &id))
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/memory/%s/state",
			 e->d_name);
		if (e2e_get_file(p, st, sizeof(st)) < 0)
			continue;	/* removed meanwhile */
		if (!strncmp(st, want, strlen(want)) && st[strlen(want)] == '\n')
			ids[n++] = id;
	}
	closedir(dir);
	return n;
}

/* Write state to memory block id: 0 or the errno.  ENOENT or ENODEV: the
 * block is gone (removed before the open, or between open and write). */
static int block_set(long id, const char *state)
{
	char p[96];
	int fd, rc = 0;

	snprintf(p, sizeof(p), "/sys/devices/system/memory/memory%ld/state", id);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, state, strlen(state)) < 0)
		rc = errno;
	close(fd);
	return rc;
}

static void race_requests(unsigned int *x)
{
	unsigned long n = 0;
	char ans[300];

	while (e2e_now() < race_deadline) {
		int dev = race_pick(x, race_resize_devs);
		/* SBM: 0..1920M in 128M; BBM: 0..3G in 1G */
		uint64_t bytes = dev ? (race_rand(x) % 4) * GiB :
				       (race_rand(x) % 16) * 128 * MiB;

		host(ans, sizeof(ans), 30, "request %s %" PRIu64, devs[dev].id,
		     bytes);
		E2E_ASSERT(!strcmp(ans, "ok"), "request %s %" PRIu64 ": host: %s",
			   devs[dev].id, bytes, ans);
		n++;
		usleep(race_rand(x) % 300000);
	}
	e2e_diag("race_resize: %lu requests", n);
}

static void race_onoff(unsigned int *x)
{
	unsigned long off = 0, on = 0, busy = 0, gone = 0, denied = 0;
	long ids[64];

	while (e2e_now() < race_deadline) {
		const struct vdev *d = &devs[race_pick(x, race_sysfs_devs)];
		int n = blocks_in(d, "online", ids, 64), rc;
		long id;

		if (!n) {
			usleep(20000);
			continue;
		}
		id = ids[race_rand(x) % n];
		rc = block_set(id, "offline");
		if (rc) {
			/* in use, or removed by the driver meanwhile */
			E2E_ASSERT(rc == EBUSY || rc == ENOENT || rc == ENODEV ||
				   rc == EINVAL,
				   "offline memory%ld: %s", id, strerrorname_np(rc));
			busy += rc == EBUSY;
			gone += rc != EBUSY;
			continue;
		}
		off++;
		usleep(race_rand(x) % 50000);
		rc = block_set(id, "online_movable");
		/*
		 * The driver may have unplugged and removed it meanwhile
		 * (ENOENT, ENODEV), or removed it and added it again, onlined
		 * by the kernel (EINVAL: already online), or be about to
		 * remove it: SBM marks a block it unplugged completely as
		 * unused and then removes it; onlining it in between is
		 * denied (EPERM, "memory block onlining denied").
		 */
		E2E_ASSERT(!rc || rc == ENOENT || rc == ENODEV || rc == EPERM ||
			   rc == EINVAL, "online memory%ld: %s", id,
			   strerrorname_np(rc));
		on += !rc;
		denied += rc == EPERM;
		gone += rc && rc != EPERM;
	}
	e2e_diag("race_resize: %lu blocks offlined, %lu onlined again, %lu "
		 "busy, %lu gone, refused or already back, %lu onlinings "
		 "denied", off, on, busy, gone, denied);
	E2E_ASSERT(off > 0, "no memory block could be offlined in %d s",
		   RACE_SECONDS);
}

static void race_alloc(void)
{
	unsigned long rounds = 0;

	while (e2e_now() < race_deadline) {
		uint64_t *buf = map_filled(RACE_ALLOC);

		verify(buf, RACE_ALLOC / 8, "race_resize: allocating worker");
		munmap(buf, RACE_ALLOC);
		rounds++;
	}
	e2e_diag("race_resize: %lu rounds of %d MiB filled and checked",
		 rounds, (int)(RACE_ALLOC / MiB));
}

/* A worker hangs: the blocks of both regions that are neither online nor
 * offline (e.g. "going-offline"), for the record. */
static void race_on_hang(void)
{
	struct blocks b;

	for (int i = 0; i < ndevs; i++) {
		count_blocks(&devs[i], &b);
		e2e_diag("race_resize: %s: %d online (%d Movable), %d offline, "
			 "%d other; first odd one: %s", devs[i].id, b.online,
			 b.movable, b.offline, b.other, b.bad[0] ? b.bad : "-");
	}
}

static void race_worker(int w, void *arg)
{
	unsigned int x = *(unsigned int *)arg + w;

	if (w == 0)
		race_requests(&x);
	else if (w == 1)
		race_onoff(&x);
	else
		race_alloc();
}

static void race_resize(int resize_devs, int sysfs_devs)
{
	/* not among the random sizes: a new request for the driver */
	const uint64_t last[2] = { 200 * MiB, 4 * GiB };
	int kfd = e2e_kmsg_open(), n, denied = 0;
	unsigned int seed = RACE_SEED;
	char ans[300];
	long ids[64], m;
	double t0;

	expect_idle("start");
	E2E_ASSERT(e2e_cpus() >= 2, "%d CPU online: the gate boots two "
		   "(qemu_configs/, CONFIG_SMP=y in kunitconfig)", e2e_cpus());
	race_resize_devs = resize_devs;
	race_sysfs_devs = sysfs_devs;
	e2e_diag("race_resize: seed %u, %d s, %d CPUs, requests on %s%s, "
		 "sysfs offline/online on %s%s", seed, RACE_SECONDS, e2e_cpus(),
		 resize_devs & 1 ? "vm0 " : "", resize_devs & 2 ? "vm1" : "",
		 sysfs_devs & 1 ? "vm0 " : "", sysfs_devs & 2 ? "vm1" : "");
	race_deadline = e2e_now() + RACE_SECONDS;
	e2e_parallel_on_hang = race_on_hang;
	e2e_parallel(3, race_worker, &seed, RACE_SECONDS + 60);
	kmsg_scan_allow(kfd, "during the race", "memory block onlining denied",
			&denied);

	/*
	 * Every block back online.  One that is denied (EPERM) must be one
	 * the driver is removing: gone within 10 s.
	 */
	t0 = now_ms();
	for (;;) {
		int left = 0;

		for (int i = 0; i < ndevs; i++) {
			n = blocks_in(&devs[i], "offline", ids, 64);
			for (int j = 0; j < n; j++) {
				int rc = block_set(ids[j], "online_movable");

				E2E_ASSERT(!rc || rc == ENOENT || rc == ENODEV ||
					   rc == EPERM || rc == EINVAL,
					   "online memory%ld: %s", ids[j],
					   strerrorname_np(rc));
				left += rc == EPERM;
				if (rc == EPERM && now_ms() - t0 > 10e3)
					E2E_FAIL("memory%ld: onlining denied and "
						 "still there 10 s after the "
						 "race", ids[j]);
			}
		}
		if (!left)
			break;
		usleep(100000);
	}
	kmsg_scan_allow(kfd, "onlining after the race",
			"memory block onlining denied", &denied);
	e2e_diag("race_resize: %d 'memory block onlining denied' records "
		 "(a block the driver was removing)", denied);
	for (int i = 0; i < ndevs; i++) {
		host(ans, sizeof(ans), 150, "set %s %" PRIu64 " 120", devs[i].id,
		     last[i]);
		E2E_ASSERT(!strncmp(ans, "ok ", 3) && answer_size(ans) == last[i],
			   "%s: asking for %" PRIu64 " MiB after the race: host: %s",
			   devs[i].id, last[i] / MiB, ans);
	}
	wait_memtotal(baseline_kb + (long)((last[0] + last[1]) / KiB), 60,
		      "after the race");
	m = memtotal();
	check_blocks(SBM, last[0], 0, "vm0 after the race");
	check_blocks(BBM, last[1], 1, "vm1 after the race");
	e2e_diag("race_resize: vm0 %" PRIu64 " MiB, vm1 %" PRIu64 " MiB, "
		 "MemTotal %ld kB = baseline %+ld kB", last[0] / MiB,
		 last[1] / MiB, m, m - baseline_kb);
	kmsg_scan(kfd, "after the race");
	resize(SBM, 0, 120, 0, 1, kfd);
	resize(BBM, 0, 120, 0, 1, kfd);
	expect_idle("end");
}

/* Requests on both devices, sysfs offline/online of both devices' memory
 * blocks. */
static void t_race_resize(void)
{
	race_resize(3, 3);
}

/*
 * Patch 0010: the same race on vm1 (BBM) alone, where it is sharpest: to
 * unplug a big block the driver fake-offlines its memory blocks with
 * alloc_contig_range() while a sysfs offline of one of them has it
 * isolated and waits for the driver's mutex.  6.1's alloc_contig_range()
 * then un-isolated the block it failed to isolate, and the sysfs offline
 * never returned (every run, within 20 s, both arches): e2e_parallel()
 * gives up after 80 s, naming the worker and the "going-offline" block.
 */
static void t_race_bbm_sysfs(void)
{
	race_resize(2, 2);
}

/* Not in the gate: time 4G plug/unplug per mode, 5 rounds
 * (e2e/virtio_mem/bench). */
static void t_bench(void)
{
	int kfd = e2e_kmsg_open();

	expect_idle("start");
	for (int round = 0; round < 5; round++) {
		for (int i = 0; i < ndevs; i++) {
			struct step p = resize(&devs[i], 4 * GiB, 900, 0, 1, kfd);
			struct step u = resize(&devs[i], 0, 900, 0, 1, kfd);

			e2e_line("# bench: %s %s plug %.0f %.0f unplug %.0f %.0f",
				 devs[i].id, devs[i].bbm ? "BBM" : "SBM",
				 p.host_ms, p.guest_ms, u.host_ms, u.guest_ms);
		}
	}
}

/*
 * soak (e2e/virtio_mem/soak, make soak; not in the gate's runs): cycles of
 * random sizes on both devices, "vmem.soak=<cycles>,<seed>" on the kernel
 * command line.  Each cycle gives vm0 (SBM) a random size up to 2 GiB in
 * steps of the driver's subblock size (not the device's 2 MiB block: the
 * driver plugs and unplugs whole subblocks, at least a pageblock, 4 MiB
 * on x86_64 and arm64 without hugetlb, and leaves the rest of a request
 * unserved) and vm1 (BBM) one of 0, 1, 2 GiB, in turn, while
 *   - a child process keeps 64 MiB of anonymous memory under load
 *     (allocate, fill, verify, free, again), which lands in the devices'
 *     ZONE_MOVABLE memory and must be migrated away on unplug, and
 *   - 16 pages of boot memory stay pinned (vmsplice), the whole time.
 * After every step (resize()): the device reached its new size, MemTotal
 * moved by exactly the size change, the device's memory blocks are online
 * in ZONE_MOVABLE, the kernel log has no virtio_mem warning or error.  At
 * the end both devices at 0, MemTotal at the baseline, the load found its
 * data intact every round.
 */
static uint64_t soak_state;

static uint64_t soak_next(void)
{
	/* xorshift64* */
	soak_state ^= soak_state >> 12;
	soak_state ^= soak_state << 25;
	soak_state ^= soak_state >> 27;
	return soak_state * 2685821657736338717ULL;
}

/* The driver's subblock size of d, from its probe line. */
static uint64_t soak_sb_size(const struct vdev *d)
{
	char name[32], rec[2048];
	unsigned long long sb = 0;

	dev_name(d, name, sizeof(name));
	E2E_ASSERT(kmsg_boot_find(name, "subblock size: 0x", rec) &&
		   sscanf(strstr(rec, "subblock size: 0x") + 17, "%llx", &sb) == 1 &&
		   sb && 2 * GiB % sb == 0,
		   "no usable '%s: subblock size: 0x..' in the kernel log", name);
	return sb;
}

static void soak_args(unsigned long *cycles, unsigned long long *seed)
{
	char cmdline[4096], *p;

	*cycles = 100;
	*seed = 1;
	if (e2e_get_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		E2E_FAIL("read /proc/cmdline: %s", strerrorname_np(errno));
	p = strstr(cmdline, "vmem.soak=");
	if (p && sscanf(p + 10, "%lu,%llu", cycles, seed) != 2)
		E2E_FAIL("vmem.soak=: expected <cycles>,<seed>");
	E2E_ASSERT(*cycles > 0 && *seed > 0, "vmem.soak=%lu,%llu", *cycles, *seed);
}

/* The load: until killed, 64 MiB filled with a round's pattern and read
 * back; exit status 3 on the first word that changed. */
static void soak_load(void)
{
	const size_t words = 64 * MiB / 8;

	for (uint64_t round = 1;; round++) {
		uint64_t *p = mmap(NULL, words * 8, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(4);
		for (size_t i = 0; i < words; i++)
			p[i] = (round << 40) ^ i;
		for (size_t i = 0; i < words; i++) {
			if (p[i] != ((round << 40) ^ i)) {
				fprintf(stderr, "soak load: round %" PRIu64 " word %zu: %#" PRIx64 "\n",
					round, i, p[i]);
				_exit(3);
			}
		}
		munmap(p, words * 8);
	}
}

static void t_soak(void)
{
	int kfd = e2e_kmsg_open(), pin[2], status = 0;
	unsigned long cycles;
	unsigned long long seed;
	struct iovec iov[16];
	uint64_t sb;
	double t0;
	char *pinned;
	pid_t load;

	soak_args(&cycles, &seed);
	soak_state = seed;
	sb = soak_sb_size(SBM);
	e2e_diag("soak: %lu cycles from seed %llu, vm0 in %" PRIu64 " MiB steps",
		 cycles, seed, sb / MiB);
	expect_idle("start");

	/* 16 pages of boot memory (nothing is plugged yet), pinned */
	pinned = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	E2E_ASSERT(pinned != MAP_FAILED, "mmap: %s", strerrorname_np(errno));
	for (int i = 0; i < 16; i++) {
		memset(pinned + i * 4096, 'a' + i, 4096);
		iov[i].iov_base = pinned + i * 4096;
		iov[i].iov_len = 4096;
	}
	E2E_OK(pipe2(pin, O_CLOEXEC));
	E2E_OK(fcntl(pin[1], F_SETPIPE_SZ, 16 * 4096));
	E2E_ASSERT(vmsplice(pin[1], iov, 16, 0) == 16 * 4096, "vmsplice: %s",
		   strerrorname_np(errno));

	load = fork();
	E2E_ASSERT(load >= 0, "fork: %s", strerrorname_np(errno));
	if (!load)
		soak_load();

	t0 = now_ms();
	for (unsigned long c = 0; c < cycles; c++) {
		uint64_t s0 = (soak_next() % (2 * GiB / sb + 1)) * sb;
		uint64_t s1 = (soak_next() % 3) * GiB;

		e2e_diag("soak: cycle %lu of %lu: vm0 %" PRIu64 " MiB, vm1 %" PRIu64 " GiB",
			 c + 1, cycles, s0 / MiB, s1 / GiB);
		/*
		 * vm0 not exact: under the load a subblock can be busy while
		 * the driver fake-offlines it (a page being migrated), and the
		 * driver then unplugs from the next memory block down, leaving
		 * one more block partly plugged (seen on the debug kernel:
		 * 924M -> 200M in 3 blocks).  At 0 every block must be gone.
		 */
		resize(SBM, s0, 300, 0, 0, kfd);
		resize(BBM, s1, 300, 0, 1, kfd);
		E2E_ASSERT(waitpid(load, &status, WNOHANG) == 0,
			   "cycle %lu: the load process ended (status %#x)", c + 1, status);
	}
	resize(SBM, 0, 300, 0, 1, kfd);
	resize(BBM, 0, 300, 0, 1, kfd);
	e2e_line("# soak: %lu cycles in %.0f s", cycles, (now_ms() - t0) / 1e3);

	kill(load, SIGKILL);
	E2E_ASSERT(waitpid(load, &status, 0) == load, "waitpid: %s",
		   strerrorname_np(errno));
	E2E_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		   "the load process failed: status %#x (3: data changed)", status);
	close(pin[1]);
	close(pin[0]);
	for (int i = 0; i < 16; i++)
		E2E_ASSERT(pinned[i * 4096] == 'a' + i && pinned[i * 4096 + 4095] == 'a' + i,
			   "pinned page %d changed", i);
	munmap(pinned, 16 * 4096);
	expect_idle("after the soak");
	kmsg_scan(kfd, "soak");
}

/* ---- under faults (make faults: e2e/virtio_mem/faults) -------------------- */

/*
 * Failed page allocations on the driver's paths: the driver works in the
 * kernel's workqueue threads (kworker/...), so those threads get
 * make-it-fail (a child marks every one every 100 ms, new ones too) and
 * fail_page_alloc fails FAULT_PCT percent of their page allocations
 * (task-filter: nobody else's): migration targets while offlining and
 * fake-offlining, the memmap of added memory, vmalloc'ed state arrays.  Each of a device's size changes runs
 * FAULT_WINDOW_S seconds under the faults, the request made again every
 * FAULT_NUDGE_S seconds (a config change wakes the driver at once, where
 * after a failure it would wait for its retry timer, 50 s and more):
 * plugging (memory added and
 * onlined, the driver's block bitmaps growing) and unplugging (offlining,
 * in Sub Block Mode fake-offlining: page migration); while shrinking,
 * offlining also fails in the memory notifier chain (-ENOMEM, debugfs's
 * notifier-error-inject).  Then the faults stop and the request is made
 * again: QEMU's size must reach it.  A memory block whose onlining failed
 * under the faults stays offline (the kernel onlines a new block once,
 * when it is added; virtio-mem leaves onlining to that policy): the test
 * onlines such blocks as an administrator would, and counts them.  Then
 * MemTotal must be the baseline plus exactly the size, the device's memory
 * blocks online and Movable in the number the size needs, and the kernel
 * log free of reports.
 */
#define FAULT_PCT	20
#define FAULT_WINDOW_S	20
#define FAULT_NUDGE_S	2	/* the request again: the driver runs at once */
#define FAULT_LOAD	(192 * MiB)

static pid_t fault_marker;

static void mark_kworkers(const char *val)
{
	DIR *dir = opendir("/proc");
	struct dirent *e;
	char p[64], comm[32];

	while (dir && (e = readdir(dir))) {
		int fd, pid = atoi(e->d_name);

		if (pid <= 0)
			continue;
		snprintf(p, sizeof(p), "/proc/%d/comm", pid);
		if (e2e_get_file(p, comm, sizeof(comm)) < 0 || strncmp(comm, "kworker", 7))
			continue;
		snprintf(p, sizeof(p), "/proc/%d/make-it-fail", pid);
		fd = open(p, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;	/* gone meanwhile */
		if (write(fd, val, 1) != 1) {
			/* gone meanwhile */
		}
		close(fd);
	}
	if (dir)
		closedir(dir);
}

/* Faults on (pct > 0) or off: page allocations only (failslab's small
 * objects reach error paths outside virtio-mem and memory hotplug that
 * report ENOMEM as another errno: docs/faults.md). */
static unsigned long faults_injected;	/* by fail_page_alloc, all of them */
#define FAULT_TIMES 1000000

static void kworker_faults(int pct)
{
	static const char *const attrs[] = { "fail_page_alloc" };
	char v[32];

	if (pct) {
		snprintf(v, sizeof(v), "%d", FAULT_TIMES);
		e2e_fault_knob("fail_page_alloc", "times", v);
	}
	snprintf(v, sizeof(v), "%d", pct);
	if (pct) {
		fflush(NULL);
		fault_marker = fork();
		if (fault_marker < 0)
			E2E_FAIL("fork: %s", strerrorname_np(errno));
		if (!fault_marker) {
			for (;;) {
				mark_kworkers("1");
				usleep(100000);
			}
		}
	}
	for (size_t i = 0; i < E2E_COUNT(attrs); i++) {
		e2e_fault_knob(attrs[i], "task-filter", "Y");
		e2e_fault_knob(attrs[i], "probability", v);
	}
	if (!pct && fault_marker > 0) {
		kill(fault_marker, SIGKILL);
		waitpid(fault_marker, NULL, 0);
		fault_marker = 0;
		mark_kworkers("0");
		/* "times" counts down once per failure, logged or not */
		if (e2e_get_file(E2E_DEBUGFS "/fail_page_alloc/times", v, sizeof(v)) < 0)
			E2E_FAIL("read fail_page_alloc/times: %s", strerrorname_np(errno));
		faults_injected += FAULT_TIMES - strtoul(v, NULL, 10);
	}
}

/* Online (Movable) every memory block of d's region that is still offline
 * once MemTotal has stood still for 5 s (the driver done adding and
 * onlining); returns how many there were. */
static int online_offline_blocks(const struct vdev *d)
{
	DIR *dir;
	struct dirent *e;
	char p[320], st[32];
	int n = 0;

	stable_memtotal(5, 120);
	dir = opendir("/sys/devices/system/memory");
	while (dir && (e = readdir(dir))) {
		long id;
		int fd;

		if (!block_of(e, d, &id))
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/memory/%s/state", e->d_name);
		if (e2e_get_file(p, st, sizeof(st)) < 0 || strncmp(st, "offline", 7))
			continue;
		fd = open(p, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "online_movable", 14) != 14)
			E2E_FAIL("online %s: %s", e->d_name, strerrorname_np(errno));
		close(fd);
		n++;
	}
	if (dir)
		closedir(dir);
	return n;
}

static void faults_resize(const struct vdev *d, const uint64_t *sizes, size_t n)
{
	struct e2e_fault_points *pts = calloc(1, sizeof(*pts));
	int kfd = e2e_kmsg_open();
	uint64_t size, req, prev = 0, *load = NULL;
	char ans[300], what[80], a[16], b[16];
	double t0 = now_ms();
	int offline = 0;

	/* the driver's messages on the console; FAULTS_LOG=1 (E2E_CMDLINE):
	 * the whole kernel log, the traces of the failures included */
	pts->echo_match = "virtio_mem";
	pts->echo = getenv("FAULTS_LOG") != NULL;
	faults_injected = 0;
	idle_machine = 0;
	expect_idle("start");
	e2e_fault_setup();
	for (size_t i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "%s %s -> %s", d->id, sz(prev, a),
			 sz(sizes[i], b));
		if (sizes[i] < prev)
			inject_offline_error(-ENOMEM);
		kworker_faults(FAULT_PCT);
		host(ans, sizeof(ans), 30, "request %s %" PRIu64, d->id, sizes[i]);
		for (int t = 0; !strcmp(ans, "ok") && t < FAULT_WINDOW_S; t += FAULT_NUDGE_S) {
			sleep(FAULT_NUDGE_S);
			host(ans, sizeof(ans), 30, "request %s %" PRIu64, d->id, sizes[i]);
		}
		kworker_faults(0);
		if (strcmp(ans, "ok"))
			E2E_FAIL("%s: host: %s", what, ans);
		inject_offline_error(0);
		query(d, &size, &req);
		e2e_fault_scan(kfd, pts);
		e2e_diag("%s: %s after %d s under faults, %lu failures injected so far",
			 what, sz(size, a), FAULT_WINDOW_S, faults_injected);
		if (pts->reports)
			E2E_FAIL("%s: kernel report: %s", what, pts->report);
		/* the same request again, without faults: served */
		host(ans, sizeof(ans), 330, "set %s %" PRIu64 " 300", d->id, sizes[i]);
		if (strncmp(ans, "ok ", 3)) {
			stuck_diag(d, kfd);
			E2E_FAIL("%s: after the faults, host: %s", what, ans);
		}
		offline += online_offline_blocks(d);
		wait_memtotal(baseline_kb + (long)(sizes[i] / KiB), 120, what);
		check_blocks(d, sizes[i], 1, what);
		e2e_fault_scan(kfd, pts);
		if (pts->reports)
			E2E_FAIL("%s: kernel report: %s", what, pts->report);
		/* after the first plug: memory in use, mostly the device's
		 * (ZONE_MOVABLE comes first for it), so that unplugging
		 * migrates it, under the faults */
		if (!load)
			load = map_filled(FAULT_LOAD);
		prev = sizes[i];
	}
	verify(load, FAULT_LOAD / 8, "the memory in use, after the faults");
	munmap(load, FAULT_LOAD);
	expect_idle("end");
	e2e_fault_print_points(d->id, pts);
	e2e_diag("%s: %d memory blocks left offline by a failed onlining, onlined by hand",
		 d->id, offline);
	/* (a failure of a __GFP_NOWARN allocation is not logged: no point) */
	e2e_diag("faults: %s: %zu steps, %lu failures injected, %u failure points, "
		 "%u logged, %u without a frame, %.0f s", d->bbm ? "bbm" : "sbm", n,
		 faults_injected, pts->count, pts->logged, pts->unplaced,
		 (now_ms() - t0) / 1e3);
	E2E_ASSERT(faults_injected > 0, "no failure injected in %zu steps", n);
}

/* Sub Block Mode: 320 MiB is not a whole number of memory blocks (the
 * last one partly plugged: fake-offlining on the way down). */
static void t_faults_sbm(void)
{
	static const uint64_t sizes[] = { 640 * MiB, 320 * MiB, 1 * GiB, 0 };

	faults_resize(SBM, sizes, E2E_COUNT(sizes));
}

static void t_faults_bbm(void)
{
	static const uint64_t sizes[] = { 2 * GiB, 1 * GiB, 0 };

	faults_resize(BBM, sizes, E2E_COUNT(sizes));
}

/* ---- hot-add under failed allocations, from this thread ------------------ */

/* x86_64 (CONFIG_ARCH_MEMORY_PROBE): one memory block hot-added at 512 GiB,
 * where nothing is, through /sys/devices/system/memory/probe, with the n-th
 * allocation of this thread failing (fail-nth), n = 1, 2, ... until the
 * write gets through.  512 GiB starts a new top-level entry of the direct
 * map, so the hot-add allocates page tables there (init_memory_mapping()),
 * then the memmap and the memory block device; each is failed once, in
 * turn.  Every failed write must fail with ENOMEM, leave nothing behind (no memory
 * block, the direct map's size as before) and no kernel report; the write
 * that gets through adds the block, offline, and maps it. */
#define HOTADD_ADDR (512 * GiB)
#define HOTADD_MAX_STEPS 400
#define HOTADD_REGIONS 64
#define HOTADD_AUTO "/sys/devices/system/memory/auto_online_blocks"

/* The direct map's size in kB: DirectMap4k + 2M (+ 1G where the CPU has
 * gigabyte pages) of /proc/meminfo. */
static long direct_map_kb(void)
{
	char buf[8192];
	long kb = meminfo("DirectMap4k:") + meminfo("DirectMap2M:");

	if (e2e_get_file("/proc/meminfo", buf, sizeof(buf)) > 0 &&
	    strstr(buf, "DirectMap1G:"))
		kb += meminfo("DirectMap1G:");
	return kb;
}

/* The block hot-added into region k: 1 GiB apart from HOTADD_ADDR on, each
 * in a 1 GiB region of its own (a page table of the direct map to allocate),
 * all below 1 TiB (QEMU's default CPU has 40 physical address bits). */
static uint64_t hotadd_addr(unsigned int k)
{
	return HOTADD_ADDR + (uint64_t)k * GiB;
}

static void hotadd_block(unsigned int k, char *blk, size_t size)
{
	snprintf(blk, size, "/sys/devices/system/memory/memory%" PRIu64,
		 hotadd_addr(k) / mb_size);
}

static void t_faults_hotadd(void)
{
	struct e2e_fault_points *pts = calloc(1, sizeof(*pts));
	char addr[32], blk[112], st[32] = "", auto_online[32];
	long dm0 = direct_map_kb(), dm;
	int kfd = e2e_kmsg_open(), pfd, len;
	unsigned int n = 1, k = 0, steps = 0, injected = 0, absorbed = 0;
	unsigned int left = 0, retried = 0;
	ssize_t r = -1;

	E2E_ASSERT(pts, "calloc");
	pfd = open("/sys/devices/system/memory/probe", O_WRONLY | O_CLOEXEC);
	if (pfd < 0)
		E2E_FAIL("open memory/probe: %s (CONFIG_ARCH_MEMORY_PROBE?)",
			 strerrorname_np(errno));
	/* probed blocks stay offline: there is no RAM behind them */
	if (e2e_get_file(HOTADD_AUTO, auto_online, sizeof(auto_online)) < 0)
		E2E_FAIL("read %s: %s", HOTADD_AUTO, strerrorname_np(errno));
	auto_online[strcspn(auto_online, "\n")] = 0;
	e2e_write_str(HOTADD_AUTO, "offline");
	e2e_fault_setup();
	for (;;) {
		int err;

		E2E_ASSERT(steps < HOTADD_MAX_STEPS, "no hot-add got through in %d steps",
			   HOTADD_MAX_STEPS);
		E2E_ASSERT(k < HOTADD_REGIONS, "%u regions used up by absorbed failures", k);
		len = snprintf(addr, sizeof(addr), "0x%" PRIx64, hotadd_addr(k));
		hotadd_block(k, blk, sizeof(blk));
		E2E_ASSERT(access(blk, F_OK), "%s exists before its hot-add", blk);
		steps++;
		e2e_fault_arm(n);
		r = pwrite(pfd, addr, len, 0);
		err = errno;
		left = e2e_fault_disarm();
		injected += !left;
		e2e_fault_scan(kfd, pts);
		if (pts->reports)
			E2E_FAIL("step %u (%s): kernel report: %s", n,
				 left ? "nothing failed" : pts->last, pts->report);
		if (r == len) {
			E2E_ASSERT(!access(blk, F_OK), "%s hot-added, but there is no %s",
				   addr, blk);
			/* RAM that is not there must never be used */
			snprintf(blk + strlen(blk), sizeof(blk) - strlen(blk), "/state");
			if (e2e_get_file(blk, st, sizeof(st)) < 0 || strncmp(st, "offline", 7))
				E2E_FAIL("%s is %s, not offline: stop before it is used", blk, st);
			dm = direct_map_kb();
			E2E_ASSERT(dm >= dm0 + (long)(mb_size / KiB),
				   "%s hot-added, but the direct map grew by %ld kB only",
				   addr, dm - dm0);
			dm0 = dm;
			if (left)
				break;	/* nothing failed: the walk is through */
			/*
			 * A failure was absorbed: a fallback of the hot-add, or
			 * an allocation of the kernel's own (KASAN's stack
			 * depot) that took the n-th place this time.  The block
			 * is there; go on in the next region, with the same n
			 * once (the hot-add's own n-th allocation), then past it.
			 */
			absorbed++;
			e2e_diag("step %u: absorbed in region %u (%s)", n, k,
				 retried ? "again" : "first");
			k++;
			if (!retried) {
				retried = 1;
				continue;
			}
			retried = 0;
			n++;
			continue;
		}
		retried = 0;
		E2E_ASSERT(!left, "step %u: the write failed (%s) with no failure injected",
			   n, strerrorname_np(err));
		E2E_ASSERT(err == ENOMEM, "step %u: a failed allocation in %s came back as %s, "
			   "not ENOMEM", n, pts->last, strerrorname_np(err));
		E2E_ASSERT(access(blk, F_OK), "step %u (%s failed): %s left behind",
			   n, pts->last, blk);
		dm = direct_map_kb();
		E2E_ASSERT(dm == dm0, "step %u (%s failed): the direct map grew by %ld kB",
			   n, pts->last, dm - dm0);
		n++;
	}
	close(pfd);
	e2e_write_str(HOTADD_AUTO, auto_online);
	e2e_fault_print_points("hotadd", pts);
	e2e_diag("faults: hotadd: %u steps, %u failures injected, %u failure points, "
		 "%u logged, %u absorbed (%u regions)", steps, injected, pts->count,
		 pts->logged, absorbed, k + 1);
	E2E_ASSERT(n > 1, "the first write got through: nothing was failed");
	free(pts);
}

/* The end of a fault scenario on d: back to 0, no kernel report since the
 * last scan, the machine idle again; the failure points printed. */
static void faults_back_to_zero(const struct vdev *d, int kfd,
				struct e2e_fault_points *pts, const char *what)
{
	resize(d, 0, 120, 0, 1, kfd);
	e2e_fault_scan(kfd, pts);
	if (pts->reports)
		E2E_FAIL("kernel report: %s", pts->report);
	expect_idle("end");
	e2e_fault_print_points(what, pts);
}

/* ---- onlining under failed allocations, from this thread ----------------- */

/*
 * One memory block of the SBM device, added offline (auto_online_blocks
 * "offline"), onlined from this thread with the n-th allocation of the
 * thread failing (fail-nth), n = 1, 2, ... until the write gets through.
 * The memory notifiers run in this thread: KASAN maps the shadow of the
 * block (a vmalloc), the others set up what the block needs.  Every failed
 * write must fail with ENOMEM and leave the block offline, MemTotal as it
 * was, and no kernel report; a write that gets through although a failure
 * was injected (absorbed by a fallback) is undone by offlining the block
 * again.  Found on 7.3 with this test: the vmalloc of KASAN's shadow,
 * failing, left its area to a deferred cleanup that KASAN's own
 * MEM_CANCEL_ONLINE then freed a second time (use-after-free).
 */
#define ONLINE_MAX_STEPS 2000

/* The path of the state file of the first memory block of d; "" if d has
 * none. */
static void first_block_state(const struct vdev *d, char *path, size_t size)
{
	DIR *dir = opendir("/sys/devices/system/memory");
	struct dirent *e;
	long id, best = -1;

	while (dir && (e = readdir(dir)))
		if (block_of(e, d, &id) && (best < 0 || id < best))
			best = id;
	if (dir)
		closedir(dir);
	if (best < 0)
		snprintf(path, size, "%s", "");
	else
		snprintf(path, size, "/sys/devices/system/memory/memory%ld/state", best);
}

static void t_faults_online(void)
{
	struct e2e_fault_points *pts = calloc(1, sizeof(*pts));
	const struct vdev *d = SBM;
	char ans[300], st[32], state[128], auto_online[32];
	int kfd = e2e_kmsg_open(), fd;
	unsigned int n = 1, injected = 0, absorbed = 0;
	long kb0;
	ssize_t r;

	E2E_ASSERT(pts, "calloc");
	idle_machine = 0;
	expect_idle("start");
	if (e2e_get_file(HOTADD_AUTO, auto_online, sizeof(auto_online)) < 0)
		E2E_FAIL("read %s: %s", HOTADD_AUTO, strerrorname_np(errno));
	auto_online[strcspn(auto_online, "\n")] = 0;
	e2e_write_str(HOTADD_AUTO, "offline");
	host(ans, sizeof(ans), 330, "set %s %" PRIu64 " 300", d->id, mb_size);
	if (strncmp(ans, "ok ", 3))
		E2E_FAIL("%s to one memory block: host: %s", d->id, ans);
	/* the driver adds the block after the device plugged it */
	for (int t = 0; first_block_state(d, state, sizeof(state)), !state[0]; t++) {
		E2E_ASSERT(t < 300, "%s plugged one memory block, but has none after 30 s",
			   d->id);
		usleep(100000);
	}
	if (e2e_get_file(state, st, sizeof(st)) < 0 || strncmp(st, "offline", 7))
		E2E_FAIL("%s is %s, not offline", state, st);
	kb0 = memtotal();
	e2e_fault_setup();
	for (;; n++) {
		unsigned int left;
		int err;

		E2E_ASSERT(n <= ONLINE_MAX_STEPS, "no online got through in %d steps",
			   ONLINE_MAX_STEPS);
		fd = open(state, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			E2E_FAIL("open %s: %s", state, strerrorname_np(errno));
		e2e_fault_arm(n);
		r = write(fd, "online_movable", 14);
		err = errno;
		left = e2e_fault_disarm();
		close(fd);
		injected += !left;
		e2e_fault_scan(kfd, pts);
		if (pts->reports)
			E2E_FAIL("step %u (%s): kernel report: %s", n,
				 left ? "nothing failed" : pts->last, pts->report);
		if (r == 14) {
			if (left)
				break;	/* nothing failed: the walk is through */
			absorbed++;
			e2e_write_str(state, "offline");
			continue;
		}
		E2E_ASSERT(!left, "step %u: online failed (%s) with no failure injected",
			   n, strerrorname_np(err));
		E2E_ASSERT(err == ENOMEM, "step %u: a failed allocation in %s came back as %s, "
			   "not ENOMEM", n, pts->last, strerrorname_np(err));
		if (e2e_get_file(state, st, sizeof(st)) < 0 || strncmp(st, "offline", 7))
			E2E_FAIL("step %u (%s failed): the block is %s, not offline", n,
				 pts->last, st);
		E2E_ASSERT(memtotal() == kb0, "step %u (%s failed): MemTotal %ld kB, was %ld kB",
			   n, pts->last, memtotal(), kb0);
	}
	E2E_ASSERT(memtotal() == kb0 + (long)(mb_size / KiB), "online: MemTotal %ld kB, "
		   "expected %ld kB", memtotal(), kb0 + (long)(mb_size / KiB));
	e2e_write_str(HOTADD_AUTO, auto_online);
	faults_back_to_zero(d, kfd, pts, "online");
	e2e_diag("faults: online: %u steps, %u failures injected, %u failure points, "
		 "%u logged, %u absorbed", n, injected, pts->count, pts->logged, absorbed);
	E2E_ASSERT(n > 1, "the first write got through: nothing was failed");
	free(pts);
}

/* ---- page tables of a hot-add that cannot be allocated (arm64) ----------- */

/*
 * arm64: while the SBM device grows by two memory blocks, every page-table
 * allocation for the linear map of the new memory fails: fail_page_alloc
 * for any task, filtered on the stack trace to the allocator of those
 * tables (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER,
 * debug/kunitconfig.arm64).  The hot-add must fail and leave nothing (no
 * memory block, MemTotal at the baseline, nothing plugged), with no kernel
 * report; then, the faults off, the same request is served in full.
 * Before the fix the first failed allocation is a BUG() in
 * __pgd_pgtable_alloc().
 */
#define PGTABLE_FN	"__pgd_pgtable_alloc"
#define PGTABLE_SIZE	(256 * MiB)
#define PGTABLE_WINDOW_S 10
#define PGTABLE_TIMES	1000
#define PGTABLE_SETTLE_S 3

/* [start, end) of the text of kernel function fn, from /proc/kallsyms. */
static void kallsyms_range(const char *fn, unsigned long *start, unsigned long *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	unsigned long a;

	*start = 0;
	*end = ULONG_MAX;
	if (!f)
		E2E_FAIL("open /proc/kallsyms: %s (CONFIG_KALLSYMS?)", strerrorname_np(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &a, &type, name) == 3 && !strcmp(name, fn)) {
			*start = a;
			break;
		}
	rewind(f);
	while (*start && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &a, &type, name) == 3 && a > *start &&
		    a < *end)
			*end = a;
	fclose(f);
	E2E_ASSERT(*start, "no %s in /proc/kallsyms", fn);
	E2E_ASSERT(*end != ULONG_MAX, "no symbol after %s in /proc/kallsyms", fn);
}

static void t_faults_pgtable(void)
{
	struct e2e_fault_points *pts = calloc(1, sizeof(*pts));
	const struct vdev *d = SBM;
	int kfd = e2e_kmsg_open();
	unsigned long start, end, injected;
	uint64_t size, req;
	char v[32], ans[300];

	E2E_ASSERT(pts, "calloc");
	idle_machine = 0;
	expect_idle("start");
	kallsyms_range(PGTABLE_FN, &start, &end);
	e2e_fault_setup();
	if (access(E2E_DEBUGFS "/fail_page_alloc/require-start", F_OK))
		E2E_FAIL("no fail_page_alloc/require-start: "
			 "CONFIG_FAULT_INJECTION_STACKTRACE_FILTER is off");
	snprintf(v, sizeof(v), "%#lx", start);
	e2e_fault_knob("fail_page_alloc", "require-start", v);
	snprintf(v, sizeof(v), "%#lx", end);
	e2e_fault_knob("fail_page_alloc", "require-end", v);
	e2e_fault_knob("fail_page_alloc", "stacktrace-depth", "32");
	e2e_fault_knob("fail_page_alloc", "task-filter", "N");
	snprintf(v, sizeof(v), "%d", PGTABLE_TIMES);
	e2e_fault_knob("fail_page_alloc", "times", v);
	e2e_fault_knob("fail_page_alloc", "probability", "100");
	host(ans, sizeof(ans), 30, "request %s %" PRIu64, d->id, (uint64_t)PGTABLE_SIZE);
	for (int t = 0; !strcmp(ans, "ok") && t < PGTABLE_WINDOW_S; t += FAULT_NUDGE_S) {
		sleep(FAULT_NUDGE_S);
		host(ans, sizeof(ans), 30, "request %s %" PRIu64, d->id,
		     (uint64_t)PGTABLE_SIZE);
	}
	E2E_ASSERT(!strcmp(ans, "ok"), "host: %s", ans);
	/*
	 * Still under the faults, the driver's last attempt ends (its next
	 * one is its retry timer's, 50 s or more away): a hot-add that failed
	 * must have given back what it plugged, and added nothing.
	 */
	sleep(PGTABLE_SETTLE_S);
	query(d, &size, &req);
	E2E_ASSERT(size == 0, "%s plugged %" PRIu64 " MiB the kernel could not add",
		   d->id, size / MiB);
	E2E_ASSERT(memtotal() == baseline_kb, "MemTotal %ld kB after the failed hot-add, "
		   "baseline %ld kB", memtotal(), baseline_kb);
	check_blocks(d, 0, 1, "after the failed hot-add");
	host(ans, sizeof(ans), 30, "request %s 0", d->id);
	E2E_ASSERT(!strcmp(ans, "ok"), "request 0: host: %s", ans);
	e2e_fault_knob("fail_page_alloc", "probability", "0");
	if (e2e_get_file(E2E_DEBUGFS "/fail_page_alloc/times", v, sizeof(v)) < 0)
		E2E_FAIL("read fail_page_alloc/times: %s", strerrorname_np(errno));
	injected = PGTABLE_TIMES - strtoul(v, NULL, 10);
	e2e_fault_knob("fail_page_alloc", "require-start", "0");
	snprintf(v, sizeof(v), "%lu", ULONG_MAX);
	e2e_fault_knob("fail_page_alloc", "require-end", v);
	e2e_fault_knob("fail_page_alloc", "task-filter", "Y");
	e2e_fault_scan(kfd, pts);
	if (pts->reports)
		E2E_FAIL("kernel report under the faults: %s", pts->report);
	E2E_ASSERT(injected > 0, "no allocation of %s failed in %d s: the hot-add "
		   "allocated no page table there", PGTABLE_FN, PGTABLE_WINDOW_S);
	e2e_diag("%lu page-table allocations failed in %d s, last in %s", injected,
		 PGTABLE_WINDOW_S, pts->last);
	/* the same request without faults: served */
	resize(d, PGTABLE_SIZE, 120, 0, 1, kfd);
	faults_back_to_zero(d, kfd, pts, "pgtable");
	free(pts);
}

static const struct e2e_test tests[] = {
	{ "sbm_grow_shrink", t_sbm_grow_shrink, 300 },
	{ "bbm_grow_shrink", t_bbm_grow_shrink, 300 },
	{ "unplug_under_use", t_unplug_under_use, 400 },
	{ "cycles", t_cycles, 400 },
	{ "bad_requests", t_bad_requests, 120 },
	{ "bbm_pinned_unplug", t_bbm_pinned_unplug, 400 },
	{ "bbm_offline_error", t_bbm_offline_error, 300 },
	{ "sbm_offline_error", t_sbm_offline_error, 300 },
	{ "sbm_request_changes", t_sbm_request_changes, 400 },
	{ "race_resize", t_race_resize, 300 },
	{ "race_bbm_sysfs", t_race_bbm_sysfs, 300 },
	{ "reboot_prepare", t_reboot_prepare, 200 },
	{ "reboot_replug", t_reboot_replug, 300 },
	{ "bench", t_bench, 3600 },
	{ "soak", t_soak, 7200 },
	{ "faults_sbm", t_faults_sbm, 1800 },
	{ "faults_bbm", t_faults_bbm, 1800 },
	{ "faults_hotadd", t_faults_hotadd, 900 },
	{ "faults_pgtable", t_faults_pgtable, 600 },
	{ "faults_online", t_faults_online, 1200 },
};

/* ---- main: ask the host what to run -------------------------------------- */

static int setup_failed(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static int setup_failed(const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	e2e_diag("setup: %s", msg);
	return 1;
}

int main(int argc, char **argv)
{
	char ans[600], *tok, *save, *names[E2E_COUNT(tests) + 2];
	char buf[64];
	int n = 0, rc, reboot = 0;

	(void)argc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Kernel messages of level info and below stay off the console (they
	 * are echoed by the tests as "# kmsg:" lines): a printk in the middle
	 * of an "e2e-sync:" line would break the exchange with the host.
	 * Warnings and worse (splats) still go to the console. */
	klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 5);

	if (e2e_get_file("/sys/devices/system/memory/block_size_bytes", buf,
			 sizeof(buf)) < 0)
		return setup_failed("no memory block size: %s",
				    strerrorname_np(errno));
	mb_size = strtoull(buf, NULL, 16);

	host(ans, sizeof(ans), 60, "info");
	for (tok = strtok_r(ans, " ", &save); tok && ndevs < 2;
	     tok = strtok_r(NULL, " ", &save)) {
		struct vdev *d = &devs[ndevs++];

		snprintf(d->id, sizeof(d->id), "%s", tok);
		d->addr = strtoull(strtok_r(NULL, " ", &save) ?: "0", NULL, 0);
		d->max = strtoull(strtok_r(NULL, " ", &save) ?: "0", NULL, 0);
		d->block = strtoull(strtok_r(NULL, " ", &save) ?: "0", NULL, 0);
		d->bbm = d->block > mb_size;
	}
	if (ndevs != 2 || devs[0].bbm || !devs[1].bbm || !devs[0].max)
		return setup_failed("unexpected devices from the host");
	e2e_diag("memory block size %" PRIu64 " MiB; %s at %#" PRIx64 " (%" PRIu64
		 " MiB, block %" PRIu64 " KiB), %s at %#" PRIx64 " (%" PRIu64
		 " MiB, block %" PRIu64 " KiB)", mb_size / MiB, devs[0].id,
		 devs[0].addr, devs[0].max / MiB, devs[0].block / KiB,
		 devs[1].id, devs[1].addr, devs[1].max / MiB,
		 devs[1].block / KiB);

	host(ans, sizeof(ans), 60, "hello %ld", memtotal());
	baseline_kb = strtol(strtok_r(ans, " ", &save) ?: "0", NULL, 10);
	names[n++] = argv[0];
	while ((tok = strtok_r(NULL, " ", &save)) && n < (int)E2E_COUNT(names) - 1) {
		if (!strcmp(tok, "+reboot"))
			reboot = 1;
		else
			names[n++] = tok;
	}
	names[n] = NULL;
	e2e_diag("baseline MemTotal %ld kB (now %ld kB)", baseline_kb,
		 memtotal());

	rc = e2e_main(n, names, tests, E2E_COUNT(tests), NULL, NULL);
	/* A run stopped by a failed precondition ends here: no reset, no
	 * second boot (the host reports their cases as not run). */
	if (reboot && rc != E2E_EXIT_BAIL) {
		fflush(NULL);
		sync();
		host(ans, sizeof(ans), 120, "reboot");
		e2e_diag("still here after asking for a reset: %s", ans);
		return 1;
	}
	return rc;
}
