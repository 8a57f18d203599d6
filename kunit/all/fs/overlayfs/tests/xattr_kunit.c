// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the overlayfs private xattr names: ovl_xattr_table[],
 * ovl_xattr() and ovl_is_private_xattr(), in the "trusted.overlay." and
 * (with the userxattr mount option) "user.overlay." namespaces, and of the
 * escaped names ("trusted.overlay.overlay.*", "user.overlay.overlay.*")
 * that are the xattrs of a nested overlay, not private to this one.
 */

#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/xattr.h>
#include "../overlayfs.h"

/*
 * Every value of enum ovl_xattr and the names it must have, as literals:
 * [false] without and [true] with the userxattr mount option.
 */
struct ovl_xattr_kunit_name {
	enum ovl_xattr ox;
	const char *postfix;
	const char *name[2];
};

static const struct ovl_xattr_kunit_name ovl_xattr_kunit_names[] = {
	{ OVL_XATTR_OPAQUE, "opaque",
	  { "trusted.overlay.opaque", "user.overlay.opaque" } },
	{ OVL_XATTR_REDIRECT, "redirect",
	  { "trusted.overlay.redirect", "user.overlay.redirect" } },
	{ OVL_XATTR_ORIGIN, "origin",
	  { "trusted.overlay.origin", "user.overlay.origin" } },
	{ OVL_XATTR_IMPURE, "impure",
	  { "trusted.overlay.impure", "user.overlay.impure" } },
	{ OVL_XATTR_NLINK, "nlink",
	  { "trusted.overlay.nlink", "user.overlay.nlink" } },
	{ OVL_XATTR_UPPER, "upper",
	  { "trusted.overlay.upper", "user.overlay.upper" } },
	{ OVL_XATTR_UUID, "uuid",
	  { "trusted.overlay.uuid", "user.overlay.uuid" } },
	{ OVL_XATTR_METACOPY, "metacopy",
	  { "trusted.overlay.metacopy", "user.overlay.metacopy" } },
	{ OVL_XATTR_PROTATTR, "protattr",
	  { "trusted.overlay.protattr", "user.overlay.protattr" } },
	{ OVL_XATTR_XWHITEOUT, "whiteout",
	  { "trusted.overlay.whiteout", "user.overlay.whiteout" } },
};

