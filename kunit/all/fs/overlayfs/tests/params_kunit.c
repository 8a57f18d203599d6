// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the overlayfs mount option parser, through the new mount
 * API as mount(2) drives it: fs_context_for_mount() on the overlay
 * filesystem type, ovl_parse_monolithic() (which hands each option to
 * vfs_parse_fs_string() and so to ovl_parse_param()), then
 * ovl_fs_params_verify(), which resolves conflicting options (userxattr vs
 * redirect_dir/metacopy/verity, nfs_export vs index/metacopy, metacopy vs
 * redirect_dir, data-only layers, options that mean nothing without an
 * upper layer).
 *
 * Each test pins the module parameters that feed the mount defaults
 * (static in params.c without CONFIG_KUNIT) and puts them back when it
 * ends, so that the results do not depend on the kernel config or on the
 * parameters the machine was booted with.
 *
 * The parser looks the layer paths up as it goes (6.5; 6.1 looked them up
 * at fill_super time), so the suite makes a few directories and a file
 * under /ovl_kunit on the root filesystem first, and removes them when it
 * ends.
 *
 * Where 6.12 differs from 6.1 by design, the case says so.
 *
 * Not covered here, as they need another filesystem than the root one:
 * the layer checks of ovl_mount_dir_check() for a case-insensitive or
 * otherwise unsupported ("weird") filesystem, and for a read-only upper
 * layer or one with DCACHE_OP_REAL.
 */

#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs_context.h>
#include <linux/namei.h>
#include <linux/xattr.h>
#include "../overlayfs.h"
#include "../params.h"
#include "params_kunit.h"

static const char *const ovl_params_kunit_dirs[] = {
	OVLK_D, OVLK_LOWER, OVLK_LOWER2, OVLK_DATA, OVLK_UPPER, OVLK_WORK,
	OVLK_D "/a,b", OVLK_D "/c:d",
};

static int ovl_params_kunit_mkdir(const char *name)
{
	struct dentry *dentry;
	struct path path;
	int err;

	dentry = kern_path_create(AT_FDCWD, name, &path, LOOKUP_DIRECTORY);
	if (IS_ERR(dentry))
		return PTR_ERR(dentry) == -EEXIST ? 0 : PTR_ERR(dentry);
	err = vfs_mkdir(mnt_idmap(path.mnt), d_inode(path.dentry), dentry,
			0755);
	done_path_create(&path, dentry);
	return err;
}

/* The layer directories and a regular file, on the root filesystem */
int ovl_params_kunit_suite_init(struct kunit_suite *suite)
{
	struct file *file;
	int i, err;

	for (i = 0; i < ARRAY_SIZE(ovl_params_kunit_dirs); i++) {
		err = ovl_params_kunit_mkdir(ovl_params_kunit_dirs[i]);
		if (err) {
			pr_err("overlayfs_params: mkdir %s: %d\n",
			       ovl_params_kunit_dirs[i], err);
			return err;
		}
	}
	file = filp_open(OVLK_FILE, O_CREAT | O_WRONLY, 0644);
	if (IS_ERR(file)) {
		pr_err("overlayfs_params: create %s: %ld\n", OVLK_FILE,
		       PTR_ERR(file));
		return PTR_ERR(file);
	}
	fput(file);
	return 0;
}

static void ovl_params_kunit_rm(const char *name, bool dir)
{
	struct dentry *dentry;
	struct path parent;

	dentry = kern_path_locked(name, &parent);
	if (IS_ERR(dentry))
		return;
	if (d_is_positive(dentry)) {
		if (dir)
			vfs_rmdir(mnt_idmap(parent.mnt), d_inode(parent.dentry),
				  dentry);
		else
			vfs_unlink(mnt_idmap(parent.mnt), d_inode(parent.dentry),
				   dentry, NULL);
	}
	inode_unlock(d_inode(parent.dentry));
	dput(dentry);
	path_put(&parent);
}

/*
 * Remove what ovl_params_kunit_suite_init() made, the file and the
 * directories deepest first: the suite leaves the root filesystem as it
 * found it.
 */
void ovl_params_kunit_suite_exit(struct kunit_suite *suite)
{
	int i;

	ovl_params_kunit_rm(OVLK_FILE, false);
	for (i = ARRAY_SIZE(ovl_params_kunit_dirs) - 1; i >= 0; i--)
		ovl_params_kunit_rm(ovl_params_kunit_dirs[i], true);
}

static void ovl_params_kunit_get_defs(struct ovl_params_kunit_defs *defs)
{
	defs->redirect_dir = ovl_redirect_dir_def;
	defs->redirect_always_follow = ovl_redirect_always_follow;
	defs->index = ovl_index_def;
	defs->nfs_export = ovl_nfs_export_def;
	defs->xino_auto = ovl_xino_auto_def;
	defs->metacopy = ovl_metacopy_def;
}

