/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small TAP harness for the static guest test programs of e2e/.
 *
 *	static void t_foo(void) { E2E_OK(mkdir("/tmp/x", 0755)); ... }
 *	static const struct e2e_test tests[] = {
 *		{ "foo", t_foo },
 *		{ "bar", t_bar, 120 },		// own timeout, seconds
 *	};
 *	int main(int argc, char **argv)
 *	{
 *		return e2e_main(argc, argv, tests, E2E_COUNT(tests), setup, NULL);
 *	}
 *
 * Output (console): "TAP version 13", "1..N", then per test "ok N - name",
 * "not ok N - name # reason" or "ok N - name # SKIP reason"; diagnostics are
 * "# ..." lines.  Every test runs in a forked child (its own process group,
 * killed with its descendants on timeout), as root; e2e_as_user() runs a
 * function as another uid, optionally in a new user + mount namespace.
 * Arguments name the tests to run (in that order); none: all of them.
 *
 * A failing check prints "# file:line: what" and ends the test; the first
 * such line becomes the TAP reason.  Checks work the same in the children
 * of e2e_as_user(): their reason reaches the test's line.
 */
#ifndef E2E_TEST_H
#define E2E_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

struct e2e_test {
	const char *name;
	void (*fn)(void);
	unsigned int timeout;	/* seconds; 0: E2E_DEFAULT_TIMEOUT */
};

#define E2E_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#ifndef E2E_DEFAULT_TIMEOUT
#define E2E_DEFAULT_TIMEOUT 120
#endif
#define E2E_EXIT_SKIP 4
/* A test found the machine in a state no later test can start from (e.g.
 * memory it cannot unplug): the harness stops there (E2E_REQUIRE). */
#define E2E_EXIT_BAIL 5

/* Where a failing check writes its reason (a pipe to the harness). */
static int e2e_reason_fd = -1;

/* One line to the console, drained before returning, so that kernel
 * messages printed later cannot land in the middle of it. */
static void e2e_line(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void e2e_line(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0) {
		/* the console is gone: nothing to tell */
	}
	tcdrain(1);
}

/* A "# ..." diagnostic line. */
#define e2e_diag(fmt, ...) e2e_line("# " fmt, ##__VA_ARGS__)

static void e2e_vreason(const char *file, int line, const char *fmt,
			va_list ap)
{
	char msg[700];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '#')
			*p = ' ';
	e2e_line("# %s:%d: %s", file, line, msg);
	if (e2e_reason_fd >= 0) {
		char r[800];
		int n = snprintf(r, sizeof(r), "%s:%d: %s\n", file, line, msg);

		if (write(e2e_reason_fd, r, n) < 0) {
			/* the harness will say "no reason" */
		}
	}
}

/* Give the reason, end the test with exit code: 1 (failed),
 * E2E_EXIT_SKIP or E2E_EXIT_BAIL (see the harness). */
static __attribute__((noreturn, format(printf, 4, 5)))
void e2e_exit_at(int code, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	e2e_vreason(file, line, fmt, ap);
	va_end(ap);
	_exit(code);
}

#define e2e_fail_at(file, line, ...) e2e_exit_at(1, file, line, __VA_ARGS__)
#define e2e_skip_at(file, line, ...) \
	e2e_exit_at(E2E_EXIT_SKIP, file, line, __VA_ARGS__)
#define e2e_bail_at(file, line, ...) \
	e2e_exit_at(E2E_EXIT_BAIL, file, line, __VA_ARGS__)

#define E2E_FAIL(fmt, ...) e2e_fail_at(__FILE__, __LINE__, fmt, ##__VA_ARGS__)
#define E2E_SKIP(fmt, ...) e2e_skip_at(__FILE__, __LINE__, fmt, ##__VA_ARGS__)

/* cond must hold for this test and every later one to start: if not, this
 * test fails and the run stops; every test not yet run is reported "not
 * ok" with this reason instead of waiting out its own timeouts. */
#define E2E_REQUIRE(cond, fmt, ...) do {				\
	if (!(cond))							\
		e2e_bail_at(__FILE__, __LINE__, "precondition (%s) "	\
			    fmt, #cond, ##__VA_ARGS__);			\
} while (0)

