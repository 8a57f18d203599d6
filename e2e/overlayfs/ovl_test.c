// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests of overlayfs's unprivileged mounts (userxattr), uuid=off
 * and their neighbours, run as init's child in a QEMU guest (e2e/lib).
 *
 * Disks: /dev/vda (ext4, mounted on /mnt/a) holds the layers of every test;
 * /dev/vdb (ext4, /mnt/c), when present, is a second filesystem.  Root sets
 * layers up; the unprivileged part runs as uid/gid 1000, mostly in a new
 * user + mount namespace where it is 0 (e2e_as_user(..., E2E_USERNS)).
 *
 * Two-boot scenario (uuid=off on a copied disk): uuid_off_prepare writes
 * through two overlays and records checksums on boot 1; the host copies
 * the disk and gives the copy a new filesystem UUID; uuid_off_copy and
 * uuid_on_copy_estale check the copy on boot 2.
 */
#include "e2e_test.h"
#include "ovl_util.h"

#include <dirent.h>
#include <ftw.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#define DISK	"/mnt/a"
#define DISK2	"/mnt/c"
#define USER	1000

struct ovl {
	char base[256];
	char lower[300], upper[300], work[300], merged[300];
};

/* base/{lower,upper,work,merged}, owned by USER unless root_owned. */
static void layers(struct ovl *o, const char *base, int root_owned)
{
	snprintf(o->base, sizeof(o->base), "%s", base);
	snprintf(o->lower, sizeof(o->lower), "%s/lower", base);
	snprintf(o->upper, sizeof(o->upper), "%s/upper", base);
	snprintf(o->work, sizeof(o->work), "%s/work", base);
	snprintf(o->merged, sizeof(o->merged), "%s/merged", base);
	e2e_mkdirs(o->lower, 0755);
	e2e_mkdirs(o->upper, 0755);
	e2e_mkdirs(o->work, 0755);
	e2e_mkdirs(o->merged, 0755);
	if (!root_owned) {
		E2E_OK(chown(o->base, USER, USER));
		E2E_OK(chown(o->lower, USER, USER));
		E2E_OK(chown(o->upper, USER, USER));
		E2E_OK(chown(o->work, USER, USER));
		E2E_OK(chown(o->merged, USER, USER));
	}
}

static const char *opts(const struct ovl *o, const char *extra)
{
	return P("lowerdir=%s,upperdir=%s,workdir=%s%s%s", o->lower, o->upper,
		 o->work, extra && *extra ? "," : "", extra ? extra : "");
}

static int ovl_mount(const struct ovl *o, const char *extra)
{
	return mount("overlay", o->merged, "overlay", 0, opts(o, extra));
}

#define MOUNT_OK(o, extra) do {						\
	if (ovl_mount(o, extra))					\
		E2E_FAIL("mount -t overlay -o %s %s: %s", opts(o, extra),\
			 (o)->merged, strerrorname_np(errno) ?: "?");	\
} while (0)

/* A file owned by USER (unless root_owned) with content. */
static void put(const char *path, const char *content, int root_owned)
{
	e2e_put_file(path, content, root_owned ? 0600 : 0644);
	if (!root_owned)
		E2E_OK(lchown(path, USER, USER));
}

static void mkdir_own(const char *path, mode_t mode, int root_owned)
{
	E2E_OK(mkdir(path, mode));
	if (!root_owned)
		E2E_OK(lchown(path, USER, USER));
}

#define EXPECT_CONTENT(path, want) do {					\
	char __b[4096];							\
	const char *__p = (path);					\
	if (e2e_get_file(__p, __b, sizeof(__b)) < 0)			\
		E2E_FAIL("read %s: %s", __p, strerrorname_np(errno) ?: "?");\
	if (strcmp(__b, (want)))					\
		E2E_FAIL("%s holds '%.60s', expected '%.60s'", __p, __b, (want));\
} while (0)

/* Does the mount on path show opt among its options in /proc/self/mounts? */
static int mount_has_opt(const char *path, const char *opt)
{
	char buf[65536], *line, *save = NULL;
	size_t ol = strlen(opt);

	if (e2e_get_file("/proc/self/mounts", buf, sizeof(buf)) < 0)
		E2E_FAIL("read /proc/self/mounts: %s", strerrorname_np(errno));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char dev[256], mnt[512], type[64], mo[4096];
		char *p;

		if (sscanf(line, "%255s %511s %63s %4095s", dev, mnt, type, mo) != 4)
			continue;
		if (strcmp(mnt, path))
			continue;
		for (p = mo; (p = strstr(p, opt)); p += ol)
			if ((p == mo || p[-1] == ',') && (p[ol] == ',' || !p[ol]))
				return 1;
		return 0;
	}
	E2E_FAIL("%s is not a mount point", path);
}

/* ---- xattr helpers ----------------------------------------------------- */

static ssize_t xget(const char *path, const char *name, void *buf, size_t size)
{
	return lgetxattr(path, name, buf, size);
}

struct xscan {
	int user_ovl;		/* user.overlay.* xattrs seen */
	int trusted_ovl;	/* trusted.overlay.* xattrs seen */
	char where[4400];	/* first trusted one */
};
static struct xscan xscan;

static int xscan_one(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	char list[4096], *n;
	ssize_t len = llistxattr(path, list, sizeof(list));

	(void)st; (void)flag; (void)ftw;
	for (n = list; len > 0 && n < list + len; n += strlen(n) + 1) {
		if (!strncmp(n, "user.overlay.", 13))
			xscan.user_ovl++;
		if (!strncmp(n, "trusted.overlay.", 16) && !xscan.trusted_ovl++)
			snprintf(xscan.where, sizeof(xscan.where), "%s: %s",
				 path, n);
	}
	return 0;
}

/* Count the overlay xattrs on everything under dir (from this ns). */
static void scan_xattrs(const char *dir)
{
	memset(&xscan, 0, sizeof(xscan));
	E2E_OK(nftw(dir, xscan_one, 16, FTW_PHYS));
}

/* ---- checksums ----------------------------------------------------------- */

static uint64_t fnv_file(const char *path, off_t *size)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*size = 0;
	if (fd < 0)
		E2E_FAIL("open %s: %s", path, strerrorname_np(errno) ?: "?");
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
		*size += n;
	}
	if (n < 0)
		E2E_FAIL("read %s: %s", path, strerrorname_np(errno) ?: "?");
	close(fd);
	return h;
}

/* ---- setup / teardown ---------------------------------------------------- */

static void setup(void)
{
	e2e_mkdirs(DISK, 0755);
	E2E_OK(mount("/dev/vda", DISK, "ext4", 0, NULL));
	E2E_OK(chmod(DISK, 0755));
	if (access("/dev/vdb", F_OK) == 0) {
		e2e_mkdirs(DISK2, 0755);
		E2E_OK(mount("/dev/vdb", DISK2, "ext4", 0, NULL));
		E2E_OK(chmod(DISK2, 0755));
	}
}

/* Unmount everything below /mnt, deepest (last mounted) first. */
static void teardown(void)
{
	char buf[65536], *mnts[256], *line, *save = NULL;
	int n = 0, bad = 0;

	if (e2e_get_file("/proc/self/mounts", buf, sizeof(buf)) < 0)
		E2E_FAIL("read /proc/self/mounts: %s", strerrorname_np(errno));
	for (line = strtok_r(buf, "\n", &save); line && n < 256;
	     line = strtok_r(NULL, "\n", &save)) {
		char *mnt = strchr(line, ' ');

		if (!mnt)
			continue;
		mnt++;
		*strchrnul(mnt, ' ') = 0;
		if (!strncmp(mnt, "/mnt/", 5))
			mnts[n++] = mnt;
	}
	while (n--) {
		if (umount(mnts[n])) {
			e2e_diag("umount %s: %s", mnts[n], strerrorname_np(errno));
			bad++;
		}
	}
	sync();
	E2E_ASSERT(!bad, "%d mounts could not be unmounted", bad);
}

/* ==== 1. unprivileged mount ================================================ */

static struct ovl s1;

static void s1_no_userns(void *arg)
{
	(void)arg;
	E2E_ERRNO(ovl_mount(&s1, "userxattr"), EPERM);
	E2E_ERRNO(ovl_mount(&s1, NULL), EPERM);
}

static void s1_in_userns(void *arg)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int n = 0;

	(void)arg;
	MOUNT_OK(&s1, "userxattr");
	/* create, modify, delete */
	e2e_put_file(P("%s/new", s1.merged), "new data", 0644);
	e2e_put_file(P("%s/mod", s1.merged), "changed", 0644);
	E2E_OK(unlink(P("%s/del", s1.merged)));
	/* an empty lower dir replaced by a new one */
	E2E_OK(rmdir(P("%s/dir_e", s1.merged)));
	E2E_OK(mkdir(P("%s/dir_e", s1.merged), 0755));
	/* a lower dir with content replaced by a new, empty one */
	E2E_OK(unlink(P("%s/dir_f/x", s1.merged)));
	E2E_OK(rmdir(P("%s/dir_f", s1.merged)));
	E2E_OK(mkdir(P("%s/dir_f", s1.merged), 0755));

	/* the merged view */
	EXPECT_CONTENT(P("%s/keep", s1.merged), "lower keep");
	EXPECT_CONTENT(P("%s/mod", s1.merged), "changed");
	EXPECT_CONTENT(P("%s/new", s1.merged), "new data");
	E2E_ERRNO(stat(P("%s/del", s1.merged), &st), ENOENT);
	E2E_ERRNO(stat(P("%s/dir_f/x", s1.merged), &st), ENOENT);
	d = opendir(P("%s/dir_f", s1.merged));
	E2E_ASSERT(d, "opendir dir_f: %s", strerrorname_np(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	E2E_ASSERT(n == 0, "new dir_f shows %d lower entries", n);
	E2E_ASSERT(mount_has_opt(s1.merged, "userxattr"), "no userxattr in mounts");
	E2E_OK(umount(s1.merged));
}

static void t_unpriv_mount(void)
{
	struct stat st;
	char v[16];
	ssize_t n;

	layers(&s1, DISK "/s1", 0);
	put(P("%s/keep", s1.lower), "lower keep", 0);
	put(P("%s/mod", s1.lower), "lower mod", 0);
	put(P("%s/del", s1.lower), "lower del", 0);
	mkdir_own(P("%s/dir_e", s1.lower), 0755, 0);
	mkdir_own(P("%s/dir_f", s1.lower), 0755, 0);
	put(P("%s/dir_f/x", s1.lower), "lower x", 0);

	e2e_as_user(USER, USER, 0, s1_no_userns, NULL);
	e2e_as_user(USER, USER, E2E_USERNS, s1_in_userns, NULL);

	/* what landed in upper, seen from the initial namespace */
	EXPECT_CONTENT(P("%s/new", s1.upper), "new data");
	EXPECT_CONTENT(P("%s/mod", s1.upper), "changed");
	EXPECT_CONTENT(P("%s/mod", s1.lower), "lower mod");
	E2E_ERRNO(lstat(P("%s/keep", s1.upper), &st), ENOENT);
	E2E_OK(lstat(P("%s/del", s1.upper), &st));
	E2E_ASSERT(S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0),
		   "del in upper is not a whiteout (mode %o rdev %u:%u)",
		   st.st_mode, major(st.st_rdev), minor(st.st_rdev));
	E2E_OK(lstat(P("%s/new", s1.upper), &st));
	E2E_ASSERT(st.st_uid == USER, "new in upper owned by %u", st.st_uid);
	for (int i = 0; i < 2; i++) {
		const char *dir = P("%s/%s", s1.upper, i ? "dir_f" : "dir_e");

		n = xget(dir, "user.overlay.opaque", v, sizeof(v));
		E2E_ASSERT(n == 1 && v[0] == 'y', "%s: user.overlay.opaque: %s",
			   dir, n < 0 ? strerrorname_np(errno) : "not 'y'");
		E2E_ERRNO(xget(dir, "trusted.overlay.opaque", v, sizeof(v)), ENODATA);
	}
	scan_xattrs(s1.upper);
	E2E_ASSERT(xscan.user_ovl >= 2, "only %d user.overlay.* xattrs in upper",
		   xscan.user_ovl);
	E2E_ASSERT(!xscan.trusted_ovl, "trusted.overlay.* in upper: %s",
		   xscan.where);
	scan_xattrs(s1.work);
	E2E_ASSERT(!xscan.trusted_ovl, "trusted.overlay.* in work: %s",
		   xscan.where);
}