void ovl_params_kunit_set_defs(const struct ovl_params_kunit_defs *defs)
{
	ovl_redirect_dir_def = defs->redirect_dir;
	ovl_redirect_always_follow = defs->redirect_always_follow;
	ovl_index_def = defs->index;
	ovl_nfs_export_def = defs->nfs_export;
	ovl_xino_auto_def = defs->xino_auto;
	ovl_metacopy_def = defs->metacopy;
}

/* All features off by default, redirects followed (Kconfig's defaults) */
static const struct ovl_params_kunit_defs ovl_params_kunit_base = {
	.redirect_always_follow = true,
};

static const struct ovl_params_kunit_defs ovl_params_kunit_nofollow = {
	.redirect_always_follow = false,
};

static const struct ovl_params_kunit_defs ovl_params_kunit_redirect = {
	.redirect_dir = true,
	.redirect_always_follow = true,
};

static const struct ovl_params_kunit_defs ovl_params_kunit_metacopy = {
	.redirect_always_follow = true,
	.metacopy = true,
};

static const struct ovl_params_kunit_defs ovl_params_kunit_redirect_metacopy = {
	.redirect_dir = true,
	.redirect_always_follow = true,
	.metacopy = true,
};

static const struct ovl_params_kunit_defs ovl_params_kunit_index = {
	.redirect_always_follow = true,
	.index = true,
};

static const struct ovl_params_kunit_defs ovl_params_kunit_nfs_export = {
	.redirect_always_follow = true,
	.nfs_export = true,
};

static const struct ovl_params_kunit_defs ovl_params_kunit_xino_auto = {
	.redirect_always_follow = true,
	.xino_auto = true,
};

struct ovl_params_kunit_ctx {
	struct ovl_params_kunit_defs saved;
	struct fs_context *fc;
};

int ovl_params_kunit_init(struct kunit *test)
{
	struct ovl_params_kunit_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	ovl_params_kunit_get_defs(&ctx->saved);
	test->priv = ctx;
	ovl_params_kunit_set_defs(&ovl_params_kunit_base);
	return 0;
}

void ovl_params_kunit_exit(struct kunit *test)
{
	struct ovl_params_kunit_ctx *ctx = test->priv;

	if (!ctx)
		return;
	/* ovl_free(): the ovl_fs, the strings and the layer paths */
	if (ctx->fc)
		put_fs_context(ctx->fc);
	ovl_params_kunit_set_defs(&ctx->saved);
}

/* A mount of overlay: the context ovl_init_fs_context() sets up */
static struct fs_context *ovl_params_kunit_fc(struct kunit *test)
{
	struct ovl_params_kunit_ctx *ctx = test->priv;
	struct fs_context *fc;

	fc = fs_context_for_mount(&ovl_fs_type, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fc);
	ctx->fc = fc;
	return fc;
}

/* The options as mount(2) passes them (the parser writes into them) */
int ovl_params_kunit_parse_opts(struct kunit *test, struct fs_context *fc,
				const char *opts)
{
	char *data;

	data = kunit_kstrdup(test, opts, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, data);
	return fc->ops->parse_monolithic(fc, data);
}

/* Verify without CAP_SYS_ADMIN, as a mount in a user namespace does */
int ovl_params_kunit_verify_nocap(struct fs_context *fc)
{
	struct ovl_fs *ofs = fc->s_fs_info;
	const struct cred *old;
	struct cred *cred;
	int err;

	cred = prepare_creds();
	if (!cred)
		return -ENOMEM;
	cap_lower(cred->cap_effective, CAP_SYS_ADMIN);
	old = override_creds(cred);
	err = ovl_fs_params_verify(fc->fs_private, &ofs->config);
	revert_creds(old);
	put_cred(cred);
	return err;
}

/* What a case expects of the config and of the lower layers */
struct ovl_params_kunit_want {
	int redirect_mode;
	bool index;
	int uuid;
	bool nfs_export;
	int xino;
	bool metacopy;
	int verity_mode;
	bool userxattr;
	int fsync_mode;
	bool default_permissions;
	const char *upperdir;
	const char *workdir;
	/* The lowerdir= string, and the layers it and lowerdir+ gave */
	const char *lowerdir;
	unsigned int nr;
	unsigned int nr_data;
	const char *lower[3];
};

struct ovl_params_kunit_case {
	const char *desc;
	/* Module parameter defaults; NULL: ovl_params_kunit_base */
	const struct ovl_params_kunit_defs *defs;
	const char *opts;
	/* Parsing the options fails with parse_err ... */
	int parse_err;
	/* ... else ovl_fs_params_verify() returns err */
	int err;
	/* Verify without CAP_SYS_ADMIN */
	bool nocap;
	struct ovl_params_kunit_want want;
};

/* The three directories of OVLK_DIRS; default fsync; one lower layer */
#define OVLK_WANT_DIRS	.upperdir = OVLK_UPPER, .workdir = OVLK_WORK, \
			.lowerdir = OVLK_LOWER, .nr = 1, .lower = { OVLK_LOWER }
#define OVLK_WANT_LOWER	.lowerdir = OVLK_LOWER, .nr = 1, .lower = { OVLK_LOWER }