/* cond must hold. */
#define E2E_ASSERT(cond, fmt, ...) do {					\
	if (!(cond))							\
		E2E_FAIL("(%s) " fmt, #cond, ##__VA_ARGS__);		\
} while (0)

/* A call that must succeed (return >= 0); evaluates to its result. */
#define E2E_OK(expr) ({							\
	errno = 0;							\
	long __r = (long)(expr);					\
	if (__r < 0)							\
		E2E_FAIL("%s: %s", #expr, strerrorname_np(errno) ?: "?");\
	__r;								\
})

/* A call that must fail (-1) with errno err. */
#define E2E_ERRNO(expr, err) do {					\
	errno = 0;							\
	long __r = (long)(expr);					\
	int __e = errno;						\
	if (__r != -1 || __e != (err))					\
		E2E_FAIL("%s: expected -1/%s, got %ld/%s", #expr,	\
			 strerrorname_np(err) ?: "?", __r,		\
			 __r == -1 ? (strerrorname_np(__e) ?: "?") : "-");\
} while (0)

/* ---- running as another user, in a user namespace ---------------------- */

#define E2E_USERNS 1	/* unshare(CLONE_NEWUSER|CLONE_NEWNS), map 0 -> uid */

static void e2e_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		E2E_FAIL("open %s: %s", path, strerrorname_np(errno) ?: "?");
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		E2E_FAIL("write '%s' to %s: %s", s, path,
			 strerrorname_np(errno) ?: "?");
	close(fd);
}

/*
 * Become uid/gid (no supplementary groups); with E2E_USERNS, then enter a
 * new user and mount namespace where that uid/gid is 0 (single-line maps,
 * setgroups denied), mounts private.  Fails the test on error.
 */
static void e2e_become(uid_t uid, gid_t gid, int flags)
{
	char map[64];

	E2E_OK(setgroups(0, NULL));
	E2E_OK(setresgid(gid, gid, gid));
	E2E_OK(setresuid(uid, uid, uid));
	/* A uid change clears "dumpable", which makes /proc/self/ root's. */
	E2E_OK(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	if (!(flags & E2E_USERNS))
		return;
	E2E_OK(unshare(CLONE_NEWUSER | CLONE_NEWNS));
	e2e_write_str("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)uid);
	e2e_write_str("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)gid);
	e2e_write_str("/proc/self/gid_map", map);
	E2E_OK(setresgid(0, 0, 0));
	E2E_OK(setresuid(0, 0, 0));
	E2E_OK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
}

/*
 * Run fn(arg) in a child as uid/gid (see e2e_become()) and wait for it.
 * Returns 0 if it returned normally; a failing check in fn fails the test.
 */
static void e2e_as_user_at(const char *file, int line, uid_t uid, gid_t gid,
			   int flags, void (*fn)(void *), void *arg)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		e2e_fail_at(file, line, "fork: %s", strerrorname_np(errno));
	if (pid == 0) {
		e2e_become(uid, gid, flags);
		fn(arg);
		fflush(NULL);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			e2e_fail_at(file, line, "waitpid: %s",
				    strerrorname_np(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));	/* it said why */
	e2e_fail_at(file, line, "child as uid %u killed by signal %d",
		    (unsigned int)uid, WTERMSIG(status));
}

#define e2e_as_user(uid, gid, flags, fn, arg) \
	e2e_as_user_at(__FILE__, __LINE__, uid, gid, flags, fn, arg)

/* ---- small helpers -------------------------------------------------------- */

static void e2e_put_file(const char *path, const char *content, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t len = strlen(content);

	if (fd < 0)
		E2E_FAIL("create %s: %s", path, strerrorname_np(errno) ?: "?");
	if (write(fd, content, len) != (ssize_t)len)
		E2E_FAIL("write %s: %s", path, strerrorname_np(errno) ?: "?");
	if (close(fd))
		E2E_FAIL("close %s: %s", path, strerrorname_np(errno) ?: "?");
}

/* The content of path (NUL-terminated, at most size-1 bytes); -1 + errno
 * if it cannot be opened or read. */
static ssize_t e2e_get_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -1;
	while ((size_t)total < size - 1) {
		n = read(fd, buf + total, size - 1 - total);
		if (n < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		total += n;
	}
	buf[total] = 0;
	close(fd);
	return total;
}

/* mkdir -p */
static void e2e_mkdirs(const char *path, mode_t mode)
{
	char p[512];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, mode) && errno != EEXIST)
			E2E_FAIL("mkdir %s: %s", p, strerrorname_np(errno));
		*s = '/';
	}
	if (mkdir(p, mode) && errno != EEXIST)
		E2E_FAIL("mkdir %s: %s", p, strerrorname_np(errno));
}

