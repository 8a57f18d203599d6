// SPDX-License-Identifier: GPL-2.0
/*
 * overlayfs under faults (make faults, e2e/overlayfs/faults): copy-up and
 * rename when an allocation fails, when the upper disk is full and when it
 * fails I/O.  Runs as init's child on the debug kernel (e2e/lib).
 *
 * Disks: /dev/vda (ext4, /mnt/a): the layers of the allocation scenarios
 * and every lower layer; /dev/vdb (ext4, 32 MiB, /mnt/b): the upper layer
 * that fills up; /dev/vdc (ext4, 32 MiB, /mnt/c): the upper layer whose
 * I/O fails (fail_make_request).
 *
 * alloc_*: for n = 1, 2, ... the n-th allocation of the operation fails
 * (e2e_fault.h), on a fresh overlay each time, until the operation gets
 * through without reaching n.  After each step:
 *   - the operation succeeded, or failed with ENOMEM;
 *   - the merged view shows the old state or the new one, nothing between
 *     (a scenario's state(): contents, modes, names);
 *   - the lower layer is untouched (checksum);
 *   - the work dir's "work" holds nothing (a temp file left behind);
 *   - after a remount the merged view shows the same state;
 *   - the operation, retried without a fault, succeeds;
 *   - the kernel log has no report.
 * Prints the distinct failure points hit ("# <test>: N failure points:").
 * FAULTS_STEP=<n> in the guest's environment (E2E_CMDLINE) runs step n of
 * each scenario alone, with the kernel log on the console: the replay of
 * one failure point.
 *
 * enospc_copy_up: the upper layer's disk is full: copy-up fails with
 * ENOSPC, leaves the merged file as it was, gives every block back, and
 * works once there is room.  eio_copy_up: every I/O to the upper layer's
 * disk fails: copy-up fails with EIO, the merged file stays as it was
 * (also after a remount once the disk answers again), and a retry works.
 */
#include "e2e_fault.h"
#include "ovl_util.h"

#include <dirent.h>
#include <ftw.h>
#include <stdint.h>
#include <sys/statfs.h>

#define USER		1000
#define MAX_STEPS	4000	/* allocations of one operation, at most */
#define FILE_LEN	8192

static int kmsg = -1;
/* FAULTS_STEP=<n> (kernel command line, E2E_CMDLINE): run step n alone. */
static unsigned int replay;

/* FNV-1a 64 of a file's content; -1 + errno if it cannot be read. */
static int fnv_file(const char *path, uint64_t *h, off_t *size)
{
	unsigned char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*h = 0xcbf29ce484222325ULL;
	*size = 0;
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			*h = (*h ^ buf[i]) * 0x100000001b3ULL;
		*size += n;
	}
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st; (void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT)
		E2E_FAIL("remove %s: %s", path, strerrorname_np(errno));
	return 0;
}

/* rm -rf path */
static void rmrf(const char *path)
{
	if (access(path, F_OK))
		return;
	E2E_OK(nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS));
}