static const struct ovl_params_kunit_case ovl_params_kunit_cases[] = {
	/* Defaults; 6.1's uuid default was "on", 6.12's is "auto" (6.6) */
	{ "defaults", NULL, OVLK_DIRS, 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_AUTO, .xino = OVL_XINO_OFF,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "defaults_nofollow", &ovl_params_kunit_nofollow, OVLK_DIRS, 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_NOFOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "defaults_redirect_dir", &ovl_params_kunit_redirect, OVLK_DIRS, 0, 0,
	  false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_ON,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "defaults_metacopy_enables_redirect", &ovl_params_kunit_metacopy,
	  OVLK_DIRS, 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_ON, .metacopy = true,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "defaults_index", &ovl_params_kunit_index, OVLK_DIRS, 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW, .index = true,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	/* Without an upper layer, "follow" is "on" (6.1: redirect_dir) */
	{ "defaults_index_no_upper", &ovl_params_kunit_index,
	  "lowerdir=" OVLK_LOWER, 0, 0, false,
	  { OVLK_WANT_LOWER, .redirect_mode = OVL_REDIRECT_ON,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "defaults_xino_auto", &ovl_params_kunit_xino_auto, OVLK_DIRS, 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .xino = OVL_XINO_AUTO, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "default_permissions", NULL, OVLK_DIRS ",default_permissions", 0, 0,
	  false,
	  { OVLK_WANT_DIRS, .default_permissions = true,
	    .redirect_mode = OVL_REDIRECT_FOLLOW, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },

	/*
	 * userxattr: no redirect, no metacopy, no verity.  6.1 turned
	 * redirects off ("off", redirect_follow false); 6.12 names that
	 * "nofollow".
	 */
	{ "userxattr_disables_follow", NULL, OVLK_DIRS ",userxattr", 0, 0, false,
	  { OVLK_WANT_DIRS, .userxattr = true,
	    .redirect_mode = OVL_REDIRECT_NOFOLLOW, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "userxattr_disables_defaults", &ovl_params_kunit_redirect_metacopy,
	  OVLK_DIRS ",userxattr", 0, 0, false,
	  { OVLK_WANT_DIRS, .userxattr = true,
	    .redirect_mode = OVL_REDIRECT_NOFOLLOW, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "userxattr_redirect_dir_on", NULL, OVLK_DIRS ",userxattr,redirect_dir=on",
	  0, -EINVAL },
	{ "redirect_dir_on_userxattr", NULL, OVLK_DIRS ",redirect_dir=on,userxattr",
	  0, -EINVAL },
	{ "userxattr_redirect_dir_follow", NULL,
	  OVLK_DIRS ",userxattr,redirect_dir=follow", 0, -EINVAL },
	/* redirect_dir=off still follows with redirect_always_follow */
	{ "userxattr_redirect_dir_off_always_follow", NULL,
	  OVLK_DIRS ",userxattr,redirect_dir=off", 0, -EINVAL },
	{ "userxattr_redirect_dir_off", &ovl_params_kunit_nofollow,
	  OVLK_DIRS ",userxattr,redirect_dir=off", 0, 0, false,
	  { OVLK_WANT_DIRS, .userxattr = true,
	    .redirect_mode = OVL_REDIRECT_NOFOLLOW, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "userxattr_redirect_dir_nofollow", NULL,
	  OVLK_DIRS ",userxattr,redirect_dir=nofollow", 0, 0, false,
	  { OVLK_WANT_DIRS, .userxattr = true,
	    .redirect_mode = OVL_REDIRECT_NOFOLLOW, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "userxattr_metacopy_on", NULL, OVLK_DIRS ",userxattr,metacopy=on",
	  0, -EINVAL },
	{ "metacopy_on_userxattr", NULL, OVLK_DIRS ",metacopy=on,userxattr",
	  0, -EINVAL },
	{ "userxattr_metacopy_off", &ovl_params_kunit_metacopy,
	  OVLK_DIRS ",userxattr,metacopy=off", 0, 0, false,
	  { OVLK_WANT_DIRS, .userxattr = true,
	    .redirect_mode = OVL_REDIRECT_NOFOLLOW, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	/* verity (6.6; not in 6.1) needs trusted xattrs */
	{ "userxattr_verity_on", NULL, OVLK_DIRS ",userxattr,verity=on",
	  0, -EINVAL },
	{ "userxattr_verity_require", NULL, OVLK_DIRS ",verity=require,userxattr",
	  0, -EINVAL },

	/* metacopy needs redirect_dir=on */
	{ "metacopy_on_enables_redirect", NULL, OVLK_DIRS ",metacopy=on", 0, 0,
	  false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_ON, .metacopy = true,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "metacopy_on_redirect_dir_off", NULL,
	  OVLK_DIRS ",metacopy=on,redirect_dir=off", 0, -EINVAL },
	{ "metacopy_on_redirect_dir_follow", NULL,
	  OVLK_DIRS ",redirect_dir=follow,metacopy=on", 0, -EINVAL },
	{ "metacopy_on_redirect_dir_nofollow", NULL,
	  OVLK_DIRS ",redirect_dir=nofollow,metacopy=on", 0, -EINVAL },
	{ "metacopy_on_redirect_dir_on", NULL,
	  OVLK_DIRS ",metacopy=on,redirect_dir=on", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_ON, .metacopy = true,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "redirect_dir_off_disables_metacopy", &ovl_params_kunit_metacopy,
	  OVLK_DIRS ",redirect_dir=off", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },

	/* verity (6.6) needs metacopy, and so redirect_dir=on */
	{ "verity_on_enables_metacopy", NULL, OVLK_DIRS ",verity=on", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_ON, .metacopy = true,
	    .verity_mode = OVL_VERITY_ON, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "verity_require", NULL, OVLK_DIRS ",verity=require", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_ON, .metacopy = true,
	    .verity_mode = OVL_VERITY_REQUIRE, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "verity_off", NULL, OVLK_DIRS ",verity=on,verity=off", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "verity_on_metacopy_off", NULL, OVLK_DIRS ",verity=on,metacopy=off",
	  0, -EINVAL },
	{ "verity_on_redirect_dir_follow", NULL,
	  OVLK_DIRS ",verity=on,redirect_dir=follow", 0, -EINVAL },

	/* nfs_export needs index and excludes metacopy */
	{ "nfs_export_on_enables_index", NULL, OVLK_DIRS ",nfs_export=on", 0, 0,
	  false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW, .index = true,
	    .nfs_export = true, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "nfs_export_on_index_off", NULL, OVLK_DIRS ",nfs_export=on,index=off",
	  0, -EINVAL },
	{ "index_off_nfs_export_on", NULL, OVLK_DIRS ",index=off,nfs_export=on",
	  0, -EINVAL },
	{ "index_off_disables_nfs_export", &ovl_params_kunit_nfs_export,
	  OVLK_DIRS ",index=off", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "nfs_export_on_metacopy_on", NULL,
	  OVLK_DIRS ",nfs_export=on,metacopy=on", 0, -EINVAL },
	{ "nfs_export_on_disables_metacopy", &ovl_params_kunit_metacopy,
	  OVLK_DIRS ",nfs_export=on", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_ON, .index = true,
	    .nfs_export = true, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "metacopy_on_disables_nfs_export", &ovl_params_kunit_nfs_export,
	  OVLK_DIRS ",metacopy=on", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_ON, .index = true,
	    .metacopy = true, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "verity_on_disables_nfs_export", &ovl_params_kunit_nfs_export,
	  OVLK_DIRS ",verity=on", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_ON, .index = true,
	    .metacopy = true, .verity_mode = OVL_VERITY_ON,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },

	/* Without an upper layer */
	{ "no_upper_nfs_export_needs_nofollow", NULL,
	  "lowerdir=" OVLK_LOWER ",nfs_export=on", 0, 0, false,
	  { OVLK_WANT_LOWER, .redirect_mode = OVL_REDIRECT_ON,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "no_upper_nfs_export_nofollow", NULL,
	  "lowerdir=" OVLK_LOWER ",redirect_dir=nofollow,nfs_export=on", 0, 0, false,
	  { OVLK_WANT_LOWER, .redirect_mode = OVL_REDIRECT_NOFOLLOW, .index = true,
	    .nfs_export = true, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "no_upper_drops_workdir_and_index", NULL,
	  "lowerdir=" OVLK_LOWER ",workdir=" OVLK_WORK ",index=on", 0, 0, false,
	  { OVLK_WANT_LOWER, .redirect_mode = OVL_REDIRECT_ON,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	/* volatile is fsync=volatile (6.1 has no fsync= option) */
	{ "volatile", NULL, OVLK_DIRS ",volatile", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_VOLATILE } },
	{ "fsync_strict", NULL, OVLK_DIRS ",volatile,fsync=strict", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_STRICT } },
	{ "no_upper_drops_volatile", NULL, "lowerdir=" OVLK_LOWER ",volatile", 0, 0,
	  false,
	  { OVLK_WANT_LOWER, .redirect_mode = OVL_REDIRECT_ON,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },

	/* uuid=off|null|auto|on (6.1: off|on) and last one wins */
	{ "uuid_off", NULL, OVLK_DIRS ",uuid=off", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_OFF, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "uuid_null", NULL, OVLK_DIRS ",uuid=null", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_NULL, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "uuid_auto", NULL, OVLK_DIRS ",uuid=off,uuid=auto", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "uuid_on", NULL, OVLK_DIRS ",uuid=on", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_ON, .fsync_mode = OVL_FSYNC_AUTO } },
	/* 6.6: uuid=on needs an upper layer (6.1 kept uuid=on) */
	{ "uuid_on_no_upper", NULL, "lowerdir=" OVLK_LOWER ",uuid=on", 0, 0, false,
	  { OVLK_WANT_LOWER, .redirect_mode = OVL_REDIRECT_ON,
	    .uuid = OVL_UUID_NULL, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "uuid_off_no_upper", NULL, "lowerdir=" OVLK_LOWER ",uuid=off", 0, 0, false,
	  { OVLK_WANT_LOWER, .redirect_mode = OVL_REDIRECT_ON,
	    .uuid = OVL_UUID_OFF, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "uuid_off_then_on", NULL, OVLK_DIRS ",uuid=off,uuid=on", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_ON, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "uuid_on_then_off", NULL, OVLK_DIRS ",uuid=on,uuid=off", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_OFF, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "index_last_wins", NULL, OVLK_DIRS ",index=on,index=off", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "redirect_dir_last_wins", NULL,
	  OVLK_DIRS ",redirect_dir=on,redirect_dir=nofollow", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_NOFOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "xino_last_wins", NULL, OVLK_DIRS ",xino=on,xino=off,xino=auto", 0, 0,
	  false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .xino = OVL_XINO_AUTO, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "xino_off_overrides_default", &ovl_params_kunit_xino_auto,
	  OVLK_DIRS ",xino=off", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .xino = OVL_XINO_OFF, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "dirs_last_wins", NULL,
	  "lowerdir=" OVLK_LOWER2 ",upperdir=" OVLK_WORK ",workdir=" OVLK_UPPER "," OVLK_DIRS,
	  0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },

	/* Lower layers: looked up while parsing (6.5; 6.1: at mount) */
	{ "lowerdir_two", NULL, "lowerdir=" OVLK_LOWER ":" OVLK_LOWER2, 0, 0, false,
	  { .lowerdir = OVLK_LOWER ":" OVLK_LOWER2, .nr = 2, .lower = { OVLK_LOWER, OVLK_LOWER2 },
	    .redirect_mode = OVL_REDIRECT_ON, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "lowerdir_replaces", NULL,
	  "lowerdir=" OVLK_LOWER2 ":" OVLK_DATA ",lowerdir=" OVLK_LOWER, 0, 0, false,
	  { OVLK_WANT_LOWER, .redirect_mode = OVL_REDIRECT_ON,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	/* 6.1 refused an empty lowerdir= while parsing (-EINVAL) */
	{ "lowerdir_empty", NULL, "lowerdir=,upperdir=" OVLK_UPPER ",workdir=" OVLK_WORK,
	  0, 0, false,
	  { .upperdir = OVLK_UPPER, .workdir = OVLK_WORK,
	    .redirect_mode = OVL_REDIRECT_FOLLOW, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "lowerdir_missing", NULL, "lowerdir=" OVLK_MISSING, -ENOENT },
	{ "lowerdir_second_missing", NULL, "lowerdir=" OVLK_LOWER ":" OVLK_MISSING,
	  -ENOENT },
	{ "lowerdir_not_dir", NULL, "lowerdir=" OVLK_FILE, -EINVAL },
	{ "upperdir_missing", NULL, "upperdir=" OVLK_MISSING, -ENOENT },
	{ "upperdir_not_dir", NULL, "upperdir=" OVLK_FILE, -EINVAL },
	{ "workdir_missing", NULL, "workdir=" OVLK_MISSING, -ENOENT },
	{ "workdir_not_dir", NULL, "workdir=" OVLK_FILE, -EINVAL },
	{ "lowerdir_append", NULL, "lowerdir=:" OVLK_LOWER, -EINVAL },
	{ "lowerdir_trailing_colon", NULL, "lowerdir=" OVLK_LOWER ":", -EINVAL },
	{ "lowerdir_triple_colon", NULL, "lowerdir=" OVLK_LOWER ":::" OVLK_DATA,
	  -EINVAL },
	{ "lowerdir_escaped_comma", NULL,
	  "lowerdir=" OVLK_D "/a\\,b,upperdir=" OVLK_UPPER ",workdir=" OVLK_WORK, 0, 0, false,
	  { .upperdir = OVLK_UPPER, .workdir = OVLK_WORK, .lowerdir = OVLK_D "/a\\,b",
	    .nr = 1, .lower = { OVLK_D "/a\\,b" },
	    .redirect_mode = OVL_REDIRECT_FOLLOW, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "lowerdir_escaped_colon", NULL, "lowerdir=" OVLK_D "/c\\:d", 0, 0, false,
	  { .lowerdir = OVLK_D "/c\\:d", .nr = 1, .lower = { OVLK_D "/c\\:d" },
	    .redirect_mode = OVL_REDIRECT_ON, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },

	/* Data-only lower layers ("::", datadir+) and lowerdir+: not in 6.1 */
	{ "data_layer", NULL, OVLK_DATA_DIRS ",metacopy=on", 0, 0, false,
	  { .upperdir = OVLK_UPPER, .workdir = OVLK_WORK, .lowerdir = OVLK_LOWER "::" OVLK_DATA,
	    .nr = 2, .nr_data = 1, .lower = { OVLK_LOWER, OVLK_DATA },
	    .redirect_mode = OVL_REDIRECT_ON, .metacopy = true,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "data_layer_needs_metacopy", NULL, OVLK_DATA_DIRS, 0, -EINVAL },
	{ "data_layer_metacopy_off", &ovl_params_kunit_metacopy,
	  OVLK_DATA_DIRS ",metacopy=off", 0, -EINVAL },
	{ "data_layer_then_regular", NULL,
	  "lowerdir=" OVLK_LOWER "::" OVLK_DATA ":" OVLK_LOWER2, -EINVAL },
	{ "lowerdir_add", NULL,
	  "lowerdir+=" OVLK_LOWER ",lowerdir+=" OVLK_LOWER2 ",datadir+=" OVLK_DATA
	  ",metacopy=on", 0, 0, false,
	  { .nr = 3, .nr_data = 1, .lower = { OVLK_LOWER, OVLK_LOWER2, OVLK_DATA },
	    .redirect_mode = OVL_REDIRECT_ON, .metacopy = true,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "lowerdir_add_after_lowerdir", NULL,
	  "lowerdir=" OVLK_LOWER ",lowerdir+=" OVLK_LOWER2, -EINVAL },
	{ "datadir_add_after_lowerdir", NULL,
	  "lowerdir=" OVLK_LOWER ",datadir+=" OVLK_DATA, -EINVAL },
	{ "lowerdir_add_after_datadir", NULL,
	  "lowerdir+=" OVLK_LOWER ",datadir+=" OVLK_DATA ",lowerdir+=" OVLK_LOWER2, -EINVAL },
	{ "lowerdir_add_missing", NULL, "lowerdir+=" OVLK_MISSING, -ENOENT },

	/* Without CAP_SYS_ADMIN: only what needs no trusted xattrs */
	{ "nocap_defaults", &ovl_params_kunit_metacopy, OVLK_DIRS, 0, 0, true,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_ON, .metacopy = true,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "nocap_userxattr", NULL, OVLK_DIRS ",userxattr", 0, 0, true,
	  { OVLK_WANT_DIRS, .userxattr = true,
	    .redirect_mode = OVL_REDIRECT_NOFOLLOW, .uuid = OVL_UUID_AUTO,
	    .fsync_mode = OVL_FSYNC_AUTO } },
	{ "nocap_redirect_dir_nofollow", NULL, OVLK_DIRS ",redirect_dir=nofollow",
	  0, 0, true,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_NOFOLLOW,
	    .uuid = OVL_UUID_AUTO, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "nocap_redirect_dir_on", NULL, OVLK_DIRS ",redirect_dir=on", 0, -EPERM,
	  true },
	{ "nocap_metacopy_on", NULL, OVLK_DIRS ",metacopy=on", 0, -EPERM, true },
	{ "nocap_verity_on", NULL, OVLK_DIRS ",verity=on", 0, -EPERM, true },
	{ "nocap_data_layer", &ovl_params_kunit_metacopy, OVLK_DATA_DIRS, 0,
	  -EPERM, true },

	/* Syntax */
	{ "empty_options_skipped", NULL, ",," OVLK_DIRS ",,uuid=off,", 0, 0, false,
	  { OVLK_WANT_DIRS, .redirect_mode = OVL_REDIRECT_FOLLOW,
	    .uuid = OVL_UUID_OFF, .fsync_mode = OVL_FSYNC_AUTO } },
	{ "unknown_option", NULL, OVLK_DIRS ",foo", -EINVAL },
	{ "unknown_value", NULL, OVLK_DIRS ",uuid=maybe", -EINVAL },
	{ "trailing_garbage", NULL, OVLK_DIRS ",uuid=offx", -EINVAL },
	{ "upper_case", NULL, OVLK_DIRS ",UUID=off", -EINVAL },
	{ "missing_value", NULL, OVLK_DIRS ",index", -EINVAL },
	{ "flag_with_value", NULL, OVLK_DIRS ",userxattr=on", -EINVAL },
	{ "upperdir_empty", NULL, "upperdir=", -EINVAL },
	{ "bad_redirect_dir", NULL, OVLK_DIRS ",redirect_dir=bogus", -EINVAL },
	{ "bad_verity", NULL, OVLK_DIRS ",verity=maybe", -EINVAL },
	{ "bad_fsync", NULL, OVLK_DIRS ",fsync=never", -EINVAL },
};

static void ovl_params_kunit_desc(const struct ovl_params_kunit_case *c,
				  char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ovl_params_kunit, ovl_params_kunit_cases,
		  ovl_params_kunit_desc);

static void ovl_params_kunit_expect_str(struct kunit *test, const char *what,
					const char *got, const char *want)
{
	if (!want)
		KUNIT_EXPECT_NULL_MSG(test, got, "%s", what);
	else if (!got)
		KUNIT_FAIL(test, "%s is NULL, expected \"%s\"", what, want);
	else
		KUNIT_EXPECT_STREQ_MSG(test, got, want, "%s", what);
}

/* Parse and verify the options of a mount from the defaults */
static void ovl_params_kunit_parse(struct kunit *test)
{
	const struct ovl_params_kunit_case *c = test->param_value;
	const struct ovl_params_kunit_want *want = &c->want;
	struct ovl_fs_context *fsctx;
	struct ovl_config *config;
	struct fs_context *fc;
	struct ovl_fs *ofs;
	unsigned int i;
	int err;

	ovl_params_kunit_set_defs(c->defs ?: &ovl_params_kunit_base);
	fc = ovl_params_kunit_fc(test);
	ofs = fc->s_fs_info;
	fsctx = fc->fs_private;
	config = &ofs->config;

	err = ovl_params_kunit_parse_opts(test, fc, c->opts);
	KUNIT_ASSERT_EQ_MSG(test, err, c->parse_err, "parsing \"%s\"",
			    c->opts);
	if (err)
		return;

	if (c->nocap)
		err = ovl_params_kunit_verify_nocap(fc);
	else
		err = ovl_fs_params_verify(fsctx, config);
	KUNIT_ASSERT_EQ_MSG(test, err, c->err, "verifying \"%s\"", c->opts);
	if (err)
		return;

	KUNIT_EXPECT_EQ_MSG(test, config->redirect_mode, want->redirect_mode,
			    "redirect_mode");
	KUNIT_EXPECT_EQ_MSG(test, config->index, want->index, "index");
	KUNIT_EXPECT_EQ_MSG(test, config->uuid, want->uuid, "uuid");
	KUNIT_EXPECT_EQ_MSG(test, config->nfs_export, want->nfs_export,
			    "nfs_export");
	KUNIT_EXPECT_EQ_MSG(test, config->xino, want->xino, "xino");
	KUNIT_EXPECT_EQ_MSG(test, config->metacopy, want->metacopy,
			    "metacopy");
	KUNIT_EXPECT_EQ_MSG(test, config->verity_mode, want->verity_mode,
			    "verity");
	KUNIT_EXPECT_EQ_MSG(test, config->userxattr, want->userxattr,
			    "userxattr");
	KUNIT_EXPECT_EQ_MSG(test, config->fsync_mode, want->fsync_mode,
			    "fsync");
	KUNIT_EXPECT_EQ_MSG(test, config->default_permissions,
			    want->default_permissions, "default_permissions");
	ovl_params_kunit_expect_str(test, "upperdir", config->upperdir,
				    want->upperdir);
	ovl_params_kunit_expect_str(test, "workdir", config->workdir,
				    want->workdir);
	/* The upper and work paths are held as long as the strings */
	KUNIT_EXPECT_EQ_MSG(test, !!fsctx->upper.dentry, !!want->upperdir,
			    "upper path");
	ovl_params_kunit_expect_str(test, "lowerdir", fsctx->lowerdir_all,
				    want->lowerdir);
	KUNIT_ASSERT_EQ_MSG(test, fsctx->nr, (size_t)want->nr, "layers");
	KUNIT_EXPECT_EQ_MSG(test, fsctx->nr_data, (size_t)want->nr_data,
			    "data layers");
	for (i = 0; i < want->nr && i < ARRAY_SIZE(want->lower); i++) {
		ovl_params_kunit_expect_str(test, "lower layer",
					    fsctx->lower[i].name,
					    want->lower[i]);
		KUNIT_EXPECT_NOT_NULL_MSG(test, fsctx->lower[i].path.dentry,
					  "lower layer %u path", i);
	}
}

/* ovl_init_fs_context() starts from the module parameters */
static void ovl_params_kunit_defaults(struct kunit *test)
{
	static const struct ovl_params_kunit_defs all_on = {
		.redirect_dir = true,
		.redirect_always_follow = true,
		.index = true,
		.nfs_export = true,
		.xino_auto = true,
		.metacopy = true,
	};
	struct ovl_config *config;
	struct fs_context *fc;

	ovl_params_kunit_set_defs(&all_on);
	fc = fs_context_for_mount(&ovl_fs_type, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fc);
	config = &((struct ovl_fs *)fc->s_fs_info)->config;
	KUNIT_EXPECT_EQ(test, config->redirect_mode, OVL_REDIRECT_ON);
	KUNIT_EXPECT_TRUE(test, config->index);
	KUNIT_EXPECT_EQ(test, config->uuid, OVL_UUID_AUTO);
	KUNIT_EXPECT_TRUE(test, config->nfs_export);
	KUNIT_EXPECT_EQ(test, config->xino, OVL_XINO_AUTO);
	KUNIT_EXPECT_TRUE(test, config->metacopy);
	KUNIT_EXPECT_EQ(test, config->verity_mode, OVL_VERITY_OFF);
	KUNIT_EXPECT_EQ(test, config->fsync_mode, OVL_FSYNC_AUTO);
	put_fs_context(fc);

	ovl_params_kunit_set_defs(&ovl_params_kunit_nofollow);
	fc = fs_context_for_mount(&ovl_fs_type, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fc);
	config = &((struct ovl_fs *)fc->s_fs_info)->config;
	KUNIT_EXPECT_EQ(test, config->redirect_mode, OVL_REDIRECT_NOFOLLOW);
	KUNIT_EXPECT_FALSE(test, config->index);
	KUNIT_EXPECT_EQ(test, config->uuid, OVL_UUID_AUTO);
	KUNIT_EXPECT_FALSE(test, config->nfs_export);
	KUNIT_EXPECT_EQ(test, config->xino, OVL_XINO_OFF);
	KUNIT_EXPECT_FALSE(test, config->metacopy);
	put_fs_context(fc);

	ovl_params_kunit_set_defs(&ovl_params_kunit_base);
	fc = fs_context_for_mount(&ovl_fs_type, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fc);
	config = &((struct ovl_fs *)fc->s_fs_info)->config;
	KUNIT_EXPECT_EQ(test, config->redirect_mode, OVL_REDIRECT_FOLLOW);
	put_fs_context(fc);
}

/*
 * n lower layers, all OVLK_LOWER: in one lowerdir= option, or in n
 * lowerdir+= options.
 */
static int ovl_params_kunit_many(struct kunit *test, bool add, int n)
{
	struct fs_context *fc = ovl_params_kunit_fc(test);
	const char *first = add ? "lowerdir+=" : "lowerdir=";
	const char *sep = add ? ",lowerdir+=" : ":";
	size_t len = strlen(first) + strlen(sep) * (n - 1) +
		     strlen(OVLK_LOWER) * n + 1;
	char *opts, *p;
	int i;

	opts = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, opts);
	p = opts;
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? sep : first, OVLK_LOWER);
	return ovl_params_kunit_parse_opts(test, fc, opts);
}

/* At most OVL_MAX_STACK (500) lower layers in lowerdir= */
static void ovl_params_kunit_lowerdir_max(struct kunit *test)
{
	struct ovl_params_kunit_ctx *ctx = test->priv;
	struct ovl_fs_context *fsctx;

	KUNIT_ASSERT_EQ(test, ovl_params_kunit_many(test, false, 500), 0);
	fsctx = ctx->fc->fs_private;
	KUNIT_EXPECT_EQ(test, fsctx->nr, (size_t)500);
	put_fs_context(ctx->fc);
	ctx->fc = NULL;

	KUNIT_EXPECT_EQ(test, ovl_params_kunit_many(test, false, 501), -EINVAL);
}

/* ... and as many lowerdir+= options */
static void ovl_params_kunit_lowerdir_add_max(struct kunit *test)
{
	struct ovl_params_kunit_ctx *ctx = test->priv;
	struct ovl_fs_context *fsctx;

	KUNIT_ASSERT_EQ(test, ovl_params_kunit_many(test, true, 500), 0);
	fsctx = ctx->fc->fs_private;
	KUNIT_EXPECT_EQ(test, fsctx->nr, (size_t)500);
	put_fs_context(ctx->fc);
	ctx->fc = NULL;

	KUNIT_EXPECT_EQ(test, ovl_params_kunit_many(test, true, 501), -EINVAL);
}

/*
 * Options on a remount: mount(2) has always ignored them, even malformed
 * ones; the new mount API refuses them all.  The context is one for a
 * mount marked as a reconfiguration, as fs_context_for_reconfigure() makes
 * it, which would need a mounted overlay.
 */
static void ovl_params_kunit_reconfigure(struct kunit *test)
{
	struct fs_context *fc = ovl_params_kunit_fc(test);

	fc->purpose = FS_CONTEXT_FOR_RECONFIGURE;
	fc->oldapi = true;
	KUNIT_EXPECT_EQ(test, ovl_params_kunit_parse_opts(test, fc,
							  "index=on,foo"), 0);
	KUNIT_EXPECT_FALSE(test,
			   ((struct ovl_fs *)fc->s_fs_info)->config.index);

	fc->oldapi = false;
	KUNIT_EXPECT_EQ(test, vfs_parse_fs_string(fc, "index", "on", 2),
			-EINVAL);
	KUNIT_EXPECT_FALSE(test,
			   ((struct ovl_fs *)fc->s_fs_info)->config.index);
	/* Back to a mount context for put_fs_context() */
	fc->purpose = FS_CONTEXT_FOR_MOUNT;
}

static struct kunit_case ovl_params_kunit_test_cases[] = {
	KUNIT_CASE(ovl_params_kunit_defaults),
	KUNIT_CASE_PARAM(ovl_params_kunit_parse, ovl_params_kunit_gen_params),
	KUNIT_CASE(ovl_params_kunit_lowerdir_max),
	KUNIT_CASE(ovl_params_kunit_lowerdir_add_max),
	KUNIT_CASE(ovl_params_kunit_reconfigure),
	{}
};

static struct kunit_suite ovl_params_kunit_suite = {
	.name = "overlayfs_params",
	.suite_init = ovl_params_kunit_suite_init,
	.suite_exit = ovl_params_kunit_suite_exit,
	.init = ovl_params_kunit_init,
	.exit = ovl_params_kunit_exit,
	.test_cases = ovl_params_kunit_test_cases,
};

kunit_test_suite(ovl_params_kunit_suite);