/* /dev/kmsg, positioned after the last record: what the kernel logs from
 * now on can be searched with e2e_kmsg_find(). */
static int e2e_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		E2E_FAIL("open /dev/kmsg: %s", strerrorname_np(errno) ?: "?");
	E2E_OK(lseek(fd, 0, SEEK_END));
	return fd;
}

/* The next record of a /dev/kmsg reader (NUL-terminated in rec): its
 * length, 0 when there is no new one.  Records overwritten before they
 * were read are skipped. */
static ssize_t e2e_kmsg_next(int fd, char *rec, size_t size)
{
	ssize_t n;

	do
		n = read(fd, rec, size - 1);
	while (n < 0 && errno == EPIPE);
	if (n <= 0)
		return 0;
	rec[n] = 0;
	return n;
}

/* Does a record logged since e2e_kmsg_open() (or the last call) contain
 * needle?  Consumes every new record. */
static int e2e_kmsg_find(int fd, const char *needle)
{
	char rec[2048];
	int found = 0;

	while (e2e_kmsg_next(fd, rec, sizeof(rec)))
		if (strstr(rec, needle))
			found = 1;
	return found;
}

/*
 * True when the running kernel is at least major.minor (uname's release,
 * "6.12.118" for instance).  For the few scenarios whose expected outcome
 * differs between the trees by design; the scenario names the difference.
 */
static int e2e_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		e2e_fail_at(__FILE__, __LINE__, "cannot read the kernel release");
	return ma > major || (ma == major && mi >= minor);
}

/* ---- several things at once ---------------------------------------------- */

/* How many CPUs are online (the gate boots two: qemu_configs/). */
static int e2e_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

#define E2E_MAX_WORKERS 16

/* Seconds since some fixed point (CLOCK_MONOTONIC). */
static double e2e_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Where pid is stuck: its kernel stack (/proc/<pid>/stack), as "# "
 * lines; the first frame goes to top (size bytes). */