/* The first entry of dir other than . and .. (none: ""). */
static void first_entry(const char *dir, char *name, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	name[0] = 0;
	if (!d)
		E2E_FAIL("opendir %s: %s", dir, strerrorname_np(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(name, size, "%s", e->d_name);
			break;
		}
	closedir(d);
}

/* ==== one overlay =========================================================== */

struct ovl {
	const char *name;
	char base[128], lower[160], upper[160], work[160], merged[160];
	const char *opts;		/* beyond the layers */
	uint64_t lower_sum;		/* of the lower layer's files, at start */
};

static void ovl_paths(struct ovl *o, const char *disk, const char *lower_disk)
{
	snprintf(o->base, sizeof(o->base), "%s/%s", disk, o->name);
	snprintf(o->lower, sizeof(o->lower), "%s/%s/lower", lower_disk, o->name);
	snprintf(o->upper, sizeof(o->upper), "%s/upper", o->base);
	snprintf(o->work, sizeof(o->work), "%s/work", o->base);
	snprintf(o->merged, sizeof(o->merged), "/mnt/m-%s", o->name);
	e2e_mkdirs(o->lower, 0755);
	e2e_mkdirs(o->merged, 0755);
}

static int ovl_mount(const struct ovl *o)
{
	return mount("overlay", o->merged, "overlay", 0,
		     P("lowerdir=%s,upperdir=%s,workdir=%s%s%s", o->lower,
		       o->upper, o->work, o->opts[0] ? "," : "", o->opts));
}

/* Fresh upper and work dirs, mounted. */
static void ovl_fresh(const struct ovl *o)
{
	if (umount(o->merged) && errno != EINVAL)
		E2E_FAIL("umount %s: %s", o->merged, strerrorname_np(errno));
	rmrf(o->upper);
	rmrf(o->work);
	e2e_mkdirs(o->upper, 0755);
	e2e_mkdirs(o->work, 0755);
	if (ovl_mount(o))
		E2E_FAIL("mount %s (%s): %s", o->merged, o->opts,
			 strerrorname_np(errno));
}

static void ovl_remount(const struct ovl *o)
{
	if (umount(o->merged))
		E2E_FAIL("umount %s: %s", o->merged, strerrorname_np(errno));
	if (ovl_mount(o))
		E2E_FAIL("mount %s again: %s", o->merged, strerrorname_np(errno));
}

/* What a copy-up left in the work dir's "work" (its temp entries live
 * there until renamed into place): the first entry's name, "" if none. */
static void work_leftover(const struct ovl *o, char *name, size_t size)
{
	first_entry(P("%s/work", o->work), name, size);
}

static uint64_t lower_sum_one;
static int sum_one(const char *path, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	uint64_t h = 0;
	off_t size;
	char link[256];
	ssize_t n;

	(void)ftw;
	if (flag == FTW_F && S_ISREG(st->st_mode)) {
		if (fnv_file(path, &h, &size))
			E2E_FAIL("read %s: %s", path, strerrorname_np(errno));
	} else if (flag == FTW_SL) {
		n = readlink(path, link, sizeof(link));
		h = n > 0 ? (uint64_t)n * 31 + (unsigned char)link[0] : 0;
	}
	for (const char *c = path; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
	lower_sum_one ^= h ^ st->st_mode ^ ((uint64_t)st->st_uid << 32) ^
		((uint64_t)st->st_mtime << 16) ^ st->st_nlink;
	return 0;
}

/* A checksum of every name, content, mode, owner, mtime and link count
 * below dir. */
static uint64_t tree_sum(const char *dir)
{
	lower_sum_one = 0;
	E2E_OK(nftw(dir, sum_one, 16, FTW_PHYS));
	return lower_sum_one;
}

/* ==== the allocation scenarios ============================================ */

/*
 * A scenario: its overlay (lower content from prepare()), an operation on
 * the merged dir (0 or -1 + errno) and the state of the merged dir:
 * STATE_OLD (as before the operation), STATE_NEW (as after it), or
 * STATE_BAD with why.
 */
enum { STATE_BAD = -1, STATE_OLD, STATE_NEW };

struct scenario {
	struct ovl o;
	void (*prepare)(const char *lower);
	int (*op)(const char *merged);
	int (*state)(const char *merged, char *why, size_t size);
	int userns;		/* as USER in a user namespace (userxattr) */
	int alt_errno;		/* an errno besides ENOMEM it may fail with */
};

static uint64_t file_old, file_new;	/* the content sums of "f" */

#define WHY(...) (snprintf(why, size, __VA_ARGS__), STATE_BAD)

static void prepare_file(const char *lower)
{
	char buf[FILE_LEN + 1];
	off_t size;

	put_random(P("%s/f", lower), FILE_LEN, 7);
	if (fnv_file(P("%s/f", lower), &file_old, &size))
		E2E_FAIL("read f: %s", strerrorname_np(errno));
	/* the new content: "XXXX" over the first four bytes */
	if (e2e_get_file(P("%s/f", lower), buf, sizeof(buf)) != FILE_LEN)
		E2E_FAIL("read back f");
	memcpy(buf, "XXXX", 4);
	file_new = 0xcbf29ce484222325ULL;
	for (int i = 0; i < FILE_LEN; i++)
		file_new = (file_new ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
}

/* Open for writing (copy-up), write four bytes, close. */
static int op_write(const char *m)
{
	int fd = open(P("%s/f", m), O_WRONLY | O_CLOEXEC);
	int e;

	if (fd < 0)
		return -1;
	if (pwrite(fd, "XXXX", 4, 0) != 4) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

static int content_state(const char *path, char *why, size_t size)
{
	uint64_t h;
	off_t len;

	if (fnv_file(path, &h, &len))
		return WHY("read %s: %s", path, strerrorname_np(errno));
	if (len != FILE_LEN)
		return WHY("%s has %lld bytes, not %d", path, (long long)len, FILE_LEN);
	if (h == file_old)
		return STATE_OLD;
	if (h == file_new)
		return STATE_NEW;
	return WHY("%s holds neither the old content nor the new one", path);
}

static int state_write(const char *m, char *why, size_t size)
{
	return content_state(P("%s/f", m), why, size);
}

/* metacopy=on: chmod copies up the metadata only. */
static int op_chmod(const char *m)
{
	return chmod(P("%s/f", m), 0600);
}

static int state_chmod(const char *m, char *why, size_t size)
{
	struct stat st;
	int c = content_state(P("%s/f", m), why, size);

	if (c != STATE_OLD)
		return c == STATE_BAD ? c : WHY("chmod changed the content");
	if (stat(P("%s/f", m), &st))
		return WHY("stat f: %s", strerrorname_np(errno));
	if ((st.st_mode & 07777) == 0644)
		return STATE_OLD;
	if ((st.st_mode & 07777) == 0600)
		return STATE_NEW;
	return WHY("f has mode %o", st.st_mode & 07777);
}

#define LINK_TARGET "a/target/that/is/not/short"

static void prepare_symlink(const char *lower)
{
	E2E_OK(symlink(LINK_TARGET, P("%s/s", lower)));
}

/* Copy-up of a symlink (through the work dir): change its owner. */
static int op_symlink(const char *m)
{
	return fchownat(AT_FDCWD, P("%s/s", m), USER, USER, AT_SYMLINK_NOFOLLOW);
}

static int state_symlink(const char *m, char *why, size_t size)
{
	char t[256];
	ssize_t n = readlink(P("%s/s", m), t, sizeof(t) - 1);
	struct stat st;

	if (n < 0)
		return WHY("readlink s: %s", strerrorname_np(errno));
	t[n] = 0;
	if (strcmp(t, LINK_TARGET))
		return WHY("s points to '%s'", t);
	if (lstat(P("%s/s", m), &st))
		return WHY("lstat s: %s", strerrorname_np(errno));
	if (st.st_uid == 0)
		return STATE_OLD;
	if (st.st_uid == USER)
		return STATE_NEW;
	return WHY("s is owned by %u", (unsigned int)st.st_uid);
}

static void prepare_hardlink(const char *lower)
{
	prepare_file(lower);
	E2E_OK(link(P("%s/f", lower), P("%s/g", lower)));
}

/* index=on: f and g are one inode before and after f's copy-up. */
static int state_hardlink(const char *m, char *why, size_t size)
{
	struct stat sf, sg;
	int c = content_state(P("%s/f", m), why, size);
	int d = content_state(P("%s/g", m), why, size);

	if (c == STATE_BAD || d == STATE_BAD)
		return STATE_BAD;
	if (c != d)
		return WHY("f and g differ (%d, %d): the hard link broke", c, d);
	if (stat(P("%s/f", m), &sf) || stat(P("%s/g", m), &sg))
		return WHY("stat: %s", strerrorname_np(errno));
	if (sf.st_ino != sg.st_ino || sf.st_nlink != 2 || sg.st_nlink != 2)
		return WHY("f (ino %llu, %u links) and g (ino %llu, %u links)",
			   (unsigned long long)sf.st_ino, (unsigned int)sf.st_nlink,
			   (unsigned long long)sg.st_ino, (unsigned int)sg.st_nlink);
	return c;
}

static void prepare_dir(const char *lower)
{
	e2e_mkdirs(P("%s/d", lower), 0755);
	e2e_put_file(P("%s/d/a", lower), "one\n", 0644);
	e2e_put_file(P("%s/d/b", lower), "two\n", 0644);
}

/* redirect_dir=on: a lower dir renamed (copied up, redirect xattr). */
static int op_rename(const char *m)
{
	return rename(P("%s/d", m), P("%s/e", m));
}

static int state_rename(const char *m, char *why, size_t size)
{
	int d = !access(P("%s/d", m), F_OK), e = !access(P("%s/e", m), F_OK);
	const char *dir = P("%s/%s", m, e ? "e" : "d");
	char buf[16];

	if (d == e)
		return WHY("d %s, e %s", d ? "exists" : "is gone",
			   e ? "exists" : "is missing");
	if (e2e_get_file(P("%s/a", dir), buf, sizeof(buf)) < 0 || strcmp(buf, "one\n"))
		return WHY("%s/a: %s", dir, strerrorname_np(errno) ?: "other content");
	if (e2e_get_file(P("%s/b", dir), buf, sizeof(buf)) < 0 || strcmp(buf, "two\n"))
		return WHY("%s/b: %s", dir, strerrorname_np(errno) ?: "other content");
	return e ? STATE_NEW : STATE_OLD;
}

static struct scenario s_data = {
	.o = { .name = "data", .opts = "" },
	.prepare = prepare_file, .op = op_write, .state = state_write,
};
static struct scenario s_metacopy = {
	.o = { .name = "metacopy", .opts = "metacopy=on" },
	.prepare = prepare_file, .op = op_chmod, .state = state_chmod,
};
static struct scenario s_symlink = {
	.o = { .name = "symlink", .opts = "" },
	.prepare = prepare_symlink, .op = op_symlink, .state = state_symlink,
};
static struct scenario s_hardlink = {
	.o = { .name = "hardlink", .opts = "index=on" },
	.prepare = prepare_hardlink, .op = op_write, .state = state_hardlink,
};
/* EXDEV: overlayfs returns it when it cannot set the redirect, whatever
 * the error (ovl_set_redirect(): "Fall back to userspace copy-up"), so that
 * mv(1) copies instead. */
static struct scenario s_rename = {
	.o = { .name = "rename", .opts = "redirect_dir=on" },
	.prepare = prepare_dir, .op = op_rename, .state = state_rename,
	.alt_errno = EXDEV,
};
static struct scenario s_userxattr = {
	.o = { .name = "userxattr", .opts = "userxattr" },
	.prepare = prepare_file, .op = op_write, .state = state_write,
	.userns = 1,
};

/* One step: the n-th allocation of the operation fails.  Returns what was
 * left of n (0: the failure was injected). */
static unsigned int step(struct scenario *s, unsigned int n,
			 struct e2e_fault_points *pts)
{
	struct ovl *o = &s->o;
	char why[300], stale[256];
	unsigned int left;
	int r, err, st, again;

	ovl_fresh(o);
	e2e_fault_arm(n);
	r = s->op(o->merged);
	err = errno;
	left = e2e_fault_disarm();
	e2e_fault_scan(kmsg, pts);
	if (pts->reports)
		E2E_FAIL("step %u: kernel report: %s", n, pts->report);
	if (r && err != ENOMEM && (!s->alt_errno || err != s->alt_errno))
		E2E_FAIL("step %u: the operation failed with %s, not ENOMEM%s%s",
			 n, strerrorname_np(err) ?: "?", s->alt_errno ? " or " : "",
			 s->alt_errno ? strerrorname_np(s->alt_errno) : "");
	st = s->state(o->merged, why, sizeof(why));
	if (st == STATE_BAD)
		E2E_FAIL("step %u (%s): %s", n, r ? strerrorname_np(err) : "done", why);
	if (!r && st != STATE_NEW)
		E2E_FAIL("step %u: the operation succeeded, the old state shows", n);
	if (tree_sum(o->lower) != o->lower_sum)
		E2E_FAIL("step %u: the lower layer changed", n);
	work_leftover(o, stale, sizeof(stale));
	if (stale[0])
		E2E_FAIL("step %u (%s): temp entry %s left behind in the work dir %s", n,
			 r ? strerrorname_np(err) : "done", stale, o->work);
	ovl_remount(o);
	again = s->state(o->merged, why, sizeof(why));
	if (again != st)
		E2E_FAIL("step %u: after a remount: %s", n,
			 again == STATE_BAD ? why : "another state");
	if (st != STATE_NEW) {
		if (s->op(o->merged))
			E2E_FAIL("step %u: the retry without a fault failed: %s",
				 n, strerrorname_np(errno) ?: "?");
		if (s->state(o->merged, why, sizeof(why)) != STATE_NEW)
			E2E_FAIL("step %u: after the retry: %s", n, why);
	}
	return left;
}

static void run_steps(void *arg)
{
	struct scenario *s = arg;
	struct e2e_fault_points *pts = calloc(1, sizeof(*pts));
	unsigned int n, left = 0;
	double t0 = e2e_now();

	s->o.lower_sum = tree_sum(s->o.lower);
	e2e_fault_scan(kmsg, pts);	/* what came before */
	memset(pts, 0, sizeof(*pts));
	if (replay) {
		/* one step, its kernel log on the console */
		pts->echo = 1;
		left = step(s, replay, pts);
		if (umount(s->o.merged))
			E2E_FAIL("umount: %s", strerrorname_np(errno));
		e2e_fault_print_points(s->o.name, pts);
		e2e_diag("%s: step %u %s", s->o.name, replay,
			 left ? "ran without reaching its failure" : "passed");
		return;
	}
	for (n = 1; n <= MAX_STEPS; n++) {
		left = step(s, n, pts);
		if (left)
			break;
	}
	if (!left)
		E2E_FAIL("the operation still allocates after %d steps", MAX_STEPS);
	if (umount(s->o.merged))
		E2E_FAIL("umount: %s", strerrorname_np(errno));
	/* every step but the last injected one failure */
	e2e_fault_print_points(s->o.name, pts);
	e2e_diag("faults: %s: %u steps, %u failures injected, %u failure points, "
		 "%u not logged (__GFP_NOWARN), %u without a frame, %.0f s",
		 s->o.name, n, n - 1, pts->count, n - 1 - pts->logged,
		 pts->unplaced, e2e_now() - t0);
	E2E_ASSERT(pts->count > 0, "no failure point found in the kernel log");
}

static void alloc_scenario(struct scenario *s)
{
	ovl_paths(&s->o, "/mnt/a", "/mnt/a");
	s->prepare(s->o.lower);
	if (!s->userns) {
		run_steps(s);
		return;
	}
	/* The layers are the user's; the overlay is mounted in its user
	 * namespace, with userxattr. */
	E2E_OK(chown(s->o.base, USER, USER));
	E2E_OK(chown(s->o.lower, USER, USER));
	E2E_OK(chown(P("%s/f", s->o.lower), USER, USER));
	E2E_OK(chown(s->o.merged, USER, USER));
	e2e_as_user(USER, USER, E2E_USERNS, run_steps, s);
}

static void t_alloc_copy_up_data(void) { alloc_scenario(&s_data); }
static void t_alloc_copy_up_metacopy(void) { alloc_scenario(&s_metacopy); }
static void t_alloc_copy_up_symlink(void) { alloc_scenario(&s_symlink); }
static void t_alloc_copy_up_hardlink_index(void) { alloc_scenario(&s_hardlink); }
static void t_alloc_rename_redirect(void) { alloc_scenario(&s_rename); }
static void t_alloc_copy_up_userxattr(void) { alloc_scenario(&s_userxattr); }

/* ==== a full upper disk ==================================================== */

static unsigned long long free_blocks(const char *path)
{
	struct statfs sfs;

	sync();
	if (statfs(path, &sfs))
		E2E_FAIL("statfs %s: %s", path, strerrorname_np(errno));
	return sfs.f_bfree;
}

#define BIG_LEN (4 << 20)

static void t_enospc_copy_up(void)
{
	struct ovl o = { .name = "enospc", .opts = "" };
	uint64_t h_lower, h;
	off_t len;
	unsigned long long before, after;
	char stale[256];
	int fd;

	ovl_paths(&o, "/mnt/b", "/mnt/a");
	put_random(P("%s/big", o.lower), BIG_LEN, 11);
	E2E_OK(fnv_file(P("%s/big", o.lower), &h_lower, &len));
	ovl_fresh(&o);
	/* leave 1 MiB: less than the file's 4 MiB */
	fd = E2E_OK(open("/mnt/b/filler", O_WRONLY | O_CREAT | O_TRUNC, 0600));
	before = free_blocks("/mnt/b");
	E2E_ASSERT(before > 256, "only %llu blocks free on an empty disk", before);
	E2E_OK(fallocate(fd, 0, 0, (off_t)(before - 256) * 4096));
	close(fd);
	before = free_blocks("/mnt/b");
	e2e_diag("enospc: %llu blocks (4 KiB) free before the copy-up", before);

	E2E_ERRNO(open(P("%s/big", o.merged), O_WRONLY), ENOSPC);
	after = free_blocks("/mnt/b");
	E2E_ASSERT(after == before, "%llu blocks free after the failed copy-up, "
		   "%llu before: the partial copy kept its blocks", after, before);
	E2E_OK(fnv_file(P("%s/big", o.merged), &h, &len));
	E2E_ASSERT(h == h_lower && len == BIG_LEN,
		   "the merged file changed (%lld bytes)", (long long)len);
	E2E_ASSERT(access(P("%s/big", o.upper), F_OK) && errno == ENOENT,
		   "a partial copy is in the upper layer");
	work_leftover(&o, stale, sizeof(stale));
	E2E_ASSERT(!stale[0], "temp entry %s left behind in the work dir %s", stale, o.work);

	/* room again: the copy-up works */
	E2E_OK(unlink("/mnt/b/filler"));
	fd = E2E_OK(open(P("%s/big", o.merged), O_WRONLY));
	E2E_OK(close(fd));
	E2E_OK(fnv_file(P("%s/big", o.upper), &h, &len));
	E2E_ASSERT(h == h_lower && len == BIG_LEN, "the copy differs from the lower file");
	E2E_OK(umount(o.merged));
	e2e_diag("faults: enospc: 1 steps, 1 failures injected, 1 failure points");
}

/* ==== an upper disk that fails I/O ======================================== */

static void t_eio_copy_up(void)
{
	struct ovl o = { .name = "eio", .opts = "" };
	char why[300], stale[256], left[32];
	int r, err, st;

	ovl_paths(&o, "/mnt/c", "/mnt/a");
	prepare_file(o.lower);
	o.lower_sum = tree_sum(o.lower);
	ovl_fresh(&o);
	e2e_fault_knob("fail_make_request", "probability", "100");
	e2e_fault_knob("fail_make_request", "interval", "1");
	e2e_fault_knob("fail_make_request", "times", "1000000");
	e2e_fault_knob("fail_make_request", "verbose", "0");
	e2e_write_str("/sys/block/vdc/make-it-fail", "1");
	r = op_write(o.merged);
	err = errno;
	e2e_write_str("/sys/block/vdc/make-it-fail", "0");
	e2e_get_file(E2E_DEBUGFS "/fail_make_request/times", left, sizeof(left));
	e2e_fault_knob("fail_make_request", "probability", "0");
	e2e_diag("faults: eio: 1 steps, %ld failures injected, 1 failure points",
		 1000000 - strtol(left, NULL, 10));
	E2E_ASSERT(strtol(left, NULL, 10) < 1000000, "no I/O to the upper disk failed");
	E2E_ASSERT(r == -1 && err == EIO, "the copy-up returned %d (%s), not EIO",
		   r, r ? strerrorname_np(err) : "-");
	st = state_write(o.merged, why, sizeof(why));
	E2E_ASSERT(st == STATE_OLD, "after the failed copy-up: %s",
		   st == STATE_BAD ? why : "the new content shows");
	E2E_ASSERT(tree_sum(o.lower) == o.lower_sum, "the lower layer changed");
	work_leftover(&o, stale, sizeof(stale));
	E2E_ASSERT(!stale[0], "temp entry %s left behind in the work dir %s", stale, o.work);

	/* the disk again, from its journal */
	E2E_OK(umount(o.merged));
	E2E_OK(umount("/mnt/c"));
	E2E_OK(mount("/dev/vdc", "/mnt/c", "ext4", 0, NULL));
	E2E_OK(ovl_mount(&o));
	st = state_write(o.merged, why, sizeof(why));
	E2E_ASSERT(st == STATE_OLD, "after a remount: %s",
		   st == STATE_BAD ? why : "the new content shows");
	E2E_OK(op_write(o.merged));
	st = state_write(o.merged, why, sizeof(why));
	E2E_ASSERT(st == STATE_NEW, "after the retry: %s",
		   st == STATE_BAD ? why : "the old content shows");
	E2E_OK(umount(o.merged));
}

/* ==== harness ================================================================ */

static void setup(void)
{
	static const char *const disks[][2] = {
		{ "/dev/vda", "/mnt/a" }, { "/dev/vdb", "/mnt/b" },
		{ "/dev/vdc", "/mnt/c" },
	};

	for (size_t i = 0; i < E2E_COUNT(disks); i++) {
		e2e_mkdirs(disks[i][1], 0755);
		E2E_OK(mount(disks[i][0], disks[i][1], "ext4", 0, NULL));
		E2E_OK(chmod(disks[i][1], 0755));
	}
	e2e_fault_setup();
}

static void teardown(void)
{
	static const char *const mnts[] = { "/mnt/a", "/mnt/b", "/mnt/c" };

	for (size_t i = 0; i < E2E_COUNT(mnts); i++)
		if (umount(mnts[i]))
			E2E_FAIL("umount %s: %s", mnts[i], strerrorname_np(errno));
	sync();
}

static const struct e2e_test tests[] = {
	{ "alloc_copy_up_data", t_alloc_copy_up_data, 1800 },
	{ "alloc_copy_up_metacopy", t_alloc_copy_up_metacopy, 1800 },
	{ "alloc_copy_up_symlink", t_alloc_copy_up_symlink, 1800 },
	{ "alloc_copy_up_hardlink_index", t_alloc_copy_up_hardlink_index, 1800 },
	{ "alloc_rename_redirect", t_alloc_rename_redirect, 1800 },
	{ "alloc_copy_up_userxattr", t_alloc_copy_up_userxattr, 1800 },
	{ "enospc_copy_up", t_enospc_copy_up, 600 },
	{ "eio_copy_up", t_eio_copy_up, 600 },
};

int main(int argc, char **argv)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	/* one reader for the whole run: every test scans from where it is */
	if (fd >= 0)
		kmsg = fcntl(fd, F_DUPFD, 10);
	if (getenv("FAULTS_STEP"))
		replay = (unsigned int)strtoul(getenv("FAULTS_STEP"), NULL, 10);
	return e2e_main(argc, argv, tests, E2E_COUNT(tests), setup, teardown);
}