/* ==== 3. uuid=off on a copied disk ========================================= */

static struct ovl s3off, s3on, s3two;

#define OVL_FB_UUID 5		/* struct ovl_fb: version magic len flags type uuid */

/* The uuid stored in the origin xattr of path (prefix "trusted" or "user"). */
static void origin_uuid(const char *path, unsigned char uuid[16])
{
	unsigned char fb[256];
	ssize_t n = xget(path, "trusted.overlay.origin", fb, sizeof(fb));

	if (n < 0)
		E2E_FAIL("%s: trusted.overlay.origin: %s", path,
			 strerrorname_np(errno) ?: "?");
	E2E_ASSERT(n >= OVL_FB_UUID + 16 && fb[1] == 0xfb,
		   "%s: origin xattr of %zd bytes is no ovl_fb", path, n);
	memcpy(uuid, fb + OVL_FB_UUID, 16);
}

static int is_null_uuid(const unsigned char u[16])
{
	for (int i = 0; i < 16; i++)
		if (u[i])
			return 0;
	return 1;
}

/* The files of the uuid scenario, relative to merged. */
static const char *const s3_files[] = {
	"f1", "f2", "f2link", "f3", "d/g", "d/h", "new1", "d/new2",
};

/* Fill lower, write through the overlay (copy-ups with origin, a hardlink
 * copy-up that uses the index, new files), record checksums in base/sums. */
static void s3_write(struct ovl *o, const char *base, const char *opt)
{
	char sums[4096] = "";
	struct stat a, b;

	layers(o, base, 1);
	put_random(P("%s/f1", o->lower), 70000, 1);
	put_random(P("%s/f2", o->lower), 5000, 2);
	put_random(P("%s/f3", o->lower), 300, 3);
	e2e_mkdirs(P("%s/d", o->lower), 0755);
	put_random(P("%s/d/g", o->lower), 12345, 4);
	put_random(P("%s/d/h", o->lower), 10, 5);

	MOUNT_OK(o, opt);
	E2E_ASSERT(mount_has_opt(o->merged, "index=on"), "index is not on");
	{
		int fd = E2E_OK(open(P("%s/f1", o->merged), O_WRONLY | O_APPEND));

		E2E_OK(write(fd, "appended", 8));
		close(fd);
	}
	E2E_OK(link(P("%s/f2", o->merged), P("%s/f2link", o->merged)));
	E2E_OK(chmod(P("%s/f3", o->merged), 0600));
	e2e_put_file(P("%s/d/g", o->merged), "rewritten g", 0644);
	put_random(P("%s/new1", o->merged), 40000, 6);
	put_random(P("%s/d/new2", o->merged), 333, 7);

	E2E_OK(stat(P("%s/f2", o->merged), &a));
	E2E_OK(stat(P("%s/f2link", o->merged), &b));
	E2E_ASSERT(a.st_ino == b.st_ino && a.st_nlink == 2,
		   "hardlink f2/f2link: ino %lu/%lu nlink %lu",
		   (unsigned long)a.st_ino, (unsigned long)b.st_ino,
		   (unsigned long)a.st_nlink);
	for (size_t i = 0; i < E2E_COUNT(s3_files); i++) {
		off_t size;
		uint64_t h = fnv_file(P("%s/%s", o->merged, s3_files[i]), &size);

		snprintf(sums + strlen(sums), sizeof(sums) - strlen(sums),
			 "%s %lld %016llx\n", s3_files[i], (long long)size,
			 (unsigned long long)h);
	}
	E2E_OK(umount(o->merged));
	e2e_put_file(P("%s/sums", o->base), sums, 0644);
}

static void s3_verify(struct ovl *o)
{
	char want[4096], got[4096] = "";
	struct stat a, b;

	E2E_OK(e2e_get_file(P("%s/sums", o->base), want, sizeof(want)));
	E2E_OK(stat(P("%s/f2", o->merged), &a));
	E2E_OK(stat(P("%s/f2link", o->merged), &b));
	E2E_ASSERT(a.st_ino == b.st_ino && a.st_nlink == 2,
		   "hardlink f2/f2link: ino %lu/%lu nlink %lu",
		   (unsigned long)a.st_ino, (unsigned long)b.st_ino,
		   (unsigned long)a.st_nlink);
	for (size_t i = 0; i < E2E_COUNT(s3_files); i++) {
		off_t size;
		uint64_t h = fnv_file(P("%s/%s", o->merged, s3_files[i]), &size);

		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 "%s %lld %016llx\n", s3_files[i], (long long)size,
			 (unsigned long long)h);
	}
	if (strcmp(want, got)) {
		e2e_diag("recorded:");
		for (char *l = strtok(want, "\n"); l; l = strtok(NULL, "\n"))
			e2e_diag("  %s", l);
		e2e_diag("read back:");
		for (char *l = strtok(got, "\n"); l; l = strtok(NULL, "\n"))
			e2e_diag("  %s", l);
		E2E_FAIL("files differ from the checksums of boot 1");
	}
}

static void t_uuid_off_prepare(void)
{
	unsigned char u[16];

	s3_write(&s3off, DISK "/s3off", "index=on,uuid=off");
	s3_write(&s3on, DISK "/s3on", "index=on");

	/* uuid=off: null uuid in the origin file handles; default: the fs's */
	origin_uuid(P("%s/f1", s3off.upper), u);
	E2E_ASSERT(is_null_uuid(u), "uuid=off stored a uuid in f1's origin");
	origin_uuid(s3off.upper, u);
	E2E_ASSERT(is_null_uuid(u), "uuid=off stored a uuid in upper root's origin");
	origin_uuid(P("%s/f1", s3on.upper), u);
	E2E_ASSERT(!is_null_uuid(u), "default uuid stored a null uuid");

	/* both mounted again (index verification) before the copy */
	MOUNT_OK(&s3off, "index=on,uuid=off");
	E2E_ASSERT(mount_has_opt(s3off.merged, "uuid=off"), "uuid=off not shown");
	s3_verify(&s3off);
	E2E_OK(umount(s3off.merged));
	MOUNT_OK(&s3on, "index=on");
	s3_verify(&s3on);
	E2E_OK(umount(s3on.merged));
	sync();
}

static void t_uuid_off_two_fs(void)
{
	unsigned char u[16];
	const char *fallback;
	int kmsg;

	if (access("/dev/vdb", F_OK))
		E2E_FAIL("no second disk (/dev/vdb)");
	/* lower on the second disk, upper and work on the first */
	layers(&s3two, DISK "/s3two", 1);
	snprintf(s3two.lower, sizeof(s3two.lower), DISK2 "/s3two-lower");
	e2e_mkdirs(s3two.lower, 0755);
	put_random(P("%s/f", s3two.lower), 1000, 9);

	/*
	 * Since 7.0 (869056dbbd63 "ovl: relax requirement for
	 * uuid=off,index=on") only the lower layers need one filesystem: uuid=off
	 * holds, with a null uuid in the origin.
	 */
	if (e2e_kernel_at_least(7, 0)) {
		MOUNT_OK(&s3two, "index=on,uuid=off");
		E2E_ASSERT(mount_has_opt(s3two.merged, "uuid=off"),
			   "uuid=off not in effect with one lower filesystem");
		e2e_put_file(P("%s/f", s3two.merged), "copied up", 0644);
		E2E_OK(umount(s3two.merged));
		origin_uuid(P("%s/f", s3two.upper), u);
		E2E_ASSERT(is_null_uuid(u), "uuid=off stored a uuid with the upper on another fs");
		return;
	}
	/*
	 * 6.1 falls back to uuid=on.  6.12 has uuid=null/auto/on/off (since
	 * 6.6) and falls back to uuid=null: the same origin file handles
	 * (the real uuid: uuid=null only drops the overlay's own persistent
	 * fsid), another name in the log and in the mount options.
	 */
	fallback = e2e_kernel_at_least(6, 6) ? "null" : "on";
	kmsg = e2e_kmsg_open();
	MOUNT_OK(&s3two, "index=on,uuid=off");
	E2E_ASSERT(e2e_kmsg_find(kmsg, P("overlayfs: The uuid=off requires a single "
					 "fs for lower and upper, falling back to uuid=%s.",
					 fallback)),
		   "no uuid=off fallback warning (uuid=%s) in the kernel log", fallback);
	E2E_ASSERT(!mount_has_opt(s3two.merged, "uuid=off"),
		   "uuid=off still in effect with two filesystems");
	if (!strcmp(fallback, "null"))
		E2E_ASSERT(mount_has_opt(s3two.merged, "uuid=null"),
			   "the fallback uuid=null is not shown");
	e2e_put_file(P("%s/f", s3two.merged), "copied up", 0644);
	E2E_OK(umount(s3two.merged));
	origin_uuid(P("%s/f", s3two.upper), u);
	E2E_ASSERT(!is_null_uuid(u), "fallback to uuid=%s stored a null uuid", fallback);
	close(kmsg);
}

/* boot 2, on the copy with a new filesystem UUID */
static void t_uuid_off_copy(void)
{
	layers(&s3off, DISK "/s3off", 1);
	MOUNT_OK(&s3off, "index=on,uuid=off");
	s3_verify(&s3off);
	/* and still writable with index */
	e2e_put_file(P("%s/f3", s3off.merged), "after copy", 0600);
	EXPECT_CONTENT(P("%s/f3", s3off.merged), "after copy");
	E2E_OK(umount(s3off.merged));
}

/*
 * Boot 2 runs the overlayfs KUnit suites before init (kunit.enable=1,
 * kunit.filter_glob=overlayfs*): what they left behind shows here.  No
 * entry on the root filesystem (the option parser's suites make
 * /ovl_kunit), overlay's module parameters at their Kconfig defaults
 * (the suites pin them per case).  The kfree tracepoint probe of
 * overlayfs_fh has no view from user space: a KUnit action removes it.
 */
static void t_kunit_leftovers(void)
{
	static const struct {
		const char *name;
		const char *want;
	} params[] = {
		{ "redirect_dir", "N" }, { "redirect_always_follow", "Y" },
		{ "index", "N" }, { "nfs_export", "N" }, { "xino_auto", "N" },
		{ "metacopy", "N" },
	};
	char rec[2048], path[128], val[16];
	int fd, ran = 0;
	ssize_t n;

	/* the suites did run: the kernel log has their results */
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	E2E_ASSERT(fd >= 0, "open /dev/kmsg: %s", strerrorname_np(errno));
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;	/* overwritten records */
		rec[n] = 0;
		if (strstr(rec, "ok ") && strstr(rec, " overlayfs_params"))
			ran = 1;
	}
	close(fd);
	E2E_ASSERT(ran, "no result of the overlayfs_params suite in the kernel log: KUnit did not run");

	E2E_ASSERT(access("/ovl_kunit", F_OK) && errno == ENOENT,
		   "/ovl_kunit left on the root filesystem by the KUnit suites");
	for (size_t i = 0; i < E2E_COUNT(params); i++) {
		snprintf(path, sizeof(path), "/sys/module/overlay/parameters/%s",
			 params[i].name);
		if (e2e_get_file(path, val, sizeof(val)) < 0)
			E2E_FAIL("read %s: %s", path, strerrorname_np(errno));
		val[strcspn(val, "\n")] = 0;
		E2E_ASSERT(!strcmp(val, params[i].want),
			   "overlay.%s is %s after the KUnit suites, not its default %s",
			   params[i].name, val, params[i].want);
	}
}

