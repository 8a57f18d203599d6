// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the overlayfs mount option parser: ovl_parse_opt() and the
 * way it resolves conflicting options (userxattr vs redirect_dir/metacopy,
 * nfs_export vs index/metacopy, metacopy vs redirect_dir, options that mean
 * nothing without an upper layer), uuid=on/off and last-one-wins.
 *
 * This file is #included at the end of super.c (CONFIG_OVERLAY_FS_KUNIT_TEST)
 * to reach the static parser, the defaults of ovl_config_set_defaults() and
 * the module parameters, which each test pins so that the results do not
 * depend on the kernel config or on the parameters the machine was booted
 * with.  The strings the parser duplicates are freed by ovl_free_fs(), as
 * after a failed mount.
 */

#include <kunit/test.h>

/* The module parameters that feed the defaults */
struct ovl_params_kunit_defs {
	bool redirect_dir;
	bool redirect_always_follow;
	bool index;
	bool nfs_export;
	bool xino_auto;
	bool metacopy;
};

static void ovl_params_kunit_get_defs(struct ovl_params_kunit_defs *defs)
{
	defs->redirect_dir = ovl_redirect_dir_def;
	defs->redirect_always_follow = ovl_redirect_always_follow;
	defs->index = ovl_index_def;
	defs->nfs_export = ovl_nfs_export_def;
	defs->xino_auto = ovl_xino_auto_def;
	defs->metacopy = ovl_metacopy_def;
}

static void ovl_params_kunit_set_defs(const struct ovl_params_kunit_defs *defs)
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
	struct ovl_fs *ofs;
};