static void e2e_show_stack(pid_t pid, char *top, size_t size)
{
	char path[64], buf[4096], *line, *save = NULL;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (e2e_get_file(path, buf, sizeof(buf)) >= 0) {
		char *st = strrchr(buf, ')');
		char wchan[128] = "";

		snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
		e2e_get_file(path, wchan, sizeof(wchan));
		e2e_line("#   %d: state %c, wchan %s", (int)pid,
			 st && st[1] ? st[2] : '?', wchan[0] ? wchan : "-");
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	top[0] = 0;
	if (e2e_get_file(path, buf, sizeof(buf)) < 0) {
		snprintf(top, size, "(%s: %s)", path, strerrorname_np(errno));
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		e2e_line("#   %d: %s", (int)pid, line);
		if (!top[0])
			snprintf(top, size, "%s", line);
	}
}

/* Called (if set) when e2e_parallel() gives up on a worker, before the
 * workers are killed: what the test can tell about where they hang. */
static void (*e2e_parallel_on_hang)(void);

/*
 * Run fn(i, arg) for i = 0..n-1 at the same time, each in a child of its
 * own (same uid and namespaces as the caller), worker i pinned to CPU
 * i % e2e_cpus(); all of them start together (they wait on a pipe that is
 * closed once every one is forked).  Waits for all, at most timeout_s
 * seconds: then the kernel stack of each worker still running is printed
 * and the test fails, naming where the first one hangs (the workers are
 * killed).  A failing check in a worker fails the test with its reason; a
 * worker killed by a signal too.
 */
static void e2e_parallel_at(const char *file, int line, int n,
			    void (*fn)(int, void *), void *arg, int timeout_s)
{
	pid_t pids[E2E_MAX_WORKERS];
	int gate[2], code = 0, sig = 0, who = -1, cpus = e2e_cpus();
	int running = n, hung = -1;
	char top[256] = "";
	double t0;

	if (n < 1 || n > E2E_MAX_WORKERS)
		e2e_fail_at(file, line, "%d workers", n);
	if (pipe(gate))
		e2e_fail_at(file, line, "pipe: %s", strerrorname_np(errno));
	fflush(NULL);
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			e2e_fail_at(file, line, "fork: %s", strerrorname_np(errno));
		if (pids[i] == 0) {
			cpu_set_t set;
			char c;

			close(gate[1]);
			CPU_ZERO(&set);
			CPU_SET(i % cpus, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				e2e_fail_at(file, line, "worker %d: sched_setaffinity: %s",
					    i, strerrorname_np(errno));
			while (read(gate[0], &c, 1) < 0 && errno == EINTR)
				;
			close(gate[0]);
			fn(i, arg);
			fflush(NULL);
			_exit(0);
		}
	}
	close(gate[0]);
	close(gate[1]);		/* go */
	t0 = e2e_now();
	while (running) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		int i;

		if (pid < 0 && errno != EINTR)
			e2e_fail_at(file, line, "waitpid: %s",
				    strerrorname_np(errno));
		if (pid <= 0) {
			if (hung < 0 && e2e_now() - t0 > timeout_s) {
				for (i = 0; i < n; i++) {
					char t[256];

					if (!pids[i])
						continue;
					e2e_line("# worker %d (pid %d) still "
						 "running after %d s, in:", i,
						 (int)pids[i], timeout_s);
					/* a running task's stack is
					 * unreliable: a few samples */
					for (int k = 0; k < 5; k++) {
						e2e_show_stack(pids[i], t, sizeof(t));
						usleep(200000);
					}
					if (hung < 0) {
						hung = i;
						snprintf(top, sizeof(top), "%s", t);
					}
				}
				if (e2e_parallel_on_hang)
					e2e_parallel_on_hang();
				for (i = 0; i < n; i++)
					if (pids[i])
						kill(pids[i], SIGKILL);
			}
			usleep(50000);
			continue;
		}
		for (i = 0; i < n && pids[i] != pid; i++)
			;
		if (i == n)
			continue;	/* not ours */
		pids[i] = 0;
		running--;
		if (WIFEXITED(status) && WEXITSTATUS(status) && !code && !sig) {
			code = WEXITSTATUS(status);
			who = i;
		} else if (WIFSIGNALED(status) && !code && !sig) {
			sig = WTERMSIG(status);
			who = i;
		}
	}
	if (hung >= 0)
		e2e_fail_at(file, line, "worker %d still running after %d s, "
			    "in %s (kernel stacks above)", hung, timeout_s, top);
	if (code)
		_exit(code);	/* the worker said why */
	if (sig)
		e2e_fail_at(file, line, "worker %d killed by signal %d", who, sig);
}

#define e2e_parallel(n, fn, arg, timeout_s) \
	e2e_parallel_at(__FILE__, __LINE__, n, fn, arg, timeout_s)

/* ---- waiting for the host ------------------------------------------------ */

/*
 * Ask the host to act, and wait for its answer: prints "e2e-sync: <tag>
 * #<FNV-1a of tag, 8 hex digits>" on the console and reads the line "e2e-reply: <tag> <answer>" that the
 * host types on it (the host side waits with Qemu.wait_for() and answers
 * with Qemu.send(), e2e/lib/e2e/qemu.py; e2e/virtio_mem/vmem.py's
 * Host.serve() is one).  The answer (without the prefix) goes to answer;
 * fails the test after timeout_s.
 */
#define E2E_SYNC_RESEND 5	/* seconds */