static void t_uuid_on_copy_estale(void)
{
	int kmsg;

	layers(&s3on, DISK "/s3on", 1);
	kmsg = e2e_kmsg_open();
	E2E_ERRNO(ovl_mount(&s3on, "index=on"), ESTALE);
	E2E_ASSERT(e2e_kmsg_find(kmsg, "failed to verify upper root origin"),
		   "no 'failed to verify upper root origin' in the kernel log");
	close(kmsg);
}

/* ==== 2. option conflicts reach users ====================================== */

static struct ovl s2;

struct conflict {
	const char *opt, *msg;
	int kmsg;
};

static void s2_conflict(void *arg)
{
	struct conflict *c = arg;

	E2E_ERRNO(ovl_mount(&s2, c->opt), EINVAL);
	E2E_ASSERT(e2e_kmsg_find(c->kmsg, c->msg),
		   "kernel log does not say '%s'", c->msg);
}

static void s2_conflict_test(const char *opt, const char *msg)
{
	struct conflict c = { opt, msg, -1 };

	layers(&s2, DISK "/s2", 0);
	c.kmsg = e2e_kmsg_open();
	e2e_as_user(USER, USER, E2E_USERNS, s2_conflict, &c);
	close(c.kmsg);
}

static void t_conflict_redirect_dir(void)
{
	s2_conflict_test("userxattr,redirect_dir=on",
			 "overlayfs: conflicting options: userxattr,redirect_dir=on");
}

static void t_conflict_metacopy(void)
{
	s2_conflict_test("userxattr,metacopy=on",
			 "overlayfs: conflicting options: userxattr,metacopy=on");
}

static void s2_rename(void *arg)
{
	struct stat st;

	(void)arg;
	MOUNT_OK(&s2, "userxattr");
	E2E_ERRNO(rename(P("%s/ldir", s2.merged), P("%s/ldir2", s2.merged)), EXDEV);
	E2E_OK(stat(P("%s/ldir/f", s2.merged), &st));
	/* a dir created in upper can be renamed */
	E2E_OK(mkdir(P("%s/udir", s2.merged), 0755));
	E2E_OK(rename(P("%s/udir", s2.merged), P("%s/udir2", s2.merged)));
	E2E_OK(umount(s2.merged));
}

static void t_rename_lower_dir_exdev(void)
{
	layers(&s2, DISK "/s2r", 0);
	mkdir_own(P("%s/ldir", s2.lower), 0755, 0);
	put(P("%s/ldir/f", s2.lower), "f", 0);
	e2e_as_user(USER, USER, E2E_USERNS, s2_rename, NULL);
}

/* ==== 4. copy-up of a symlink under userxattr ============================== */

static struct ovl s4;
#define S4_TIME 1000000000

static void s4_user(void *arg)
{
	struct timespec ts[2] = { { S4_TIME, 0 }, { S4_TIME, 0 } };
	struct stat st;

	(void)arg;
	MOUNT_OK(&s4, "userxattr");
	E2E_OK(lchown(P("%s/link", s4.merged), 0, 0));
	E2E_OK(utimensat(AT_FDCWD, P("%s/d/link2", s4.merged), ts,
			 AT_SYMLINK_NOFOLLOW));
	E2E_OK(lstat(P("%s/d/link2", s4.merged), &st));
	E2E_ASSERT(st.st_mtime == S4_TIME, "mtime %ld", (long)st.st_mtime);
	E2E_OK(umount(s4.merged));
}

static void t_symlink_copy_up(void)
{
	char buf[256];
	struct stat st;
	ssize_t n;

	layers(&s4, DISK "/s4", 0);
	E2E_OK(symlink("some/target", P("%s/link", s4.lower)));
	E2E_OK(lchown(P("%s/link", s4.lower), USER, USER));
	mkdir_own(P("%s/d", s4.lower), 0755, 0);
	E2E_OK(symlink("/elsewhere", P("%s/d/link2", s4.lower)));
	E2E_OK(lchown(P("%s/d/link2", s4.lower), USER, USER));

	e2e_as_user(USER, USER, E2E_USERNS, s4_user, NULL);

	E2E_OK(lstat(P("%s/link", s4.upper), &st));
	E2E_ASSERT(S_ISLNK(st.st_mode), "upper link is no symlink");
	n = E2E_OK(readlink(P("%s/link", s4.upper), buf, sizeof(buf) - 1));
	buf[n] = 0;
	E2E_ASSERT(!strcmp(buf, "some/target"), "upper link -> %s", buf);
	E2E_OK(lstat(P("%s/d/link2", s4.upper), &st));
	E2E_ASSERT(S_ISLNK(st.st_mode) && st.st_mtime == S4_TIME,
		   "upper d/link2: mode %o mtime %ld", st.st_mode,
		   (long)st.st_mtime);
}

/* ==== 5. flags ioctls / fileattr =========================================== */

static struct ovl s5;

static void s5_user(void *arg)
{
	struct stat st;
	int fd, flags, f2;
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };

	(void)arg;
	MOUNT_OK(&s5, "userxattr");
	fd = E2E_OK(open(P("%s/plain", s5.merged), O_RDONLY));
	E2E_OK(ioctl(fd, FS_IOC_GETFLAGS, &flags));
	f2 = flags | FS_IMMUTABLE_FL;
	E2E_ERRNO(ioctl(fd, FS_IOC_SETFLAGS, &f2), EPERM);
	f2 = flags | FS_APPEND_FL;
	E2E_ERRNO(ioctl(fd, FS_IOC_SETFLAGS, &f2), EPERM);
	E2E_OK(ioctl(fd, FS_IOC_GETFLAGS, &f2));
	E2E_ASSERT(!(f2 & (FS_IMMUTABLE_FL | FS_APPEND_FL)), "flags now %#x", f2);
	close(fd);

	/* the immutable lower file: readable, but nothing copies it up */
	fd = E2E_OK(open(P("%s/immut", s5.merged), O_RDONLY));
	E2E_OK(ioctl(fd, FS_IOC_GETFLAGS, &flags));
	E2E_ASSERT(flags & FS_IMMUTABLE_FL, "immut flags %#x", flags);
	flags &= ~FS_IMMUTABLE_FL;
	E2E_ERRNO(ioctl(fd, FS_IOC_SETFLAGS, &flags), EPERM);
	close(fd);
	EXPECT_CONTENT(P("%s/immut", s5.merged), "immutable");
	E2E_ERRNO(open(P("%s/immut", s5.merged), O_WRONLY), EPERM);
	E2E_ERRNO(open(P("%s/immut", s5.merged), O_RDWR | O_APPEND), EPERM);
	E2E_ERRNO(chmod(P("%s/immut", s5.merged), 0600), EPERM);
	E2E_ERRNO(chown(P("%s/immut", s5.merged), 0, 0), EPERM);
	E2E_ERRNO(utimensat(AT_FDCWD, P("%s/immut", s5.merged), ts, 0), EPERM);
	E2E_ERRNO(setxattr(P("%s/immut", s5.merged), "user.x", "1", 1, 0), EPERM);
	E2E_ERRNO(unlink(P("%s/immut", s5.merged)), EPERM);
	E2E_ERRNO(rename(P("%s/immut", s5.merged), P("%s/moved", s5.merged)), EPERM);
	E2E_OK(stat(P("%s/immut", s5.merged), &st));
	E2E_OK(umount(s5.merged));
}

static void t_fileattr_flags(void)
{
	struct stat st;
	int fd, flags;

	layers(&s5, DISK "/s5", 0);
	put(P("%s/plain", s5.lower), "plain", 0);
	put(P("%s/immut", s5.lower), "immutable", 0);
	fd = E2E_OK(open(P("%s/immut", s5.lower), O_RDONLY));
	E2E_OK(ioctl(fd, FS_IOC_GETFLAGS, &flags));
	flags |= FS_IMMUTABLE_FL;
	E2E_OK(ioctl(fd, FS_IOC_SETFLAGS, &flags));
	close(fd);

	e2e_as_user(USER, USER, E2E_USERNS, s5_user, NULL);

	E2E_ERRNO(lstat(P("%s/immut", s5.upper), &st), ENOENT);
	E2E_ERRNO(lstat(P("%s/moved", s5.upper), &st), ENOENT);
	if (lstat(P("%s/plain", s5.upper), &st) == 0) {
		fd = E2E_OK(open(P("%s/plain", s5.upper), O_RDONLY));
		E2E_OK(ioctl(fd, FS_IOC_GETFLAGS, &flags));
		E2E_ASSERT(!(flags & (FS_IMMUTABLE_FL | FS_APPEND_FL)),
			   "upper plain got flags %#x", flags);
		close(fd);
	}
	/* leave the disk removable */
	fd = E2E_OK(open(P("%s/immut", s5.lower), O_RDONLY));
	E2E_OK(ioctl(fd, FS_IOC_GETFLAGS, &flags));
	flags &= ~FS_IMMUTABLE_FL;
	E2E_OK(ioctl(fd, FS_IOC_SETFLAGS, &flags));
	close(fd);
}

/* ==== 6. namespaced file capabilities ====================================== */

static struct ovl s6;

static void s6_user(void *arg)
{
	struct vfs_cap_data v2 = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
	};
	struct vfs_ns_cap_data got;
	ssize_t n;

	(void)arg;
	v2.data[0].permitted = 1u << CAP_NET_RAW;
	MOUNT_OK(&s6, "userxattr");
	E2E_OK(setxattr(P("%s/capfile", s6.merged), "security.capability",
			&v2, XATTR_CAPS_SZ_2, 0));
	/* in the namespace it reads back as a plain v2 capability */
	n = E2E_OK(getxattr(P("%s/capfile", s6.merged), "security.capability",
			    &got, sizeof(got)));
	E2E_ASSERT(n == XATTR_CAPS_SZ_2 &&
		   (got.magic_etc & VFS_CAP_REVISION_MASK) == VFS_CAP_REVISION_2 &&
		   got.data[0].permitted == v2.data[0].permitted,
		   "in the ns: %zd bytes, magic %#x", n, got.magic_etc);
	E2E_OK(umount(s6.merged));
}

static void t_ns_file_caps(void)
{
	struct vfs_ns_cap_data got;
	ssize_t n;

	layers(&s6, DISK "/s6", 0);
	put(P("%s/capfile", s6.lower), "#!/bin/true\n", 0);
	E2E_OK(chmod(P("%s/capfile", s6.lower), 0755));

	e2e_as_user(USER, USER, E2E_USERNS, s6_user, NULL);

	memset(&got, 0, sizeof(got));
	n = xget(P("%s/capfile", s6.upper), "security.capability", &got,
		 sizeof(got));
	if (n < 0)
		E2E_FAIL("upper capfile: security.capability: %s",
			 strerrorname_np(errno));
	E2E_ASSERT(n == XATTR_CAPS_SZ_3, "upper capability is %zd bytes (v3: %zu)",
		   n, XATTR_CAPS_SZ_3);
	E2E_ASSERT((got.magic_etc & VFS_CAP_REVISION_MASK) == VFS_CAP_REVISION_3,
		   "upper capability magic %#x", got.magic_etc);
	E2E_ASSERT(got.rootid == USER, "upper capability rootid %u, expected %u",
		   got.rootid, USER);
	E2E_ASSERT(got.data[0].permitted == 1u << CAP_NET_RAW &&
		   (got.magic_etc & VFS_CAP_FLAGS_EFFECTIVE),
		   "upper capability sets: permitted %#x magic %#x",
		   got.data[0].permitted, got.magic_etc);
	/* nothing landed on the lower file */
	E2E_ERRNO(xget(P("%s/capfile", s6.lower), "security.capability", &got,
		       sizeof(got)), ENODATA);
}