static int ovl_params_kunit_init(struct kunit *test)
{
	struct ovl_params_kunit_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	ovl_params_kunit_get_defs(&ctx->saved);
	test->priv = ctx;

	ovl_params_kunit_set_defs(&ovl_params_kunit_base);
	/* Freed by ovl_free_fs() in .exit, as ovl_fill_super() does */
	ctx->ofs = kzalloc(sizeof(*ctx->ofs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->ofs);
	return 0;
}

static void ovl_params_kunit_exit(struct kunit *test)
{
	struct ovl_params_kunit_ctx *ctx = test->priv;

	if (!ctx)
		return;
	if (ctx->ofs)
		ovl_free_fs(ctx->ofs);
	ovl_params_kunit_set_defs(&ctx->saved);
}

#define DIRS		"lowerdir=/lower,upperdir=/upper,workdir=/work"
#define WANT_DIRS	.lowerdir = "/lower", .upperdir = "/upper", \
			.workdir = "/work"

struct ovl_params_kunit_case {
	const char *desc;
	/* Module parameter defaults; NULL: ovl_params_kunit_base */
	const struct ovl_params_kunit_defs *defs;
	const char *opts;
	int err;
	/* The resulting config when err is 0; redirect_mode if not NULL */
	struct ovl_config want;
};

static const struct ovl_params_kunit_case ovl_params_kunit_cases[] = {
	/* Defaults */
	{ "defaults", NULL, DIRS, 0,
	  { WANT_DIRS, .redirect_follow = true, .redirect_mode = "off",
	    .uuid = true } },
	{ "defaults_nofollow", &ovl_params_kunit_nofollow, DIRS, 0,
	  { WANT_DIRS, .redirect_mode = "off", .uuid = true } },
	{ "defaults_redirect_dir", &ovl_params_kunit_redirect, DIRS, 0,
	  { WANT_DIRS, .redirect_dir = true, .redirect_follow = true,
	    .redirect_mode = "on", .uuid = true } },
	{ "defaults_metacopy_enables_redirect", &ovl_params_kunit_metacopy,
	  DIRS, 0,
	  { WANT_DIRS, .redirect_dir = true, .redirect_follow = true,
	    .metacopy = true, .uuid = true } },
	{ "defaults_index", &ovl_params_kunit_index, DIRS, 0,
	  { WANT_DIRS, .redirect_follow = true, .index = true,
	    .uuid = true } },
	{ "defaults_index_no_upper", &ovl_params_kunit_index,
	  "lowerdir=/lower", 0,
	  { .lowerdir = "/lower", .redirect_dir = true,
	    .redirect_follow = true, .uuid = true } },
	{ "defaults_xino_auto", &ovl_params_kunit_xino_auto, DIRS, 0,
	  { WANT_DIRS, .redirect_follow = true, .xino = OVL_XINO_AUTO,
	    .uuid = true } },
	{ "default_permissions", NULL, DIRS ",default_permissions", 0,
	  { WANT_DIRS, .default_permissions = true, .redirect_follow = true,
	    .uuid = true } },

	/* userxattr: no redirect, no metacopy */
	{ "userxattr_disables_follow", NULL, DIRS ",userxattr", 0,
	  { WANT_DIRS, .userxattr = true, .redirect_mode = "off",
	    .uuid = true } },
	{ "userxattr_disables_defaults", &ovl_params_kunit_redirect_metacopy,
	  DIRS ",userxattr", 0,
	  { WANT_DIRS, .userxattr = true, .redirect_mode = "on",
	    .uuid = true } },
	{ "userxattr_redirect_dir_on", NULL, DIRS ",userxattr,redirect_dir=on",
	  -EINVAL },
	{ "redirect_dir_on_userxattr", NULL, DIRS ",redirect_dir=on,userxattr",
	  -EINVAL },
	{ "userxattr_redirect_dir_follow", NULL,
	  DIRS ",userxattr,redirect_dir=follow", -EINVAL },
	/* redirect_dir=off still follows with redirect_always_follow */
	{ "userxattr_redirect_dir_off_always_follow", NULL,
	  DIRS ",userxattr,redirect_dir=off", -EINVAL },
	{ "userxattr_redirect_dir_off", &ovl_params_kunit_nofollow,
	  DIRS ",userxattr,redirect_dir=off", 0,
	  { WANT_DIRS, .userxattr = true, .redirect_mode = "off",
	    .uuid = true } },
	{ "userxattr_redirect_dir_nofollow", NULL,
	  DIRS ",userxattr,redirect_dir=nofollow", 0,
	  { WANT_DIRS, .userxattr = true, .redirect_mode = "nofollow",
	    .uuid = true } },
	{ "userxattr_metacopy_on", NULL, DIRS ",userxattr,metacopy=on",
	  -EINVAL },
	{ "metacopy_on_userxattr", NULL, DIRS ",metacopy=on,userxattr",
	  -EINVAL },
	{ "userxattr_metacopy_off", &ovl_params_kunit_metacopy,
	  DIRS ",userxattr,metacopy=off", 0,
	  { WANT_DIRS, .userxattr = true, .uuid = true } },

	/* metacopy needs redirect_dir */
	{ "metacopy_on_enables_redirect", NULL, DIRS ",metacopy=on", 0,
	  { WANT_DIRS, .redirect_dir = true, .redirect_follow = true,
	    .metacopy = true, .uuid = true } },
	{ "metacopy_on_redirect_dir_off", NULL,
	  DIRS ",metacopy=on,redirect_dir=off", -EINVAL },
	{ "metacopy_on_redirect_dir_follow", NULL,
	  DIRS ",redirect_dir=follow,metacopy=on", -EINVAL },
	{ "metacopy_on_redirect_dir_on", NULL,
	  DIRS ",metacopy=on,redirect_dir=on", 0,
	  { WANT_DIRS, .redirect_dir = true, .redirect_follow = true,
	    .metacopy = true, .uuid = true } },
	{ "redirect_dir_off_disables_metacopy", &ovl_params_kunit_metacopy,
	  DIRS ",redirect_dir=off", 0,
	  { WANT_DIRS, .redirect_follow = true, .redirect_mode = "off",
	    .uuid = true } },

	/* nfs_export needs index and excludes metacopy */
	{ "nfs_export_on_enables_index", NULL, DIRS ",nfs_export=on", 0,
	  { WANT_DIRS, .redirect_follow = true, .index = true,
	    .nfs_export = true, .uuid = true } },
	{ "nfs_export_on_index_off", NULL, DIRS ",nfs_export=on,index=off",
	  -EINVAL },
	{ "index_off_nfs_export_on", NULL, DIRS ",index=off,nfs_export=on",
	  -EINVAL },
	{ "index_off_disables_nfs_export", &ovl_params_kunit_nfs_export,
	  DIRS ",index=off", 0,
	  { WANT_DIRS, .redirect_follow = true, .uuid = true } },
	{ "nfs_export_on_metacopy_on", NULL,
	  DIRS ",nfs_export=on,metacopy=on", -EINVAL },
	{ "nfs_export_on_disables_metacopy", &ovl_params_kunit_metacopy,
	  DIRS ",nfs_export=on", 0,
	  { WANT_DIRS, .redirect_dir = true, .redirect_follow = true,
	    .index = true, .nfs_export = true, .uuid = true } },
	{ "metacopy_on_disables_nfs_export", &ovl_params_kunit_nfs_export,
	  DIRS ",metacopy=on", 0,
	  { WANT_DIRS, .redirect_dir = true, .redirect_follow = true,
	    .index = true, .metacopy = true, .uuid = true } },

	/* Without an upper layer */
	{ "no_upper_nfs_export_needs_nofollow", NULL,
	  "lowerdir=/lower,nfs_export=on", 0,
	  { .lowerdir = "/lower", .redirect_dir = true,
	    .redirect_follow = true, .uuid = true } },
	{ "no_upper_nfs_export_nofollow", NULL,
	  "lowerdir=/lower,redirect_dir=nofollow,nfs_export=on", 0,
	  { .lowerdir = "/lower", .index = true, .nfs_export = true,
	    .redirect_mode = "nofollow", .uuid = true } },
	{ "no_upper_drops_workdir_and_index", NULL,
	  "lowerdir=/lower,workdir=/work,index=on", 0,
	  { .lowerdir = "/lower", .redirect_dir = true,
	    .redirect_follow = true, .uuid = true } },
	{ "volatile", NULL, DIRS ",volatile", 0,
	  { WANT_DIRS, .redirect_follow = true, .ovl_volatile = true,
	    .uuid = true } },
	{ "no_upper_drops_volatile", NULL, "lowerdir=/lower,volatile", 0,
	  { .lowerdir = "/lower", .redirect_dir = true,
	    .redirect_follow = true, .uuid = true } },

	/* uuid=on|off and last one wins */
	{ "uuid_off", NULL, DIRS ",uuid=off", 0,
	  { WANT_DIRS, .redirect_follow = true } },
	{ "uuid_on", NULL, DIRS ",uuid=on", 0,
	  { WANT_DIRS, .redirect_follow = true, .uuid = true } },
	{ "uuid_off_then_on", NULL, DIRS ",uuid=off,uuid=on", 0,
	  { WANT_DIRS, .redirect_follow = true, .uuid = true } },
	{ "uuid_on_then_off", NULL, DIRS ",uuid=on,uuid=off", 0,
	  { WANT_DIRS, .redirect_follow = true } },
	{ "index_last_wins", NULL, DIRS ",index=on,index=off", 0,
	  { WANT_DIRS, .redirect_follow = true, .uuid = true } },
	{ "redirect_dir_last_wins", NULL,
	  DIRS ",redirect_dir=on,redirect_dir=nofollow", 0,
	  { WANT_DIRS, .redirect_mode = "nofollow", .uuid = true } },
	{ "xino_last_wins", NULL, DIRS ",xino=on,xino=off,xino=auto", 0,
	  { WANT_DIRS, .redirect_follow = true, .xino = OVL_XINO_AUTO,
	    .uuid = true } },
	{ "xino_off_overrides_default", &ovl_params_kunit_xino_auto,
	  DIRS ",xino=off", 0,
	  { WANT_DIRS, .redirect_follow = true, .xino = OVL_XINO_OFF,
	    .uuid = true } },
	{ "dirs_last_wins", NULL,
	  "lowerdir=/a,upperdir=/b,workdir=/c," DIRS, 0,
	  { WANT_DIRS, .redirect_follow = true, .uuid = true } },

	/* Syntax */
	{ "empty_options_skipped", NULL, ",," DIRS ",,uuid=off,", 0,
	  { WANT_DIRS, .redirect_follow = true } },
	{ "escaped_comma", NULL,
	  "lowerdir=/a\\,b,upperdir=/upper,workdir=/work", 0,
	  { .lowerdir = "/a\\,b", .upperdir = "/upper", .workdir = "/work",
	    .redirect_follow = true, .uuid = true } },
	{ "unknown_option", NULL, DIRS ",foo", -EINVAL },
	{ "unknown_value", NULL, DIRS ",uuid=maybe", -EINVAL },
	{ "trailing_garbage", NULL, DIRS ",uuid=offx", -EINVAL },
	{ "upper_case", NULL, DIRS ",UUID=off", -EINVAL },
	{ "missing_value", NULL, DIRS ",index", -EINVAL },
	{ "empty_value", NULL, "lowerdir=,upperdir=/upper", -EINVAL },
	{ "bad_redirect_dir", NULL, DIRS ",redirect_dir=bogus", -EINVAL },
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

/* ovl_parse_opt() from the defaults a mount starts with */
static void ovl_params_kunit_parse(struct kunit *test)
{
	const struct ovl_params_kunit_case *c = test->param_value;
	struct ovl_params_kunit_ctx *ctx = test->priv;
	struct ovl_config *config = &ctx->ofs->config;
	const struct ovl_config *want = &c->want;
	char *opts;
	int err;

	ovl_params_kunit_set_defs(c->defs ?: &ovl_params_kunit_base);
	ovl_config_set_defaults(config);

	/* The parser writes into the string, as into mount data */
	opts = kunit_kmalloc(test, strlen(c->opts) + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, opts);
	strcpy(opts, c->opts);

	err = ovl_parse_opt(opts, config);
	KUNIT_ASSERT_EQ_MSG(test, err, c->err, "options \"%s\"", c->opts);
	if (err)
		return;

	KUNIT_EXPECT_EQ_MSG(test, config->redirect_dir, want->redirect_dir,
			    "redirect_dir");
	KUNIT_EXPECT_EQ_MSG(test, config->redirect_follow,
			    want->redirect_follow, "redirect_follow");
	KUNIT_EXPECT_EQ_MSG(test, config->metacopy, want->metacopy,
			    "metacopy");
	KUNIT_EXPECT_EQ_MSG(test, config->userxattr, want->userxattr,
			    "userxattr");
	KUNIT_EXPECT_EQ_MSG(test, config->index, want->index, "index");
	KUNIT_EXPECT_EQ_MSG(test, config->nfs_export, want->nfs_export,
			    "nfs_export");
	KUNIT_EXPECT_EQ_MSG(test, config->uuid, want->uuid, "uuid");
	KUNIT_EXPECT_EQ_MSG(test, config->xino, want->xino, "xino");
	KUNIT_EXPECT_EQ_MSG(test, config->ovl_volatile, want->ovl_volatile,
			    "volatile");
	KUNIT_EXPECT_EQ_MSG(test, config->default_permissions,
			    want->default_permissions, "default_permissions");
	ovl_params_kunit_expect_str(test, "lowerdir", config->lowerdir,
				    want->lowerdir);
	ovl_params_kunit_expect_str(test, "upperdir", config->upperdir,
				    want->upperdir);
	ovl_params_kunit_expect_str(test, "workdir", config->workdir,
				    want->workdir);
	if (want->redirect_mode)
		ovl_params_kunit_expect_str(test, "redirect_mode",
					    config->redirect_mode,
					    want->redirect_mode);
}

/* ovl_config_set_defaults() follows the module parameters */
static void ovl_params_kunit_defaults(struct kunit *test)
{
	struct ovl_params_kunit_ctx *ctx = test->priv;
	struct ovl_config *config = &ctx->ofs->config;
	static const struct ovl_params_kunit_defs all_on = {
		.redirect_dir = true,
		.redirect_always_follow = true,
		.index = true,
		.nfs_export = true,
		.xino_auto = true,
		.metacopy = true,
	};

	ovl_params_kunit_set_defs(&all_on);
	ovl_config_set_defaults(config);
	KUNIT_EXPECT_TRUE(test, config->index);
	KUNIT_EXPECT_TRUE(test, config->uuid);
	KUNIT_EXPECT_TRUE(test, config->nfs_export);
	KUNIT_EXPECT_EQ(test, config->xino, OVL_XINO_AUTO);
	KUNIT_EXPECT_TRUE(test, config->metacopy);

	ovl_params_kunit_set_defs(&ovl_params_kunit_nofollow);
	ovl_config_set_defaults(config);
	KUNIT_EXPECT_FALSE(test, config->index);
	KUNIT_EXPECT_TRUE(test, config->uuid);
	KUNIT_EXPECT_FALSE(test, config->nfs_export);
	KUNIT_EXPECT_EQ(test, config->xino, OVL_XINO_OFF);
	KUNIT_EXPECT_FALSE(test, config->metacopy);
}

static struct kunit_case ovl_params_kunit_test_cases[] = {
	KUNIT_CASE(ovl_params_kunit_defaults),
	KUNIT_CASE_PARAM(ovl_params_kunit_parse, ovl_params_kunit_gen_params),
	{}
};

static struct kunit_suite ovl_params_kunit_suite = {
	.name = "overlayfs_params",
	.init = ovl_params_kunit_init,
	.exit = ovl_params_kunit_exit,
	.test_cases = ovl_params_kunit_test_cases,
};

kunit_test_suite(ovl_params_kunit_suite);