/* FNV-1a, 32 bits: the checksum of a sync line's tag. */
static unsigned int e2e_fnv1a(const char *s)
{
	unsigned int h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void e2e_host_sync_at(const char *file, int lineno, const char *tag,
			     char *answer, size_t size, int timeout_s)
{
	char line[512], prefix[160];
	struct termios tio;
	size_t len = 0, plen;
	struct timespec t0, now;
	unsigned int sum;
	int sent;

	snprintf(prefix, sizeof(prefix), "e2e-reply: %s ", tag);
	plen = strlen(prefix);
	/* line mode, no echo of what the host types */
	if (tcgetattr(0, &tio) == 0) {
		tio.c_lflag |= ICANON;
		tio.c_lflag &= ~(ECHO | ECHONL);
		tcsetattr(0, TCSANOW, &tio);
	}
	/*
	 * The kernel may print into the middle of the line on the console:
	 * the host acts only on a line whose checksum matches, and the line
	 * goes out again every E2E_SYNC_RESEND s until the answer is there
	 * (the host answers a tag it already served with the same answer,
	 * without acting again).
	 */
	sum = e2e_fnv1a(tag);
	e2e_line("e2e-sync: %s #%08x", tag, sum);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sent = 0;
	for (;;) {
		struct pollfd pfd = { .fd = 0, .events = POLLIN };
		int left, since;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		since = (now.tv_sec - t0.tv_sec) * 1000 +
			(now.tv_nsec - t0.tv_nsec) / 1000000;
		left = timeout_s * 1000 - since;
		if (left <= 0)
			e2e_fail_at(file, lineno,
				    "no answer from the host to '%s' in %d s",
				    tag, timeout_s);
		if (since >= (sent + 1) * E2E_SYNC_RESEND * 1000) {
			sent++;
			e2e_line("e2e-sync: %s #%08x", tag, sum);
		}
		if (left > E2E_SYNC_RESEND * 1000)
			left = E2E_SYNC_RESEND * 1000;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = read(0, line + len, sizeof(line) - 1 - len);
		if (n <= 0) {
			usleep(100000);
			continue;
		}
		len += n;
		line[len] = 0;
		for (char *nl; (nl = strchr(line, '\n')); ) {
			*nl = 0;
			if (nl > line && nl[-1] == '\r')
				nl[-1] = 0;
			if (!strncmp(line, prefix, plen)) {
				snprintf(answer, size, "%s", line + plen);
				return;
			}
			memmove(line, nl + 1, strlen(nl + 1) + 1);
			len = strlen(line);
		}
		if (len >= sizeof(line) - 1)
			len = 0;	/* an overlong line: drop it */
	}
}

#define e2e_host_sync(tag, answer, size, timeout_s) \
	e2e_host_sync_at(__FILE__, __LINE__, tag, answer, size, timeout_s)

/* ---- the harness ---------------------------------------------------------- */

/* The reason of the test that stopped the run (E2E_REQUIRE). */
static char e2e_bail_reason[800];

/* 0: passed or skipped; 1: failed; 2: failed and stopped the run. */
static int e2e_run_one(const struct e2e_test *t, int num)
{
	unsigned int timeout = t->timeout ? t->timeout : E2E_DEFAULT_TIMEOUT;
	struct timespec t0, now;
	int fds[2], status = 0, timed_out = 0, skip;
	char reason[800] = "";
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC)) {
		e2e_line("not ok %d - %s # pipe: %s", num, t->name,
			 strerrorname_np(errno));
		return 1;
	}
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fflush(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		e2e_line("not ok %d - %s # fork: %s", num, t->name,
			 strerrorname_np(errno));
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		e2e_reason_fd = fds[1];
		setpgid(0, 0);
		umask(022);
		t->fn();
		fflush(NULL);
		_exit(0);
	}
	close(fds[1]);
	setpgid(pid, pid);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= (time_t)timeout) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			timed_out = 1;
			break;
		}
		usleep(20000);
	}
	/* Reap the test's orphans, if any (we are init's child, not init). */
	kill(-pid, SIGKILL);
	n = read(fds[0], reason, sizeof(reason) - 1);
	reason[n > 0 ? n : 0] = 0;
	close(fds[0]);
	reason[strcspn(reason, "\n")] = 0;	/* the first one */

	skip = WIFEXITED(status) && WEXITSTATUS(status) == E2E_EXIT_SKIP;
	if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == E2E_EXIT_BAIL) {
		e2e_line("not ok %d - %s # %s", num, t->name, reason);
		snprintf(e2e_bail_reason, sizeof(e2e_bail_reason), "%.80s: %.700s",
			 t->name, reason);
		return 2;
	}
	if (timed_out) {
		e2e_line("not ok %d - %s # timed out after %u s", num, t->name,
			 timeout);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		e2e_line("ok %d - %s", num, t->name);
		return 0;
	} else if (skip) {
		e2e_line("ok %d - %s # SKIP %s", num, t->name, reason);
		return 0;
	} else if (WIFSIGNALED(status)) {
		e2e_line("not ok %d - %s # killed by signal %d %s", num,
			 t->name, WTERMSIG(status), reason);
	} else {
		e2e_line("not ok %d - %s # %s", num, t->name,
			 reason[0] ? reason : "failed (no reason given)");
	}
	return 1;
}