/* ==== 7. no privilege from crafted xattrs ================================== */

static struct ovl s7;
static unsigned char s7_origin[128];	/* a valid-looking fh to a secret */
static size_t s7_origin_len;

static void s7_plant(void *arg)
{
	static const unsigned char junk[] = {
		0x00, 0xfb, 0x30, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef };

	(void)arg;
	/* as uid 1000 in the initial namespace, on the user's own files */
	E2E_OK(setxattr(P("%s/rd", s7.upper), "user.overlay.redirect", "/secret", 7, 0));
	E2E_OK(setxattr(P("%s/rdpub", s7.upper), "user.overlay.redirect", "/pub", 4, 0));
	E2E_OK(setxattr(P("%s/m", s7.upper), "user.overlay.metacopy", "", 0, 0));
	E2E_OK(setxattr(P("%s/m2", s7.upper), "user.overlay.metacopy", "", 0, 0));
	E2E_OK(setxattr(P("%s/m2", s7.upper), "user.overlay.redirect", "/secret/key", 11, 0));
	E2E_OK(setxattr(P("%s/o", s7.upper), "user.overlay.origin", junk, sizeof(junk), 0));
	E2E_OK(setxattr(P("%s/od", s7.upper), "user.overlay.origin", junk, sizeof(junk), 0));
	E2E_OK(setxattr(P("%s/o2", s7.upper), "user.overlay.origin", s7_origin,
			s7_origin_len, 0));
}

/* Reading path must not give a secret: an error (refusal) is fine. */
static void no_secret(const char *path)
{
	char buf[4096];

	if (e2e_get_file(path, buf, sizeof(buf)) >= 0) {
		E2E_ASSERT(!strstr(buf, "SECRET"), "%s served '%s'", path, buf);
		e2e_diag("%s: reads '%s'", path, buf);
	} else {
		e2e_diag("%s: %s", path, strerrorname_np(errno));
	}
}

static void s7_user(void *arg)
{
	int kmsg = *(int *)arg;
	DIR *d;
	struct dirent *de;
	struct stat st;

	MOUNT_OK(&s7, "userxattr");
	/* redirect: not followed, neither to a secret nor to a public dir;
	 * 6.1 refuses the lookup (EPERM, logged), a listing would do too */
	d = opendir(P("%s/rd", s7.merged));
	if (d) {
		while ((de = readdir(d)))
			E2E_ASSERT(strcmp(de->d_name, "key"), "rd lists the secret key");
		closedir(d);
		E2E_OK(stat(P("%s/rd/own", s7.merged), &st));
		e2e_diag("rd: listed without the redirect's entries");
	} else {
		E2E_ASSERT(errno == EPERM, "opendir rd: %s", strerrorname_np(errno));
		E2E_ASSERT(e2e_kmsg_find(kmsg, "refusing to follow redirect for (/rd)"),
			   "opendir rd: EPERM without 'refusing to follow redirect'");
		e2e_diag("rd: lookup refused (EPERM)");
	}
	E2E_ASSERT(stat(P("%s/rd/key", s7.merged), &st) == -1 &&
		   (errno == ENOENT || errno == EPERM), "stat rd/key: %s",
		   errno ? strerrorname_np(errno) : "found");
	no_secret(P("%s/rd/key", s7.merged));
	E2E_ASSERT(stat(P("%s/rdpub/visible", s7.merged), &st) == -1 &&
		   (errno == ENOENT || errno == EPERM), "stat rdpub/visible: %s",
		   errno ? strerrorname_np(errno) : "found: redirect followed");

	/* metacopy: never data from the lower file (or a redirect) */
	no_secret(P("%s/m", s7.merged));
	no_secret(P("%s/m2", s7.merged));
	if (stat(P("%s/m", s7.merged), &st) == 0)
		E2E_ASSERT(st.st_size == 0, "m has size %lld", (long long)st.st_size);

	/* bogus and forged origins: ignored, upper content served */
	EXPECT_CONTENT(P("%s/o", s7.merged), "upper o");
	EXPECT_CONTENT(P("%s/o2", s7.merged), "upper o2");
	E2E_OK(stat(P("%s/od", s7.merged), &st));
	d = opendir(P("%s/od", s7.merged));
	E2E_ASSERT(d, "opendir od: %s", strerrorname_np(errno));
	closedir(d);
	e2e_put_file(P("%s/o", s7.merged), "rewritten", 0644);
	EXPECT_CONTENT(P("%s/o", s7.merged), "rewritten");
	E2E_OK(umount(s7.merged));
}

static void t_crafted_xattrs(void)
{
	struct {
		struct file_handle fh;
		unsigned char b[MAX_HANDLE_SZ];
	} h;
	unsigned char sb[1024 + 0x78];
	int mnt_id, fd, kmsg;

	layers(&s7, DISK "/s7", 0);
	/* lower: secrets root can read only, and a public dir */
	mkdir_own(P("%s/secret", s7.lower), 0700, 1);
	put(P("%s/secret/key", s7.lower), "SECRET-KEY", 1);
	mkdir_own(P("%s/pub", s7.lower), 0755, 0);
	put(P("%s/pub/visible", s7.lower), "visible", 0);
	put(P("%s/m", s7.lower), "SECRET-METACOPY", 1);
	put(P("%s/o", s7.lower), "lower o", 0);
	put(P("%s/o2", s7.lower), "lower o2", 0);
	mkdir_own(P("%s/od", s7.lower), 0755, 0);
	/* upper: the user's crafted entries */
	mkdir_own(P("%s/rd", s7.upper), 0755, 0);
	put(P("%s/rd/own", s7.upper), "own", 0);
	mkdir_own(P("%s/rdpub", s7.upper), 0755, 0);
	put(P("%s/m", s7.upper), "", 0);
	put(P("%s/m2", s7.upper), "", 0);
	put(P("%s/o", s7.upper), "upper o", 0);
	put(P("%s/o2", s7.upper), "upper o2", 0);
	mkdir_own(P("%s/od", s7.upper), 0755, 0);

	/* A well-formed origin of the secret key (ovl_fb: version 0, magic,
	 * len, flags, type, uuid of /dev/vda, fid), as an attacker who
	 * guessed the inode would write it. */
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	E2E_OK(name_to_handle_at(AT_FDCWD, P("%s/secret/key", s7.lower), &h.fh,
				 &mnt_id, 0));
	fd = E2E_OK(open("/dev/vda", O_RDONLY));
	E2E_ASSERT(pread(fd, sb, sizeof(sb), 0) == sizeof(sb), "read superblock");
	close(fd);
	s7_origin_len = 21 + h.fh.handle_bytes;
	E2E_ASSERT(s7_origin_len <= sizeof(s7_origin), "handle too big");
	s7_origin[0] = 0;
	s7_origin[1] = 0xfb;
	s7_origin[2] = s7_origin_len;
	s7_origin[3] = 1 << 1;	/* OVL_FH_FLAG_CPU_ENDIAN (little endian) */
	s7_origin[4] = h.fh.handle_type;
	memcpy(s7_origin + 5, sb + 1024 + 0x68, 16);	/* ext4 s_uuid */
	memcpy(s7_origin + 21, h.fh.f_handle, h.fh.handle_bytes);

	e2e_as_user(USER, USER, 0, s7_plant, NULL);
	kmsg = e2e_kmsg_open();
	e2e_as_user(USER, USER, E2E_USERNS, s7_user, &kmsg);
	close(kmsg);
}

static void s7_handle(void *arg)
{
	struct {
		struct file_handle fh;
		unsigned char b[MAX_HANDLE_SZ];
	} h;
	int mnt_id, mfd, ufd;

	(void)arg;
	MOUNT_OK(&s7, "userxattr");
	mfd = E2E_OK(open(s7.merged, O_RDONLY | O_DIRECTORY));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(mfd, "o", &h.fh, &mnt_id, 0) == 0) {
		E2E_ERRNO(open_by_handle_at(mfd, &h.fh, O_RDONLY), EPERM);
	} else {
		E2E_ASSERT(errno == EOPNOTSUPP, "name_to_handle_at: %s",
			   strerrorname_np(errno));
	}
	/* a handle of the real upper file, opened through the overlay */
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	E2E_OK(name_to_handle_at(AT_FDCWD, P("%s/o", s7.upper), &h.fh, &mnt_id, 0));
	E2E_ERRNO(open_by_handle_at(mfd, &h.fh, O_RDONLY), EPERM);
	ufd = E2E_OK(open(s7.upper, O_RDONLY | O_DIRECTORY));
	E2E_ERRNO(open_by_handle_at(ufd, &h.fh, O_RDONLY), EPERM);
	close(ufd);
	close(mfd);
	E2E_OK(umount(s7.merged));
}

static void t_open_by_handle_eperm(void)
{
	layers(&s7, DISK "/s7h", 0);
	put(P("%s/o", s7.lower), "lower o", 0);
	put(P("%s/o", s7.upper), "upper o", 0);
	e2e_as_user(USER, USER, E2E_USERNS, s7_handle, NULL);
}

/* ==== 8. several processes at once ========================================= */
/*
 * Bounded races, each checking a result: the guest has two CPUs and the
 * workers are pinned to different ones (e2e_parallel()).  Each scenario
 * runs as root on a plain overlay and as USER in a user namespace on a
 * userxattr overlay.
 */

static struct ovl s8;
static int s8_userns;		/* the userxattr variant runs */

#define RACE_WORKERS	4
#define RACE_FILES	12
#define RACE_LEN	(256 * 1024)
#define RACE_OWNER	1234	/* the lower files' owner (root variant) */

/* Two or more CPUs, or the scenario races nothing. */
static void need_cpus(void)
{
	E2E_ASSERT(e2e_cpus() >= 2, "%d CPU online: the gate boots two "
		   "(qemu_configs/, CONFIG_SMP=y in kunitconfig)", e2e_cpus());
}

/* ---- copy-up of one lower file by four processes at once ---- */

static void s8_copy_up_worker(int i, void *arg)
{
	const char *path = P("%s/f%02d", s8.merged, *(int *)arg);
	char c = 'A' + i;
	int fd;

	/* opening for writing copies the file up (one copy for everyone) */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	E2E_ASSERT(fd >= 0, "worker %d: open %s for writing: %s", i, path,
		   strerrorname_np(errno));
	E2E_ASSERT(pwrite(fd, &c, 1, i * 4096) == 1, "worker %d: pwrite: %s",
		   i, strerrorname_np(errno));
	E2E_OK(close(fd));
}

/* The merged file holds the lower data with every worker's byte. */
static void s8_check_file(int f)
{
	const char *mpath = P("%s/f%02d", s8.merged, f);
	const char *lpath = P("%s/f%02d", s8.lower, f);
	static char want[RACE_LEN + 1], got[RACE_LEN + 1];
	ssize_t n;

	n = e2e_get_file(lpath, want, sizeof(want));
	E2E_ASSERT(n == RACE_LEN, "lower f%02d: %zd bytes", f, n);
	for (int i = 0; i < RACE_WORKERS; i++)
		want[i * 4096] = 'A' + i;
	n = e2e_get_file(mpath, got, sizeof(got));
	E2E_ASSERT(n == RACE_LEN, "merged f%02d: %zd bytes (%s)", f, n,
		   n < 0 ? strerrorname_np(errno) : "-");
	for (int i = 0; i < RACE_WORKERS; i++)
		E2E_ASSERT(got[i * 4096] == 'A' + i, "f%02d: byte %d is '%c', "
			   "worker %d wrote '%c': its write went to a copy the "
			   "file no longer is", f, i * 4096, got[i * 4096], i,
			   'A' + i);
	E2E_ASSERT(!memcmp(got, want, RACE_LEN), "f%02d: data differs from "
		   "lower + the workers' bytes", f);
}