static void ovl_xattr_kunit_name_desc(const struct ovl_xattr_kunit_name *n,
				      char *desc)
{
	strscpy(desc, n->postfix, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ovl_xattr_kunit_names, ovl_xattr_kunit_names,
		  ovl_xattr_kunit_name_desc);

/* A fake overlay super block: only ->s_fs_info is looked at. */
struct ovl_xattr_kunit_ctx {
	struct ovl_fs *ofs;
	struct super_block *sb;
};

static int ovl_xattr_kunit_init(struct kunit *test)
{
	struct ovl_xattr_kunit_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	ctx->ofs = kunit_kzalloc(test, sizeof(*ctx->ofs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->ofs);
	ctx->sb = kunit_kzalloc(test, sizeof(*ctx->sb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->sb);
	ctx->sb->s_type = &ovl_fs_type;
	ctx->sb->s_fs_info = ctx->ofs;
	test->priv = ctx;
	return 0;
}

/*
 * ovl_xattr_table[] has the 10 rows listed above, one per enum ovl_xattr
 * value, and each of its rows is the row of the list with the same enum
 * value, name for name.  (6.1 had 8: "uuid" and "whiteout" came in 6.6 and
 * 6.7.)
 */
static void ovl_xattr_kunit_table_size(struct kunit *test)
{
	const struct ovl_xattr_kunit_name *n;
	unsigned int i, j, found;
	int ns;

	KUNIT_EXPECT_EQ(test, ovl_xattr_table_size, 10);

	for (i = 0; i < ovl_xattr_table_size; i++) {
		found = 0;
		for (j = 0; j < ARRAY_SIZE(ovl_xattr_kunit_names); j++) {
			n = &ovl_xattr_kunit_names[j];
			if (n->ox != i)
				continue;
			found++;
			for (ns = 0; ns < 2; ns++) {
				KUNIT_ASSERT_NOT_NULL_MSG(test, ovl_xattr_table[i][ns],
							  "row %u, userxattr=%d",
							  i, ns);
				KUNIT_EXPECT_STREQ_MSG(test, ovl_xattr_table[i][ns],
						       n->name[ns],
						       "row %u, userxattr=%d",
						       i, ns);
			}
		}
		KUNIT_EXPECT_EQ_MSG(test, found, 1U, "row %u", i);
	}
}

/* Both names of each enum ovl_xattr value are the listed ones. */
static void ovl_xattr_kunit_table_names(struct kunit *test)
{
	const struct ovl_xattr_kunit_name *n = test->param_value;

	KUNIT_ASSERT_LT(test, (size_t)n->ox, ovl_xattr_table_size);

	KUNIT_ASSERT_NOT_NULL(test, ovl_xattr_table[n->ox][false]);
	KUNIT_EXPECT_STREQ(test, ovl_xattr_table[n->ox][false], n->name[false]);

	KUNIT_ASSERT_NOT_NULL(test, ovl_xattr_table[n->ox][true]);
	KUNIT_EXPECT_STREQ(test, ovl_xattr_table[n->ox][true], n->name[true]);
}

/* No two rows share a name, in either namespace. */
static void ovl_xattr_kunit_table_unique(struct kunit *test)
{
	unsigned int i, j;
	int ns;

	for (ns = 0; ns < 2; ns++) {
		for (i = 0; i < ovl_xattr_table_size; i++) {
			KUNIT_ASSERT_NOT_NULL(test, ovl_xattr_table[i][ns]);
			for (j = i + 1; j < ovl_xattr_table_size; j++) {
				KUNIT_ASSERT_NOT_NULL(test, ovl_xattr_table[j][ns]);
				KUNIT_EXPECT_STRNEQ_MSG(test, ovl_xattr_table[i][ns],
							ovl_xattr_table[j][ns],
							"rows %u and %u", i, j);
			}
		}
	}
}

/* ovl_xattr() picks the namespace from config.userxattr. */
static void ovl_xattr_kunit_follows_userxattr(struct kunit *test)
{
	const struct ovl_xattr_kunit_name *n = test->param_value;
	struct ovl_xattr_kunit_ctx *ctx = test->priv;
	const char *name;

	KUNIT_ASSERT_LT(test, (size_t)n->ox, ovl_xattr_table_size);

	ctx->ofs->config.userxattr = false;
	name = ovl_xattr(ctx->ofs, n->ox);
	KUNIT_ASSERT_NOT_NULL(test, name);
	KUNIT_EXPECT_STREQ(test, name, n->name[false]);
	KUNIT_EXPECT_TRUE(test, ovl_is_private_xattr(ctx->sb, name));

	ctx->ofs->config.userxattr = true;
	name = ovl_xattr(ctx->ofs, n->ox);
	KUNIT_ASSERT_NOT_NULL(test, name);
	KUNIT_EXPECT_STREQ(test, name, n->name[true]);
	KUNIT_EXPECT_TRUE(test, ovl_is_private_xattr(ctx->sb, name));

	/* A name of one namespace is not private in the other one. */
	ctx->ofs->config.userxattr = false;
	KUNIT_EXPECT_FALSE(test, ovl_is_private_xattr(ctx->sb, name));
	ctx->ofs->config.userxattr = true;
	name = ovl_xattr_table[n->ox][false];
	KUNIT_EXPECT_FALSE(test, ovl_is_private_xattr(ctx->sb, name));
}

struct ovl_xattr_kunit_private {
	const char *desc;
	bool userxattr;
	const char *name;
	bool private;
};

static const struct ovl_xattr_kunit_private ovl_xattr_kunit_privates[] = {
	/* trusted.overlay.* (default) */
	{ "trusted_origin",		false, "trusted.overlay.origin",	true },
	{ "trusted_unknown_postfix",	false, "trusted.overlay.foo",		true },
	{ "trusted_bare_prefix",	false, "trusted.overlay.",		true },
	{ "trusted_no_dot",		false, "trusted.overlay",		false },
	{ "trusted_overlayx",		false, "trusted.overlayx.origin",	false },
	{ "trusted_other",		false, "trusted.foo",			false },
	{ "trusted_mode_user_name",	false, "user.overlay.origin",		false },
	{ "trusted_mode_security",	false, "security.overlay.origin",	false },
	{ "trusted_upper_case",		false, "TRUSTED.overlay.origin",	false },
	{ "trusted_leading_space",	false, " trusted.overlay.origin",	false },
	{ "trusted_empty",		false, "",				false },
	/* escaped: a nested overlay's xattr, stored one level down */
	{ "trusted_escaped",		false, "trusted.overlay.overlay.origin",	false },
	{ "trusted_escaped_bare",	false, "trusted.overlay.overlay.",	false },
	{ "trusted_escaped_twice",	false, "trusted.overlay.overlay.overlay.x", false },
	{ "trusted_escape_no_dot",	false, "trusted.overlay.overlay",	true },
	{ "trusted_escape_overlayx",	false, "trusted.overlay.overlayx.origin", true },
	{ "trusted_mode_user_escaped",	false, "user.overlay.overlay.origin",	false },
	/* user.overlay.* (userxattr) */
	{ "user_origin",		true,  "user.overlay.origin",		true },
	{ "user_unknown_postfix",	true,  "user.overlay.foo",		true },
	{ "user_bare_prefix",		true,  "user.overlay.",			true },
	{ "user_no_dot",		true,  "user.overlay",			false },
	{ "user_overlayx",		true,  "user.overlayx.origin",		false },
	{ "user_other",			true,  "user.foo",			false },
	{ "user_mode_trusted_name",	true,  "trusted.overlay.origin",	false },
	{ "user_mode_security",		true,  "security.overlay.origin",	false },
	{ "user_upper_case",		true,  "USER.overlay.origin",		false },
	{ "user_leading_space",		true,  " user.overlay.origin",		false },
	{ "user_empty",			true,  "",				false },
	{ "user_escaped",		true,  "user.overlay.overlay.origin",	false },
	{ "user_escaped_bare",		true,  "user.overlay.overlay.",		false },
	{ "user_escaped_twice",		true,  "user.overlay.overlay.overlay.x", false },
	{ "user_escape_no_dot",		true,  "user.overlay.overlay",		true },
	{ "user_escape_overlayx",	true,  "user.overlay.overlayx.origin",	true },
	{ "user_mode_trusted_escaped",	true,  "trusted.overlay.overlay.origin", false },
};

static void ovl_xattr_kunit_private_desc(const struct ovl_xattr_kunit_private *p,
					 char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ovl_xattr_kunit_privates, ovl_xattr_kunit_privates,
		  ovl_xattr_kunit_private_desc);

/*
 * ovl_is_private_xattr() matches its own namespace's prefix only, and not
 * the escaped names under it (6.7; in 6.1 every name under the prefix was
 * private, as there were no escaped names).
 */
static void ovl_xattr_kunit_is_private(struct kunit *test)
{
	const struct ovl_xattr_kunit_private *p = test->param_value;
	struct ovl_xattr_kunit_ctx *ctx = test->priv;

	ctx->ofs->config.userxattr = p->userxattr;
	KUNIT_EXPECT_EQ_MSG(test, ovl_is_private_xattr(ctx->sb, p->name),
			    p->private, "name \"%s\", userxattr=%d",
			    p->name, p->userxattr);
}

static struct kunit_case ovl_xattr_kunit_cases[] = {
	KUNIT_CASE(ovl_xattr_kunit_table_size),
	KUNIT_CASE_PARAM(ovl_xattr_kunit_table_names,
			 ovl_xattr_kunit_names_gen_params),
	KUNIT_CASE(ovl_xattr_kunit_table_unique),
	KUNIT_CASE_PARAM(ovl_xattr_kunit_follows_userxattr,
			 ovl_xattr_kunit_names_gen_params),
	KUNIT_CASE_PARAM(ovl_xattr_kunit_is_private,
			 ovl_xattr_kunit_privates_gen_params),
	{}
};

static struct kunit_suite ovl_xattr_kunit_suite = {
	.name = "overlayfs_xattr",
	.init = ovl_xattr_kunit_init,
	.test_cases = ovl_xattr_kunit_cases,
};

kunit_test_suite(ovl_xattr_kunit_suite);