/*
 * Run the tests named in argv[1..] (all if none; "name_*" names every test
 * whose name starts with "name_"), print TAP; setup runs
 * first (in this process: a failing check there fails every test) and
 * teardown last.  A test that fails an E2E_REQUIRE stops the run: the
 * tests after it are "not ok ... # not run: ..." and a "Bail out!" line
 * follows.  Returns the exit code: 0 if everything passed, 1 if a test
 * failed, E2E_EXIT_BAIL if the run stopped.
 */
static int e2e_main(int argc, char **argv, const struct e2e_test *tests,
		    size_t count, void (*setup)(void), void (*teardown)(void))
{
	const struct e2e_test **run;
	const char **name;	/* what run[i] was asked as */
	size_t nrun = 0, i;
	int j, rc, failed = 0, bailed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* each argument names one test, or with a prefix at most all */
	run = calloc(count * (size_t)argc + 1, sizeof(*run));
	name = calloc(count * (size_t)argc + 1, sizeof(*name));
	if (argc > 1) {
		for (j = 1; j < argc; j++) {
			size_t len = strlen(argv[j]), found = 0;
			int prefix = len && argv[j][len - 1] == '*';

			/* "name_*": every test whose name starts with name_ */
			for (i = 0; i < count; i++) {
				if (prefix ? strncmp(argv[j], tests[i].name, len - 1) :
					     strcmp(argv[j], tests[i].name))
					continue;
				name[nrun] = tests[i].name;
				run[nrun++] = &tests[i];
				found++;
				if (!prefix)
					break;
			}
			if (!found) {
				e2e_diag("unknown test '%s'", argv[j]);
				name[nrun] = argv[j];
				run[nrun++] = NULL;
			}
		}
	} else {
		for (i = 0; i < count; i++) {
			name[nrun] = tests[i].name;
			run[nrun++] = &tests[i];
		}
	}

	e2e_line("TAP version 13");
	e2e_line("1..%zu", nrun);
	if (setup) {
		pid_t pid = fork();
		int status = 1;

		/* in a child, so that a failing check can end it */
		if (pid == 0) {
			setup();
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, &status, 0);
		if (status) {
			for (i = 0; i < nrun; i++)
				e2e_line("not ok %zu - %s # setup failed", i + 1,
					 name[i]);
			return 1;
		}
	}
	for (i = 0; i < nrun; i++) {
		if (!run[i]) {
			e2e_line("not ok %zu - %s # no such test", i + 1,
				 name[i]);
			failed++;
			continue;
		}
		rc = e2e_run_one(run[i], i + 1);
		failed += !!rc;
		if (rc == 2) {
			for (i++; i < nrun; i++, failed++)
				e2e_line("not ok %zu - %s # not run: stopped by %s",
					 i + 1, name[i],
					 e2e_bail_reason);
			e2e_line("Bail out! %s", e2e_bail_reason);
			bailed = 1;
			break;
		}
	}
	if (teardown) {
		pid_t pid = fork();
		int status = 1;

		if (pid == 0) {
			teardown();
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, &status, 0);
		if (status)
			e2e_diag("teardown failed");
	}
	e2e_diag("%zu tests, %d failed", nrun, failed);
	free(run);
	free(name);
	return bailed ? E2E_EXIT_BAIL : failed ? 1 : 0;
}

#endif /* E2E_TEST_H */
