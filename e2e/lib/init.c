// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal static init for the end-to-end QEMU runs.
 *
 * Mounts /proc, /sys, /dev (devtmpfs) and /tmp (tmpfs), then runs the test
 * programs and powers the machine off.  It never returns (init exiting
 * panics the kernel).
 *
 * What runs:
 *   - the kernel command line's arguments after "--" are init's argv:
 *     "... -- /tests/foo arg1 arg2" runs /tests/foo arg1 arg2;
 *   - with no such arguments, every executable in /tests, in name order.
 * Parameters without a dot and with a '=' (e.g. "E2E_VERBOSE=1") reach the
 * programs as environment variables (the kernel puts them in init's envp).
 *
 * Console lines of its own start with "e2e-init: " so the host can follow
 * the run; the last one before power-off is "e2e-init: poweroff".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static void say(const char *fmt, ...)
{
	char buf[512];
	int n;
	va_list ap;

	n = snprintf(buf, sizeof(buf), "e2e-init: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0) {
		/* nothing better to do */
	}
	tcdrain(1);
}

static void do_mount(const char *src, const char *dst, const char *type,
		     unsigned long flags, const char *data)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, flags, data) && errno != EBUSY)
		say("mount %s on %s failed: %s", type, dst, strerror(errno));
}

static void console_fds(void)
{
	int fd;

	/* The kernel opened /dev/console for us if the initramfs has it. */
	if (fcntl(1, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static __attribute__((noreturn)) void poweroff(void)
{
	say("poweroff");
	sync();
	reboot(RB_POWER_OFF);
	/* Not reached, unless power-off is not possible: halt then. */
	say("power-off failed (%s), halting", strerror(errno));
	reboot(RB_HALT_SYSTEM);
	for (;;)
		pause();
}

/*
 * The host passes its time as E2E_EPOCH=<seconds> on the kernel command
 * line: without an RTC the guest's clock starts at 1970-01-01 00:00:00,
 * and files, dtimes and logs get timestamps of 0.  Set it if far behind.
 */
static void set_clock(void)
{
	const char *e = getenv("E2E_EPOCH");
	struct timespec now, want = { 0, 0 };

	if (!e || clock_gettime(CLOCK_REALTIME, &now))
		return;
	want.tv_sec = strtoll(e, NULL, 10);
	if (want.tv_sec > now.tv_sec + 3600) {
		if (clock_settime(CLOCK_REALTIME, &want))
			say("cannot set the clock: %s", strerror(errno));
		else
			say("clock set from E2E_EPOCH (was %lld)",
			    (long long)now.tv_sec);
	}
}

/* Run argv, reap everything until it ends; returns its wait status. */
static int run(char *const argv[])
{
	pid_t pid, w;
	int status;

	say("run %s", argv[0]);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		say("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		setsid();
		execv(argv[0], argv);
		say("exec %s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	for (;;) {
		w = waitpid(-1, &status, 0);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			say("waitpid: %s", strerror(errno));
			return -1;
		}
		if (w == pid)
			break;
	}
	if (WIFEXITED(status))
		say("%s exited %d", argv[0], WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		say("%s killed by signal %d", argv[0], WTERMSIG(status));
	return status;
}

static int is_exec(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_mode & 0111);
}

static int run_dir(const char *dir)
{
	struct dirent **names;
	int n, i, ran = 0;
	char path[512];

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		say("no %s: %s", dir, strerror(errno));
		return 0;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && is_exec(path)) {
			char *argv[] = { path, NULL };

			run(argv);
			ran++;
		}
		free(names[i]);
	}
	free(names);
	return ran;
}

int main(int argc, char *argv[])
{
	(void)argc;
	if (getpid() != 1) {
		/* Run by hand: mount nothing, power nothing off. */
		fprintf(stderr, "e2e-init: not pid 1, exiting\n");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);

	do_mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	console_fds();
	do_mount("proc", "/proc", "proc", 0, NULL);
	do_mount("sysfs", "/sys", "sysfs", 0, NULL);
	do_mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
	setenv("PATH", "/tests:/bin:/sbin", 0);
	setenv("HOME", "/", 0);
	umask(022);

	say("start");
	set_clock();
	if (argv[1]) {
		run(&argv[1]);
	} else if (!run_dir("/tests")) {
		say("nothing to run");
	}
	poweroff();
}