static void s8_copy_up(void *arg)
{
	DIR *d;
	struct dirent *de;
	int left = 0;

	(void)arg;
	need_cpus();
	MOUNT_OK(&s8, s8_userns ? "userxattr" : NULL);
	for (int f = 0; f < RACE_FILES; f++) {
		e2e_parallel(RACE_WORKERS, s8_copy_up_worker, &f, 60);
		s8_check_file(f);
	}
	E2E_OK(umount(s8.merged));
	/* no copy-up left a temporary file behind */
	d = opendir(P("%s/work", s8.work));
	E2E_ASSERT(d, "opendir work/work: %s", strerrorname_np(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			e2e_diag("left in work/work: %s", de->d_name), left++;
	closedir(d);
	E2E_ASSERT(!left, "%d entries left in work/work", left);
}

static void race_copy_up(int userns)
{
	uid_t owner = userns ? USER : RACE_OWNER;
	struct stat st;

	s8_userns = userns;
	layers(&s8, userns ? DISK "/s8u" : DISK "/s8", 0);
	for (int f = 0; f < RACE_FILES; f++) {
		const char *lp = P("%s/f%02d", s8.lower, f);

		put_random(lp, RACE_LEN, 100 + f);
		E2E_OK(chown(lp, owner, owner));
		/* the owner may write (USER in its namespace is root anyway) */
		E2E_OK(chmod(lp, 0664));
	}
	if (userns)
		e2e_as_user(USER, USER, E2E_USERNS, s8_copy_up, NULL);
	else
		s8_copy_up(NULL);
	/* one upper file each, the lower file's owner and mode, lower intact */
	for (int f = 0; f < RACE_FILES; f++) {
		E2E_OK(lstat(P("%s/f%02d", s8.upper, f), &st));
		E2E_ASSERT(S_ISREG(st.st_mode) && st.st_size == RACE_LEN &&
			   st.st_uid == owner && st.st_gid == owner &&
			   (st.st_mode & 07777) == 0664, "upper f%02d: mode %o "
			   "size %lld owner %u:%u, expected 100664 %d %u:%u", f,
			   st.st_mode, (long long)st.st_size, st.st_uid,
			   st.st_gid, RACE_LEN, owner, owner);
		E2E_OK(lstat(P("%s/f%02d", s8.lower, f), &st));
		E2E_ASSERT(st.st_size == RACE_LEN, "lower f%02d changed", f);
	}
}

static void t_race_copy_up(void)
{
	race_copy_up(0);
}

static void t_race_copy_up_userns(void)
{
	race_copy_up(1);
}

/* ---- rename/unlink/create in a merged directory while others read it ---- */

#define RACE_STABLE	40	/* s000..: lower files nobody touches */
#define RACE_CHURN	40	/* c000..: renamed, removed, created again */
#define RACE_SECONDS	4

static double s8_deadline;

/* Workers 0 and 1 churn half of c000.. each; 2 lists the directory; 3
 * reads the stable files. */
static void s8_dir_worker(int w, void *arg)
{
	unsigned long loops = 0;
	char buf[64], dir[320];

	(void)arg;
	snprintf(dir, sizeof(dir), "%s/d", s8.merged);	/* P() rotates */
	while (e2e_now() < s8_deadline || !loops) {
		if (w < 2) {
			for (int i = w; i < RACE_CHURN; i += 2) {
				const char *c = P("%s/c%03d", dir, i);
				const char *m = P("%s/m%03d", dir, i);

				E2E_OK(rename(c, m));
				E2E_OK(rename(m, c));
				if (loops & 1) {
					E2E_OK(unlink(c));
					e2e_put_file(c, P("new c%03d", i), 0644);
				}
			}
		} else if (w == 2) {
			unsigned char seen[2][RACE_STABLE + RACE_CHURN] = { { 0 } };
			DIR *d = opendir(dir);
			struct dirent *de;

			E2E_ASSERT(d, "opendir: %s", strerrorname_np(errno));
			while ((de = readdir(d))) {
				char k;
				int i, end;

				if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
					continue;
				E2E_ASSERT(sscanf(de->d_name, "%c%3d%n", &k, &i, &end) == 2 &&
					   !de->d_name[end] && strchr("scm", k) &&
					   i >= 0 && i < (k == 's' ? RACE_STABLE : RACE_CHURN),
					   "readdir: unexpected entry '%s'", de->d_name);
				E2E_ASSERT(de->d_type == DT_REG || de->d_type == DT_UNKNOWN,
					   "readdir: %s has type %d (a whiteout?)",
					   de->d_name, de->d_type);
				if (k == 'm')
					continue;	/* c and m of one file may both show */
				E2E_ASSERT(!seen[k == 'c'][i]++, "readdir: %s twice",
					   de->d_name);
			}
			closedir(d);
			for (int i = 0; i < RACE_STABLE; i++)
				E2E_ASSERT(seen[0][i], "readdir: s%03d missing "
					   "(nobody touched it)", i);
		} else {
			for (int i = 0; i < RACE_STABLE; i++) {
				const char *sp = P("%s/s%03d", dir, i);

				E2E_ASSERT(e2e_get_file(sp, buf, sizeof(buf)) >= 0,
					   "read %s: %s", sp, strerrorname_np(errno));
				E2E_ASSERT(!strcmp(buf, P("lower s%03d", i)),
					   "%s holds '%s'", sp, buf);
			}
		}
		loops++;
	}
	e2e_diag("worker %d: %lu rounds in %d s", w, loops, RACE_SECONDS);
}

/* The directory as the churn left it: s000.. and c000.., nothing else. */
static void s8_check_dir(const char *when)
{
	struct dirent *de;
	char dir[320];
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/d", s8.merged);	/* P() rotates */
	d = opendir(dir);
	E2E_ASSERT(d, "opendir %s: %s", dir, strerrorname_np(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	E2E_ASSERT(n == RACE_STABLE + RACE_CHURN, "%s: %d entries, expected %d",
		   when, n, RACE_STABLE + RACE_CHURN);
	for (int i = 0; i < RACE_STABLE; i++)
		EXPECT_CONTENT(P("%s/s%03d", dir, i), P("lower s%03d", i));
	for (int i = 0; i < RACE_CHURN; i++)
		EXPECT_CONTENT(P("%s/c%03d", dir, i), P("new c%03d", i));
}

static void s8_dir(void *arg)
{
	(void)arg;
	need_cpus();
	MOUNT_OK(&s8, s8_userns ? "userxattr" : NULL);
	s8_deadline = e2e_now() + RACE_SECONDS;
	e2e_parallel(4, s8_dir_worker, NULL, RACE_SECONDS + 60);
	/* an odd last round leaves lower's c files renamed back: rewrite */
	for (int i = 0; i < RACE_CHURN; i++)
		e2e_put_file(P("%s/d/c%03d", s8.merged, i), P("new c%03d", i), 0644);
	s8_check_dir("after the race");
	E2E_OK(umount(s8.merged));
	MOUNT_OK(&s8, s8_userns ? "userxattr" : NULL);
	s8_check_dir("after a remount");
	E2E_OK(umount(s8.merged));
}

static void race_dir(int userns)
{
	s8_userns = userns;
	layers(&s8, userns ? DISK "/s8du" : DISK "/s8d", 0);
	mkdir_own(P("%s/d", s8.lower), 0755, 0);
	for (int i = 0; i < RACE_STABLE; i++)
		put(P("%s/d/s%03d", s8.lower, i), P("lower s%03d", i), 0);
	for (int i = 0; i < RACE_CHURN; i++)
		put(P("%s/d/c%03d", s8.lower, i), P("lower c%03d", i), 0);
	if (userns)
		e2e_as_user(USER, USER, E2E_USERNS, s8_dir, NULL);
	else
		s8_dir(NULL);
}

static void t_race_dir(void)
{
	race_dir(0);
}

static void t_race_dir_userns(void)
{
	race_dir(1);
}

/* ==== 9. escalation probes ================================================= */
/*
 * USER, root of a user + mount namespace, mounts a userxattr overlay over
 * layers that hold root's files next to its own, and tries to get from
 * the overlay what the initial namespace does not give it.  Each probe
 * expects an exact errno; afterwards root checks from the initial
 * namespace that the layers did not change (root's files as they were,
 * none of them copied up).  A probe that succeeds is a finding.
 */

static struct ovl s9;

struct s9_probe {
	void (*fn)(void);
	int mount;		/* mount the overlay before fn, umount after */
};

/* lower: own (USER's), rootfile (root, 0644), secret (root, 0600),
 * rootdir/ (root, 0755) with f, secretdir/ (root, 0700) with f */
static void s9_layers(const char *name)
{
	layers(&s9, P(DISK "/s9-%s", name), 0);
	put(P("%s/own", s9.lower), "own", 0);
	e2e_put_file(P("%s/rootfile", s9.lower), "ROOT", 0644);
	e2e_put_file(P("%s/secret", s9.lower), "SECRET", 0600);
	E2E_OK(mkdir(P("%s/rootdir", s9.lower), 0755));
	e2e_put_file(P("%s/rootdir/f", s9.lower), "f", 0644);
	E2E_OK(mkdir(P("%s/secretdir", s9.lower), 0700));
	e2e_put_file(P("%s/secretdir/f", s9.lower), "f", 0644);
}

static void s9_user(void *arg)
{
	const struct s9_probe *pr = arg;

	if (pr->mount)
		MOUNT_OK(&s9, "userxattr");
	pr->fn();
	if (pr->mount)
		E2E_OK(umount(s9.merged));
}

static void s9_root_owned(const char *rel, mode_t mode, const char *content)
{
	struct stat st;

	E2E_OK(lstat(P("%s/%s", s9.lower, rel), &st));
	E2E_ASSERT(st.st_uid == 0 && st.st_gid == 0 && (st.st_mode & 07777) == mode,
		   "lower %s: uid %u gid %u mode %o", rel, st.st_uid, st.st_gid,
		   st.st_mode & 07777);
	if (content)
		EXPECT_CONTENT(P("%s/%s", s9.lower, rel), content);
	errno = 0;
	E2E_ASSERT(lstat(P("%s/%s", s9.upper, rel), &st) == -1 && errno == ENOENT,
		   "%s is in the upper layer", rel);
}

/* Seen from the initial namespace: root's files as they were */
static void s9_unchanged(void)
{
	s9_root_owned("rootfile", 0644, "ROOT");
	s9_root_owned("secret", 0600, "SECRET");
	s9_root_owned("rootdir", 0755, NULL);
	s9_root_owned("rootdir/f", 0644, "f");
	s9_root_owned("secretdir", 0700, NULL);
}

static void s9_run(const char *name, void (*fn)(void), int mount)
{
	struct s9_probe pr = { fn, mount };

	s9_layers(name);
	e2e_as_user(USER, USER, E2E_USERNS, s9_user, &pr);
	s9_unchanged();
}

#define S9_PROBE(name, ...)						\
static void s9_##name(void) __VA_ARGS__					\
static void t_probe_##name(void)					\
{									\
	s9_run(#name, s9_##name, 1);					\
}

/* root's files: no write, truncate, mode, owner or time change */
S9_PROBE(write_root_file, {
	E2E_ERRNO(open(P("%s/rootfile", s9.merged), O_WRONLY), EACCES);
	E2E_ERRNO(open(P("%s/rootfile", s9.merged), O_RDWR | O_APPEND), EACCES);
})
S9_PROBE(truncate_root_file, {
	E2E_ERRNO(truncate(P("%s/rootfile", s9.merged), 0), EACCES);
})
S9_PROBE(setuid_root_file, {
	E2E_ERRNO(chmod(P("%s/rootfile", s9.merged), 04755), EPERM);
	E2E_ERRNO(chmod(P("%s/rootfile", s9.merged), 02755), EPERM);
})
S9_PROBE(chown_root_file, {
	E2E_ERRNO(chown(P("%s/rootfile", s9.merged), 0, 0), EPERM);
	E2E_ERRNO(lchown(P("%s/rootfile", s9.merged), 0, -1), EPERM);
})
S9_PROBE(utimes_root_file, {
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };

	E2E_ERRNO(utimensat(AT_FDCWD, P("%s/rootfile", s9.merged), ts, 0), EPERM);
})
/* nothing read or listed that root keeps to itself */
S9_PROBE(read_secret_file, {
	E2E_ERRNO(open(P("%s/secret", s9.merged), O_RDONLY), EACCES);
})
S9_PROBE(list_secret_dir, {
	E2E_ERRNO(open(P("%s/secretdir", s9.merged), O_RDONLY | O_DIRECTORY), EACCES);
	E2E_ERRNO(open(P("%s/secretdir/f", s9.merged), O_RDONLY), EACCES);
})
/* no entry made or removed in root's directory */
S9_PROBE(create_in_root_dir, {
	E2E_ERRNO(open(P("%s/rootdir/new", s9.merged), O_WRONLY | O_CREAT, 0644), EACCES);
	E2E_ERRNO(mkdir(P("%s/rootdir/newdir", s9.merged), 0755), EACCES);
})
S9_PROBE(unlink_in_root_dir, {
	E2E_ERRNO(unlink(P("%s/rootdir/f", s9.merged)), EACCES);
	E2E_ERRNO(rename(P("%s/rootdir/f", s9.merged), P("%s/stolen", s9.merged)), EACCES);
})
/* trusted.* needs CAP_SYS_ADMIN in the initial namespace, even on the
 * user's own file; the overlay's own user.overlay.* are not settable
 * through it under their own name; a device node needs CAP_MKNOD there */
S9_PROBE(trusted_xattr, {
	E2E_ERRNO(setxattr(P("%s/own", s9.merged), "trusted.overlay.opaque", "y", 1, 0),
		  EPERM);
	E2E_ERRNO(setxattr(P("%s/own", s9.merged), "trusted.x", "y", 1, 0), EPERM);
})

/*
 * The overlay's own user.overlay.* never reach the upper layer under
 * their own name.  6.1 refuses them (EOPNOTSUPP, nothing copied up).
 * Since 6.7 (commit dad02fad84cb "ovl: Support escaped overlay.*
 * xattrs") they are escaped instead: stored on the upper file as
 * user.overlay.overlay.*, which this overlay does not interpret, and
 * read back through it under the name that was set.
 */
static int s9_escaped;

static void s9_overlay_xattr(void)
{
	char buf[16];

	if (!s9_escaped) {
		E2E_ERRNO(setxattr(P("%s/own", s9.merged), "user.overlay.redirect",
				   "/secret", 7, 0), EOPNOTSUPP);
		E2E_ERRNO(setxattr(P("%s/own", s9.merged), "user.overlay.metacopy",
				   "", 0, 0), EOPNOTSUPP);
		return;
	}
	E2E_OK(setxattr(P("%s/own", s9.merged), "user.overlay.redirect", "/secret", 7, 0));
	E2E_OK(setxattr(P("%s/own", s9.merged), "user.overlay.metacopy", "", 0, 0));
	E2E_ASSERT(getxattr(P("%s/own", s9.merged), "user.overlay.redirect", buf,
			    sizeof(buf)) == 7 && !memcmp(buf, "/secret", 7),
		   "user.overlay.redirect does not read back through the overlay");
	EXPECT_CONTENT(P("%s/own", s9.merged), "own");
}

static void t_probe_overlay_xattr_through_overlay(void)
{
	struct stat st;
	char buf[16];

	s9_escaped = e2e_kernel_at_least(6, 7);
	s9_run("overlay_xattr_through_overlay", s9_overlay_xattr, 1);
	if (!s9_escaped) {
		errno = 0;
		E2E_ASSERT(lstat(P("%s/own", s9.upper), &st) == -1 && errno == ENOENT,
			   "own was copied up by a refused setxattr");
		return;
	}
	/* seen from the initial namespace: the escaped names only */
	E2E_ERRNO(lgetxattr(P("%s/own", s9.upper), "user.overlay.redirect", buf,
			    sizeof(buf)), ENODATA);
	E2E_ERRNO(lgetxattr(P("%s/own", s9.upper), "user.overlay.metacopy", buf,
			    sizeof(buf)), ENODATA);
	E2E_ASSERT(lgetxattr(P("%s/own", s9.upper), "user.overlay.overlay.redirect", buf,
			     sizeof(buf)) == 7 && !memcmp(buf, "/secret", 7),
		   "no escaped user.overlay.overlay.redirect on the upper file");
	E2E_ASSERT(lgetxattr(P("%s/own", s9.upper), "user.overlay.overlay.metacopy", buf,
			     sizeof(buf)) == 0,
		   "no escaped user.overlay.overlay.metacopy on the upper file");
}

S9_PROBE(mknod_device, {
	E2E_ERRNO(mknod(P("%s/null", s9.merged), S_IFCHR | 0666, makedev(1, 3)), EPERM);
	E2E_ERRNO(mknod(P("%s/vda", s9.merged), S_IFBLK | 0666, makedev(254, 0)), EPERM);
})
/* an overlay is no upper layer of another (it has DCACHE_OP_REAL) */
S9_PROBE(overlay_as_upper, {
	E2E_OK(mkdir(P("%s/u2", s9.merged), 0755));
	E2E_OK(mkdir(P("%s/w2", s9.merged), 0755));
	E2E_OK(mkdir(P("%s/m2", s9.merged), 0755));
	E2E_ERRNO(mount("overlay", P("%s/m2", s9.merged), "overlay", 0,
			P("lowerdir=%s,upperdir=%s/u2,workdir=%s/w2,userxattr",
			  s9.lower, s9.merged, s9.merged)), EINVAL);
})

/* setuid/setgid on the user's own file: it stays the user's, seen from
 * the initial namespace (no root-owned setuid file appears) */
static void s9_setuid_own(void)
{
	E2E_OK(chown(P("%s/own", s9.merged), 0, 0));
	E2E_OK(chmod(P("%s/own", s9.merged), 06755));
}

static void t_probe_setuid_own_file(void)
{
	struct stat st;

	s9_run("setuid_own_file", s9_setuid_own, 1);
	E2E_OK(lstat(P("%s/own", s9.upper), &st));
	E2E_ASSERT(st.st_uid == USER && st.st_gid == USER && (st.st_mode & 07777) == 06755,
		   "upper own: uid %u gid %u mode %o", st.st_uid, st.st_gid,
		   st.st_mode & 07777);
}

/* a lower layer the user cannot reach: the mount itself is refused */
static void s9_locked_lower(void)
{
	E2E_ERRNO(mount("overlay", s9.merged, "overlay", 0,
			P("lowerdir=%s/locked/lower,upperdir=%s,workdir=%s,userxattr",
			  s9.base, s9.upper, s9.work)), EACCES);
}

static void t_probe_lower_not_searchable(void)
{
	struct s9_probe pr = { s9_locked_lower, 0 };

	s9_layers("lower_not_searchable");
	E2E_OK(mkdir(P("%s/locked", s9.base), 0700));
	E2E_OK(mkdir(P("%s/locked/lower", s9.base), 0755));
	e2e_as_user(USER, USER, E2E_USERNS, s9_user, &pr);
	s9_unchanged();
}

/* ==== 10. inode flags through copy-up ====================================== */

/*
 * Copy-up carries two kinds of inode flags (fs/overlayfs/copy_up.c,
 * ovl_copy_fileattr()): sync and noatime go to the upper inode as flags;
 * append-only and immutable go to the overlay.protattr xattr instead
 * ("a", "i"), since the upper inode could not take its own xattrs or links
 * with them set.  Nothing else is copied (nodump stays behind).  Each case
 * is one lower file or directory, its copy-up, and what the upper inode and
 * the overlay show, right after copy-up and after a remount.
 */
static struct ovl s10;

#define S10_MASK (FS_SYNC_FL | FS_IMMUTABLE_FL | FS_APPEND_FL | FS_NODUMP_FL | \
		  FS_NOATIME_FL)

enum s10_copy {
	S10_WRITE,	/* open for writing (O_APPEND where append-only) */
	S10_SETFLAGS,	/* FS_IOC_SETFLAGS of the flags it has: the only way
			 * to copy up an immutable file */
	S10_CHILD,	/* a directory: create a file in it */
	S10_CHILD_WRITE,/* a directory: write to the file "f" in it */
};

struct s10_case {
	const char *name;
	int dir;
	enum s10_copy copy;
	int lower;	/* FS_*_FL on the lower inode */
	int upper;	/* expected on the upper inode (& S10_MASK) */
	const char *protattr;	/* expected overlay.protattr; NULL: none */
	int merged;	/* expected through the overlay after copy-up */
};

/* FS_SYNC_FL 0x8, FS_IMMUTABLE_FL 0x10, FS_APPEND_FL 0x20,
 * FS_NODUMP_FL 0x40, FS_NOATIME_FL 0x80 */
static const struct s10_case s10_cases[] = {
	{ "sync", 0, S10_WRITE, 0x08, 0x08, NULL, 0x08 },
	{ "noatime", 0, S10_WRITE, 0x80, 0x80, NULL, 0x80 },
	{ "nodump", 0, S10_WRITE, 0x40, 0x00, NULL, 0x00 },
	{ "sync_nodump", 0, S10_WRITE, 0x48, 0x08, NULL, 0x08 },
	{ "append", 0, S10_WRITE, 0x20, 0x00, "a", 0x20 },
	{ "immutable", 0, S10_SETFLAGS, 0x10, 0x00, "i", 0x10 },
	{ "all_four", 0, S10_SETFLAGS, 0xb8, 0x88, "ai", 0xb8 },
	{ "dir_noatime", 1, S10_CHILD, 0x80, 0x80, NULL, 0x80 },
	{ "dir_append", 1, S10_CHILD, 0x20, 0x00, "a", 0x20 },
	{ "dir_immutable", 1, S10_CHILD_WRITE, 0x10, 0x00, "i", 0x10 },
};

/* FS_IOC_GETFLAGS of path, & S10_MASK; -1 and errno on failure */
static int s10_flags(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK), flags = 0, r;

	if (fd < 0)
		return -1;
	r = ioctl(fd, FS_IOC_GETFLAGS, &flags);
	close(fd);
	return r ? -1 : flags & S10_MASK;
}

static void s10_setflags(const char *path, int flags)
{
	int fd = E2E_OK(open(path, O_RDONLY | O_NONBLOCK)), cur;

	E2E_OK(ioctl(fd, FS_IOC_GETFLAGS, &cur));
	cur = (cur & ~S10_MASK) | flags;
	E2E_OK(ioctl(fd, FS_IOC_SETFLAGS, &cur));
	close(fd);
}

/* each case's lower file (with content) or directory (with "f") */
static void s10_layers(const char *base, int root_owned)
{
	layers(&s10, base, root_owned);
	for (size_t i = 0; i < E2E_COUNT(s10_cases); i++) {
		const struct s10_case *c = &s10_cases[i];
		const char *p = P("%s/%s", s10.lower, c->name);

		if (c->dir) {
			mkdir_own(p, 0755, root_owned);
			put(P("%s/f", p), "f", root_owned);
		} else {
			put(p, c->name, root_owned);
		}
		s10_setflags(p, c->lower);
	}
}

/* the lower flags off again: the disk stays removable */
static void s10_unflag(void)
{
	for (size_t i = 0; i < E2E_COUNT(s10_cases); i++)
		s10_setflags(P("%s/%s", s10.lower, s10_cases[i].name), 0);
}

static void s10_copy_up(const struct s10_case *c)
{
	const char *p = P("%s/%s", s10.merged, c->name);
	int fd, flags;

	switch (c->copy) {
	case S10_WRITE:
		fd = E2E_OK(open(p, O_WRONLY | (c->lower & FS_APPEND_FL ? O_APPEND : 0)));
		close(fd);
		break;
	case S10_SETFLAGS:
		fd = E2E_OK(open(p, O_RDONLY));
		E2E_OK(ioctl(fd, FS_IOC_GETFLAGS, &flags));
		E2E_OK(ioctl(fd, FS_IOC_SETFLAGS, &flags));
		close(fd);
		break;
	case S10_CHILD:
		put(P("%s/new", p), "new", 1);
		break;
	case S10_CHILD_WRITE:
		fd = E2E_OK(open(P("%s/f", p), O_WRONLY | O_APPEND));
		E2E_OK(write(fd, "+", 1));
		close(fd);
		break;
	}
}

/* what the overlay shows: the case's flags, and they hold */
static void s10_check_merged(const struct s10_case *c, const char *when)
{
	const char *p = P("%s/%s", s10.merged, c->name);
	int flags = s10_flags(p);

	E2E_ASSERT(flags == c->merged, "%s: %s through the overlay has flags %#x",
		   when, c->name, flags);
	if (c->merged & (FS_IMMUTABLE_FL | FS_APPEND_FL) && !c->dir)
		E2E_ERRNO(open(p, O_WRONLY), EPERM);
	if (c->merged & FS_IMMUTABLE_FL && c->dir)
		E2E_ERRNO(open(P("%s/new2", p), O_WRONLY | O_CREAT, 0644), EPERM);
	if (c->merged & FS_APPEND_FL && c->dir)
		E2E_ERRNO(unlink(P("%s/f", p)), EPERM);
}

/* the upper inode, seen from the initial namespace */
static void s10_check_upper(const struct s10_case *c, const char *xattr,
			    const char *when)
{
	const char *p = P("%s/%s", s10.upper, c->name);
	char buf[16];
	ssize_t n;
	int flags = s10_flags(p);

	E2E_ASSERT(flags == c->upper, "%s: upper %s has flags %#x", when,
		   c->name, flags);
	if (!c->protattr) {
		E2E_ERRNO(lgetxattr(p, xattr, buf, sizeof(buf)), ENODATA);
		return;
	}
	n = lgetxattr(p, xattr, buf, sizeof(buf));
	E2E_ASSERT(n == (ssize_t)strlen(c->protattr) && !memcmp(buf, c->protattr, n),
		   "%s: upper %s has %s '%.*s' (%zd bytes)", when, c->name, xattr,
		   n > 0 ? (int)n : 0, buf, n);
}

static void s10_overlay(const char *extra)
{
	for (size_t i = 0; i < E2E_COUNT(s10_cases); i++) {
		s10_copy_up(&s10_cases[i]);
		s10_check_merged(&s10_cases[i], "after copy-up");
	}
	E2E_OK(umount(s10.merged));
	MOUNT_OK(&s10, extra);
	for (size_t i = 0; i < E2E_COUNT(s10_cases); i++)
		s10_check_merged(&s10_cases[i], "after remount");
}

static void t_fileattr_copy_up(void)
{
	s10_layers(DISK "/s10", 1);
	MOUNT_OK(&s10, NULL);
	s10_overlay(NULL);
	E2E_OK(umount(s10.merged));
	for (size_t i = 0; i < E2E_COUNT(s10_cases); i++)
		s10_check_upper(&s10_cases[i], "trusted.overlay.protattr", "unmounted");
	s10_unflag();
}

static void s10_user(void *arg)
{
	(void)arg;
	MOUNT_OK(&s10, "userxattr");
	s10_overlay("userxattr");
	E2E_OK(umount(s10.merged));
}

/* The same through a userxattr overlay of an unprivileged user: it may not
 * set append-only or immutable, but copy-up keeps them (user.overlay.*). */
static void t_fileattr_copy_up_userns(void)
{
	s10_layers(DISK "/s10u", 0);
	e2e_as_user(USER, USER, E2E_USERNS, s10_user, NULL);
	for (size_t i = 0; i < E2E_COUNT(s10_cases); i++)
		s10_check_upper(&s10_cases[i], "user.overlay.protattr", "unmounted");
	s10_unflag();
}

/*
 * An upper filesystem that takes neither xattrs nor inode flags (ramfs):
 * copy-up goes on without them.  Appending to an append-only file copies
 * it up although overlay.protattr cannot be written (-EPERM, "no xattr on
 * upper": after a remount the file is no longer append-only), and a sync
 * file copies up although the upper inode has no flags (-ENOTTY, "no
 * support on upper").  Any other error fails the copy-up.
 */
static void t_fileattr_copy_up_no_xattr(void)
{
	const char *r = "/mnt/r10";
	int k = e2e_kmsg_open(), fd;

	layers(&s10, DISK "/s10r", 1);
	e2e_mkdirs(r, 0755);
	E2E_OK(mount("ramfs", r, "ramfs", 0, NULL));
	snprintf(s10.upper, sizeof(s10.upper), "%s/upper", r);
	snprintf(s10.work, sizeof(s10.work), "%s/work", r);
	e2e_mkdirs(s10.upper, 0755);
	e2e_mkdirs(s10.work, 0755);
	put(P("%s/append", s10.lower), "append", 1);
	s10_setflags(P("%s/append", s10.lower), FS_APPEND_FL);
	put(P("%s/sync", s10.lower), "sync", 1);
	s10_setflags(P("%s/sync", s10.lower), FS_SYNC_FL);
	MOUNT_OK(&s10, NULL);

	fd = E2E_OK(open(P("%s/append", s10.merged), O_WRONLY | O_APPEND));
	E2E_OK(write(fd, "+", 1));
	close(fd);
	E2E_ASSERT(e2e_kmsg_find(k, "copying fileattr: no xattr on upper"),
		   "no \"no xattr on upper\" warning");
	fd = E2E_OK(open(P("%s/sync", s10.merged), O_WRONLY | O_APPEND));
	E2E_OK(write(fd, "+", 1));
	close(fd);
	E2E_ASSERT(e2e_kmsg_find(k, "copying fileattr: no support on upper"),
		   "no \"no support on upper\" warning");
	close(k);
	EXPECT_CONTENT(P("%s/append", s10.upper), "append+");
	EXPECT_CONTENT(P("%s/sync", s10.upper), "sync+");

	E2E_OK(umount(s10.merged));
	MOUNT_OK(&s10, NULL);
	E2E_ERRNO(s10_flags(P("%s/append", s10.merged)), ENOTTY);
	fd = E2E_OK(open(P("%s/append", s10.merged), O_WRONLY | O_TRUNC));
	close(fd);
	EXPECT_CONTENT(P("%s/append", s10.lower), "append");
	EXPECT_CONTENT(P("%s/sync", s10.lower), "sync");
	E2E_OK(umount(s10.merged));
	s10_setflags(P("%s/append", s10.lower), 0);
	s10_setflags(P("%s/sync", s10.lower), 0);
}

/*
 * The rest of what copy-up carries from the lower inode: its times
 * (ovl_set_attr(): the upper inode's atime and mtime are the lower's) and
 * its POSIX ACL (ovl_copy_xattr(): system.posix_acl_access, byte for byte).
 */
static void t_copy_up_times_acl(void)
{
	/* version 2; user::rw-, user:1000:r--, group::r--, mask::r--, other::--- */
	static const unsigned char acl[] = {
		2, 0, 0, 0,
		0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
		0x02, 0, 4, 0, 0xe8, 0x03, 0, 0,
		0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};
	const struct timespec ts[2] = { { 1000000001, 0 }, { 1000000000, 0 } };
	unsigned char buf[128];
	struct stat st;
	ssize_t n;
	int fd;

	layers(&s10, DISK "/s10t", 1);
	put(P("%s/f", s10.lower), "f", 1);
	E2E_OK(setxattr(P("%s/f", s10.lower), "system.posix_acl_access", acl,
			sizeof(acl), 0));
	E2E_OK(utimensat(AT_FDCWD, P("%s/f", s10.lower), ts, 0));
	MOUNT_OK(&s10, NULL);
	fd = E2E_OK(open(P("%s/f", s10.merged), O_WRONLY));	/* copy-up */
	close(fd);
	E2E_OK(umount(s10.merged));

	E2E_OK(lstat(P("%s/f", s10.upper), &st));
	E2E_ASSERT(st.st_atim.tv_sec == 1000000001 && st.st_mtim.tv_sec == 1000000000,
		   "upper f: atime %lld mtime %lld", (long long)st.st_atim.tv_sec,
		   (long long)st.st_mtim.tv_sec);
	n = lgetxattr(P("%s/f", s10.upper), "system.posix_acl_access", buf, sizeof(buf));
	E2E_ASSERT(n == (ssize_t)sizeof(acl) && !memcmp(buf, acl, sizeof(acl)),
		   "upper f: system.posix_acl_access of %zd bytes, not the lower's %zu",
		   n, sizeof(acl));
	E2E_ASSERT((st.st_mode & 0777) == 0640, "upper f: mode %o (ACL mask r--)",
		   st.st_mode & 0777);
	MOUNT_OK(&s10, NULL);
	E2E_OK(lstat(P("%s/f", s10.merged), &st));
	E2E_ASSERT(st.st_mtim.tv_sec == 1000000000, "merged f after remount: mtime %lld",
		   (long long)st.st_mtim.tv_sec);
	E2E_OK(umount(s10.merged));
}

/* ==== 11. inode flags cleared through the overlay ========================= */

/*
 * Append-only and immutable set through the overlay live in the upper
 * inode's overlay.protattr xattr (ovl_set_protattr()); clearing them
 * through the overlay must remove that xattr, or they come back when the
 * inode is read again (ovl_check_protattr()): after the inode is evicted
 * (drop_caches) or after a remount.  Each case is one file or directory:
 * set (or copied up with the flag from the lower layer), then cleared, and
 * checked at each of the three points; the reverse too: set and kept.
 */
static struct ovl s11;

enum s11_how {
	S11_SET_CLEAR,		/* a new file: set the flag, then clear it */
	S11_LOWER_CLEAR,	/* the lower file has it: copy up, then clear it */
	S11_SET_KEEP,		/* a new file: set the flag and keep it */
};

struct s11_case {
	const char *name;
	int dir;
	enum s11_how how;
	int flag;	/* FS_APPEND_FL 0x20 or FS_IMMUTABLE_FL 0x10 */
};

static const struct s11_case s11_cases[] = {
	{ "set_clear_a", 0, S11_SET_CLEAR, 0x20 },
	{ "set_clear_i", 0, S11_SET_CLEAR, 0x10 },
	{ "dir_set_clear_a", 1, S11_SET_CLEAR, 0x20 },
	{ "dir_set_clear_i", 1, S11_SET_CLEAR, 0x10 },
	{ "lower_clear_a", 0, S11_LOWER_CLEAR, 0x20 },
	{ "lower_clear_i", 0, S11_LOWER_CLEAR, 0x10 },
	{ "dir_lower_clear_i", 1, S11_LOWER_CLEAR, 0x10 },
	{ "set_keep_a", 0, S11_SET_KEEP, 0x20 },
	{ "set_keep_i", 0, S11_SET_KEEP, 0x10 },
};

static void s11_layers(const char *base)
{
	layers(&s11, base, 1);
	for (size_t i = 0; i < E2E_COUNT(s11_cases); i++) {
		const struct s11_case *c = &s11_cases[i];
		const char *p = P("%s/%s", s11.lower, c->name);

		if (c->how != S11_LOWER_CLEAR)
			continue;
		if (c->dir) {
			mkdir_own(p, 0755, 1);
			put(P("%s/f", p), "f", 1);
		} else {
			put(p, c->name, 1);
		}
		s10_setflags(p, c->flag);
	}
}

static void s11_unflag(void)
{
	for (size_t i = 0; i < E2E_COUNT(s11_cases); i++)
		if (s11_cases[i].how == S11_LOWER_CLEAR)
			s10_setflags(P("%s/%s", s11.lower, s11_cases[i].name), 0);
}

/* each case through the overlay: made, flagged (or copied up), cleared */
static void s11_apply(void)
{
	for (size_t i = 0; i < E2E_COUNT(s11_cases); i++) {
		const struct s11_case *c = &s11_cases[i];
		const char *p = P("%s/%s", s11.merged, c->name);

		if (c->how == S11_LOWER_CLEAR) {
			s10_setflags(p, c->flag);	/* copies it up, flag kept */
			E2E_ASSERT(s10_flags(p) == c->flag, "%s: flags %#x after copy-up",
				   c->name, s10_flags(p));
		} else {
			if (c->dir)
				mkdir_own(p, 0755, 1);
			else
				put(p, c->name, 1);
			s10_setflags(p, c->flag);
			E2E_ASSERT(s10_flags(p) == c->flag, "%s: flags %#x after setting %#x",
				   c->name, s10_flags(p), c->flag);
		}
		if (c->how != S11_SET_KEEP)
			s10_setflags(p, 0);
	}
}

/* what a case looks like through the overlay, at point when */
static void s11_check(const struct s11_case *c, const char *when)
{
	const char *p = P("%s/%s", s11.merged, c->name);
	int want = c->how == S11_SET_KEEP ? c->flag : 0, fd;

	E2E_ASSERT(s10_flags(p) == want, "%s: %s has flags %#x through the overlay, "
		   "expected %#x", when, c->name, s10_flags(p), want);
	if (c->dir) {
		fd = open(P("%s/n_%s", p, when), O_WRONLY | O_CREAT, 0644);
		if (want & FS_IMMUTABLE_FL) {
			E2E_ASSERT(fd < 0 && errno == EPERM, "%s: created a file in "
				   "immutable %s", when, c->name);
		} else {
			E2E_ASSERT(fd >= 0, "%s: create in %s: %s", when, c->name,
				   strerrorname_np(errno));
			close(fd);
		}
		return;
	}
	fd = open(p, O_WRONLY);
	if (want) {
		E2E_ASSERT(fd < 0 && errno == EPERM, "%s: %s (flags %#x) opened for "
			   "writing", when, c->name, want);
	} else {
		E2E_ASSERT(fd >= 0, "%s: open %s for writing: %s", when, c->name,
			   strerrorname_np(errno));
		close(fd);
	}
}

static void s11_check_all(const char *when)
{
	for (size_t i = 0; i < E2E_COUNT(s11_cases); i++)
		s11_check(&s11_cases[i], when);
}

/* the upper inodes, unmounted: no flag of the two on any, protattr only
 * on the kept ones */
static void s11_check_upper(const char *xattr)
{
	for (size_t i = 0; i < E2E_COUNT(s11_cases); i++) {
		const struct s11_case *c = &s11_cases[i];
		const char *p = P("%s/%s", s11.upper, c->name);
		const char *want = c->how != S11_SET_KEEP ? NULL :
				   c->flag == FS_APPEND_FL ? "a" : "i";
		char buf[16];
		ssize_t n;

		E2E_ASSERT(s10_flags(p) == 0, "upper %s has flags %#x", c->name,
			   s10_flags(p));
		n = lgetxattr(p, xattr, buf, sizeof(buf));
		if (!want) {
			E2E_ASSERT(n < 0 && errno == ENODATA, "upper %s still has %s "
				   "'%.*s' after the flags were cleared", c->name, xattr,
				   n > 0 ? (int)n : 0, buf);
			continue;
		}
		E2E_ASSERT(n == 1 && buf[0] == want[0], "upper %s has %s '%.*s', "
			   "expected '%s'", c->name, xattr, n > 0 ? (int)n : 0, buf, want);
	}
}

/* the kept flags off again through the overlay: the disk stays removable */
static void s11_release(const char *extra)
{
	MOUNT_OK(&s11, extra);
	for (size_t i = 0; i < E2E_COUNT(s11_cases); i++)
		if (s11_cases[i].how == S11_SET_KEEP)
			s10_setflags(P("%s/%s", s11.merged, s11_cases[i].name), 0);
	E2E_OK(umount(s11.merged));
}

static void s11_run(const char *base, const char *extra, const char *xattr)
{
	s11_layers(base);
	MOUNT_OK(&s11, extra);
	s11_apply();
	s11_check_all("cleared");
	/* evict the inodes: the flags are read again from the upper inode */
	sync();
	e2e_write_str("/proc/sys/vm/drop_caches", "3");
	s11_check_all("evicted");
	E2E_OK(umount(s11.merged));
	s11_check_upper(xattr);
	MOUNT_OK(&s11, extra);
	s11_check_all("remounted");
	E2E_OK(umount(s11.merged));
	s11_release(extra);
	s11_unflag();
}

/* An unprivileged user in a user namespace, on its own userxattr overlay:
 * copy-up keeps the lower file's flag, but clearing it needs
 * CAP_LINUX_IMMUTABLE, so it fails and the flag holds after a remount. */
static const struct { const char *name; int flag; } s11u_files[] = {
	{ "ua", 0x20 }, { "ui", 0x10 },
};

static void s11u_check(const char *when)
{
	for (size_t i = 0; i < E2E_COUNT(s11u_files); i++) {
		const char *p = P("%s/%s", s11.merged, s11u_files[i].name);

		E2E_ASSERT(s10_flags(p) == s11u_files[i].flag, "%s: %s has flags %#x, "
			   "expected %#x", when, s11u_files[i].name, s10_flags(p),
			   s11u_files[i].flag);
		E2E_ERRNO(open(p, O_WRONLY), EPERM);
	}
}

static void s11u_user(void *arg)
{
	(void)arg;
	MOUNT_OK(&s11, "userxattr");
	for (size_t i = 0; i < E2E_COUNT(s11u_files); i++) {
		const char *p = P("%s/%s", s11.merged, s11u_files[i].name);
		int fd = E2E_OK(open(p, O_RDONLY)), flags;

		E2E_OK(ioctl(fd, FS_IOC_GETFLAGS, &flags));
		E2E_OK(ioctl(fd, FS_IOC_SETFLAGS, &flags));	/* copies it up */
		flags &= ~s11u_files[i].flag;
		E2E_ERRNO(ioctl(fd, FS_IOC_SETFLAGS, &flags), EPERM);
		close(fd);
	}
	s11u_check("refused");
	E2E_OK(umount(s11.merged));
	MOUNT_OK(&s11, "userxattr");
	s11u_check("remounted");
	E2E_OK(umount(s11.merged));
}

static void t_fileattr_clear_userns(void)
{
	char buf[4];

	layers(&s11, DISK "/s11u", 0);
	for (size_t i = 0; i < E2E_COUNT(s11u_files); i++) {
		const char *p = P("%s/%s", s11.lower, s11u_files[i].name);

		put(p, s11u_files[i].name, 0);
		s10_setflags(p, s11u_files[i].flag);
	}
	e2e_as_user(USER, USER, E2E_USERNS, s11u_user, NULL);
	for (size_t i = 0; i < E2E_COUNT(s11u_files); i++) {
		const char *p = P("%s/%s", s11.upper, s11u_files[i].name);
		ssize_t n = lgetxattr(p, "user.overlay.protattr", buf, sizeof(buf));

		E2E_ASSERT(n == 1 && buf[0] == (s11u_files[i].flag == 0x20 ? 'a' : 'i'),
			   "upper %s: user.overlay.protattr '%.*s' (%zd)", s11u_files[i].name,
			   n > 0 ? (int)n : 0, buf, n);
		s10_setflags(P("%s/%s", s11.lower, s11u_files[i].name), 0);
	}
}

static void t_fileattr_clear(void)
{
	s11_run(DISK "/s11", NULL, "trusted.overlay.protattr");
}

static void t_fileattr_clear_userxattr(void)
{
	s11_run(DISK "/s11x", "userxattr", "user.overlay.protattr");
}

/* ========================================================================= */

static const struct e2e_test tests[] = {
	{ "unpriv_mount", t_unpriv_mount },
	{ "uuid_off_prepare", t_uuid_off_prepare },
	{ "uuid_off_two_fs", t_uuid_off_two_fs },
	{ "uuid_off_copy", t_uuid_off_copy },
	{ "uuid_on_copy_estale", t_uuid_on_copy_estale },
	{ "kunit_leftovers", t_kunit_leftovers },
	{ "conflict_redirect_dir", t_conflict_redirect_dir },
	{ "conflict_metacopy", t_conflict_metacopy },
	{ "rename_lower_dir_exdev", t_rename_lower_dir_exdev },
	{ "symlink_copy_up", t_symlink_copy_up },
	{ "fileattr_flags", t_fileattr_flags },
	{ "ns_file_caps", t_ns_file_caps },
	{ "crafted_xattrs", t_crafted_xattrs },
	{ "open_by_handle_eperm", t_open_by_handle_eperm },
	{ "race_copy_up", t_race_copy_up },
	{ "race_copy_up_userns", t_race_copy_up_userns },
	{ "race_dir", t_race_dir },
	{ "race_dir_userns", t_race_dir_userns },
	{ "fileattr_copy_up", t_fileattr_copy_up },
	{ "fileattr_copy_up_userns", t_fileattr_copy_up_userns },
	{ "fileattr_copy_up_no_xattr", t_fileattr_copy_up_no_xattr },
	{ "fileattr_clear", t_fileattr_clear },
	{ "fileattr_clear_userxattr", t_fileattr_clear_userxattr },
	{ "fileattr_clear_userns", t_fileattr_clear_userns },
	{ "copy_up_times_acl", t_copy_up_times_acl },
	{ "probe_write_root_file", t_probe_write_root_file },
	{ "probe_truncate_root_file", t_probe_truncate_root_file },
	{ "probe_setuid_root_file", t_probe_setuid_root_file },
	{ "probe_chown_root_file", t_probe_chown_root_file },
	{ "probe_utimes_root_file", t_probe_utimes_root_file },
	{ "probe_read_secret_file", t_probe_read_secret_file },
	{ "probe_list_secret_dir", t_probe_list_secret_dir },
	{ "probe_create_in_root_dir", t_probe_create_in_root_dir },
	{ "probe_unlink_in_root_dir", t_probe_unlink_in_root_dir },
	{ "probe_trusted_xattr", t_probe_trusted_xattr },
	{ "probe_overlay_xattr_through_overlay", t_probe_overlay_xattr_through_overlay },
	{ "probe_mknod_device", t_probe_mknod_device },
	{ "probe_overlay_as_upper", t_probe_overlay_as_upper },
	{ "probe_setuid_own_file", t_probe_setuid_own_file },
	{ "probe_lower_not_searchable", t_probe_lower_not_searchable },
};

int main(int argc, char **argv)
{
	return e2e_main(argc, argv, tests, E2E_COUNT(tests), setup, teardown);
}
