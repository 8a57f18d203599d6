// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the overlayfs file handles stored in the "origin" and
 * "upper" xattrs: what ovl_encode_real_fh() writes (uuid nulled with
 * uuid=off, flags, header, fid) and the uuid rule of ovl_decode_real_fh().
 *
 * No real filesystem is involved: the "real" layer is a fake super block,
 * inode, dentry and vfsmount.  Its export operations encode with the
 * generic generic_encode_ino32_fh() and decode with a fake that records
 * how it was called, or encode with a fake too.
 *
 * The uuid mount option has four values since 6.6 (off, null, auto, on;
 * 6.1: off and on).  Only uuid=off stores a null uuid in the handles and
 * wants a null one back; null, auto and on all store the layer's uuid
 * (they differ in the overlay's own s_uuid, which is not tested here).
 *
 * Both functions are global in the overlay module, so this file is built
 * into it as an object of its own (CONFIG_OVERLAY_FS_KUNIT_TEST).
 */

#include <kunit/test.h>
#include <linux/exportfs.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/uuid.h>
#include <linux/xattr.h>
#include <trace/events/kmem.h>
#include "../overlayfs.h"

#define OVL_FH_KUNIT_INO	0x12345678
#define OVL_FH_KUNIT_GEN	0x9abcdef0
#define OVL_FH_KUNIT_TYPE	0x4d

static const uuid_t ovl_fh_kunit_uuid =
	UUID_INIT(0x0c1d2e3f, 0x4a5b, 0x6c7d, 0x8e, 0x9f, 0xa0, 0xb1,
		  0xc2, 0xd3, 0xe4, 0xf5);
static const uuid_t ovl_fh_kunit_other_uuid =
	UUID_INIT(0x0c1d2e3f, 0x4a5b, 0x6c7d, 0x8e, 0x9f, 0xa0, 0xb1,
		  0xc2, 0xd3, 0xe4, 0xf6);

/* What the real layer's sb says it is (exportfs names it in warnings) */
static struct file_system_type ovl_fh_kunit_fs_type = {
	.name = "ovl_fh_kunit",
};

struct ovl_fh_kunit_ctx {
	struct ovl_fs *ofs;
	/* The real layer: its sb, a file on it and a mount of it */
	struct super_block *sb;
	struct inode *inode;
	struct dentry *dentry;
	struct vfsmount *mnt;
	struct export_operations eops;

	/* Fake ->encode_fh(): what to report, how it was called */
	int enc_type;
	int enc_dwords;
	int enc_calls;
	int enc_max_len;
	void *enc_fh;
	bool enc_fh_freed;
	bool traced;		/* the kfree probe is registered */

	/* Fake ->fh_to_dentry(): what to return, how it was called */
	struct dentry *dec_ret;
	int dec_calls;
	int dec_len;
	int dec_type;
	u32 dec_fid[2];
};

static struct dentry *ovl_fh_kunit_fh_to_dentry(struct super_block *sb,
						struct fid *fid, int fh_len,
						int fh_type);

static int ovl_fh_kunit_init(struct kunit *test)
{
	struct ovl_fh_kunit_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	ctx->ofs = kunit_kzalloc(test, sizeof(*ctx->ofs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->ofs);
	ctx->sb = kunit_kzalloc(test, sizeof(*ctx->sb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->sb);
	ctx->inode = kunit_kzalloc(test, sizeof(*ctx->inode), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->inode);
	ctx->dentry = kunit_kzalloc(test, sizeof(*ctx->dentry), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->dentry);
	ctx->mnt = kunit_kzalloc(test, sizeof(*ctx->mnt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->mnt);

	ctx->ofs->config.uuid = OVL_UUID_ON;
	ctx->sb->s_type = &ovl_fh_kunit_fs_type;
	ctx->sb->s_uuid = ovl_fh_kunit_uuid;
	ctx->sb->s_fs_info = ctx;
	/*
	 * An exportable layer: in 6.12 a filesystem without ->encode_fh()
	 * is not encodable (6.1 fell back to the generic encoder when
	 * s_export_op was NULL), nor is one without ->fh_to_dentry().
	 */
	ctx->eops.encode_fh = generic_encode_ino32_fh;
	ctx->eops.fh_to_dentry = ovl_fh_kunit_fh_to_dentry;
	ctx->dec_ret = ERR_PTR(-ENOMEM);
	ctx->sb->s_export_op = &ctx->eops;
	ctx->inode->i_sb = ctx->sb;
	ctx->inode->i_mode = S_IFREG | 0644;
	ctx->inode->i_ino = OVL_FH_KUNIT_INO;
	ctx->inode->i_generation = OVL_FH_KUNIT_GEN;
	ctx->inode->i_private = ctx;
	ctx->dentry->d_inode = ctx->inode;
	ctx->dentry->d_sb = ctx->sb;
	ctx->mnt->mnt_sb = ctx->sb;
	ctx->mnt->mnt_root = ctx->dentry;

	test->priv = ctx;
	return 0;
}

static void ovl_fh_kunit_kfree_res(struct kunit_resource *res)
{
	kfree(res->data);
}

/* Hand a file handle returned by ovl_encode_real_fh() over to the test. */
static struct ovl_fh *ovl_fh_kunit_own(struct kunit *test, struct ovl_fh *fh)
{
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fh);
	if (!kunit_alloc_resource(test, NULL, ovl_fh_kunit_kfree_res,
				  GFP_KERNEL, fh)) {
		kfree(fh);
		KUNIT_FAIL_AND_ABORT(test, "out of memory");
	}
	return fh;
}

/* Fake ->encode_fh(): fills the fid with a pattern and reports enc_type. */
static int ovl_fh_kunit_encode_fh(struct inode *inode, __u32 *fh, int *max_len,
				  struct inode *parent)
{
	struct ovl_fh_kunit_ctx *ctx = inode->i_private;
	int i;

	ctx->enc_calls++;
	ctx->enc_max_len = *max_len;
	/* fh is the fid of the ovl_fh that ovl_encode_real_fh() allocated */
	WRITE_ONCE(ctx->enc_fh, (void *)fh - OVL_FH_FID_OFFSET);
	for (i = 0; i < min(ctx->enc_dwords, *max_len); i++)
		fh[i] = 0xa5000000 | i;
	*max_len = ctx->enc_dwords;
	return ctx->enc_type;
}

/* Fake ->fh_to_dentry(): records its arguments, returns dec_ret. */
static struct dentry *ovl_fh_kunit_fh_to_dentry(struct super_block *sb,
						struct fid *fid, int fh_len,
						int fh_type)
{
	struct ovl_fh_kunit_ctx *ctx = sb->s_fs_info;

	ctx->dec_calls++;
	ctx->dec_len = fh_len;
	ctx->dec_type = fh_type;
	if (fh_len >= 2) {
		ctx->dec_fid[0] = fid->raw[0];
		ctx->dec_fid[1] = fid->raw[1];
	}
	return ctx->dec_ret;
}

/* Header fields every encoded handle has, whatever the fid. */
static void ovl_fh_kunit_check_header(struct kunit *test, struct ovl_fh *fh,
				      int type, int fid_bytes, bool is_upper)
{
	KUNIT_EXPECT_EQ(test, fh->padding[0], 0);
	KUNIT_EXPECT_EQ(test, fh->padding[1], 0);
	KUNIT_EXPECT_EQ(test, fh->padding[2], 0);
	KUNIT_EXPECT_EQ(test, fh->fb.version, OVL_FH_VERSION);
	KUNIT_EXPECT_EQ(test, fh->fb.magic, OVL_FH_MAGIC);
	KUNIT_EXPECT_EQ(test, fh->fb.type, type);
	KUNIT_EXPECT_EQ(test, (int)fh->fb.len,
			(int)sizeof(struct ovl_fb) + fid_bytes);
	KUNIT_EXPECT_EQ(test, fh->fb.flags,
			OVL_FH_FLAG_CPU_ENDIAN |
			(is_upper ? OVL_FH_FLAG_PATH_UPPER : 0));
	/* What ovl_get_fh() and ovl_fh_to_dentry() check before decoding */
	KUNIT_EXPECT_EQ(test, ovl_check_fb_len(&fh->fb, fh->fb.len), 0);
	KUNIT_EXPECT_EQ(test, ovl_check_fh_len(fh, OVL_FH_LEN(fh)), 0);
}

struct ovl_fh_kunit_enc_case {
	const char *desc;
	int uuid_opt;		/* ofs->config.uuid */
	bool sb_has_uuid;	/* real sb has a non-null s_uuid */
	bool is_upper;
	bool stores_uuid;	/* the handle has the sb's uuid, else null */
};

static const struct ovl_fh_kunit_enc_case ovl_fh_kunit_enc_cases[] = {
	{ "uuid_on_lower",	  OVL_UUID_ON,   true,  false, true },
	{ "uuid_on_upper",	  OVL_UUID_ON,   true,  true,  true },
	{ "uuid_on_null_sb_uuid", OVL_UUID_ON,   false, false, true },
	{ "uuid_auto_lower",	  OVL_UUID_AUTO, true,  false, true },
	{ "uuid_auto_upper",	  OVL_UUID_AUTO, true,  true,  true },
	{ "uuid_null_lower",	  OVL_UUID_NULL, true,  false, true },
	{ "uuid_null_upper",	  OVL_UUID_NULL, true,  true,  true },
	{ "uuid_off_lower",	  OVL_UUID_OFF,  true,  false, false },
	{ "uuid_off_upper",	  OVL_UUID_OFF,  true,  true,  false },
	{ "uuid_off_null_sb_uuid", OVL_UUID_OFF, false, true,  false },
};

static void ovl_fh_kunit_enc_desc(const struct ovl_fh_kunit_enc_case *c,
				  char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ovl_fh_kunit_enc, ovl_fh_kunit_enc_cases,
		  ovl_fh_kunit_enc_desc);

/*
 * Generic encoder: the uuid is the real sb's unless uuid=off, null with
 * uuid=off; the fid is generic_encode_ino32_fh()'s {ino, generation}.
 */
static void ovl_fh_kunit_encode_generic(struct kunit *test)
{
	const struct ovl_fh_kunit_enc_case *c = test->param_value;
	struct ovl_fh_kunit_ctx *ctx = test->priv;
	struct ovl_fh *fh;

	ctx->ofs->config.uuid = c->uuid_opt;
	if (!c->sb_has_uuid)
		uuid_copy(&ctx->sb->s_uuid, &uuid_null);

	fh = ovl_fh_kunit_own(test, ovl_encode_real_fh(ctx->ofs, ctx->inode,
						       c->is_upper));

	ovl_fh_kunit_check_header(test, fh, FILEID_INO32_GEN, 8, c->is_upper);
	if (c->stores_uuid)
		KUNIT_EXPECT_TRUE(test, uuid_equal(&fh->fb.uuid,
						   &ctx->sb->s_uuid));
	else
		KUNIT_EXPECT_TRUE(test, uuid_is_null(&fh->fb.uuid));
	KUNIT_EXPECT_EQ(test, fh->fb.fid[0], (u32)OVL_FH_KUNIT_INO);
	KUNIT_EXPECT_EQ(test, fh->fb.fid[1], (u32)OVL_FH_KUNIT_GEN);
	/* The real sb is left alone */
	if (c->sb_has_uuid)
		KUNIT_EXPECT_TRUE(test, uuid_equal(&ctx->sb->s_uuid,
						   &ovl_fh_kunit_uuid));
}

/* The fid length, type and bytes are the filesystem encoder's. */
static void ovl_fh_kunit_encode_fs_fid(struct kunit *test)
{
	static const int dwords[] = { 1, 2, 5, MAX_HANDLE_SZ / 4 };
	struct ovl_fh_kunit_ctx *ctx = test->priv;
	struct ovl_fh *fh;
	int i, j;

	ctx->eops.encode_fh = ovl_fh_kunit_encode_fh;
	ctx->enc_type = OVL_FH_KUNIT_TYPE;

	for (i = 0; i < ARRAY_SIZE(dwords); i++) {
		ctx->enc_calls = 0;
		ctx->enc_dwords = dwords[i];
		fh = ovl_fh_kunit_own(test, ovl_encode_real_fh(ctx->ofs,
							       ctx->inode,
							       i & 1));
		KUNIT_EXPECT_EQ(test, ctx->enc_calls, 1);
		/* The whole fid area is offered to the encoder */
		KUNIT_EXPECT_EQ(test, ctx->enc_max_len, MAX_HANDLE_SZ / 4);
		ovl_fh_kunit_check_header(test, fh, OVL_FH_KUNIT_TYPE,
					  dwords[i] * 4, i & 1);
		KUNIT_EXPECT_TRUE(test, uuid_equal(&fh->fb.uuid,
						   &ovl_fh_kunit_uuid));
		for (j = 0; j < dwords[i]; j++)
			KUNIT_EXPECT_EQ_MSG(test, fh->fb.fid[j], 0xa5000000 | j,
					    "fid dword %d of %d", j, dwords[i]);
	}
}

struct ovl_fh_kunit_err_case {
	const char *desc;
	int type;
	int dwords;
	/* The layer has no export operations at all */
	bool no_export_op;
	/* The layer's export operations cannot decode */
	bool no_fh_to_dentry;
	/* ->encode_fh() calls expected */
	int calls;
};

/*
 * Not covered: an encoder that reports a fid longer than the MAX_HANDLE_SZ
 * bytes it was offered (a filesystem bug) also makes the encoding fail with
 * -EIO, but through WARN_ON(buflen > MAX_HANDLE_SZ).  No test may trigger a
 * WARN by design (it taints the kernel, and panics it under panic_on_warn),
 * so that branch is left untested here; no other test of the gate reaches
 * it either (no real filesystem returns such a fid).  The -EIO and the
 * freeing of the buffer on that path are the ones of the cases below.
 */
static const struct ovl_fh_kunit_err_case ovl_fh_kunit_err_cases[] = {
	{ "fileid_invalid",	FILEID_INVALID,	2, false, false, 1 },
	{ "negative_type",	-EOVERFLOW,	2, false, false, 1 },
	/* No generic fallback encoder (6.1 encoded {ino, gen}) */
	{ "no_export_op",	OVL_FH_KUNIT_TYPE, 2, true, false, 0 },
	/* A layer that cannot decode is not encoded for either (6.1 was) */
	{ "no_fh_to_dentry",	OVL_FH_KUNIT_TYPE, 2, false, true, 0 },
};

static void ovl_fh_kunit_err_setup(struct ovl_fh_kunit_ctx *ctx,
				   const struct ovl_fh_kunit_err_case *c)
{
	ctx->eops.encode_fh = ovl_fh_kunit_encode_fh;
	if (c->no_fh_to_dentry)
		ctx->eops.fh_to_dentry = NULL;
	ctx->sb->s_export_op = c->no_export_op ? NULL : &ctx->eops;
	ctx->enc_type = c->type;
	ctx->enc_dwords = c->dwords;
	ctx->enc_calls = 0;
}

static void ovl_fh_kunit_err_desc(const struct ovl_fh_kunit_err_case *c,
				  char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ovl_fh_kunit_err, ovl_fh_kunit_err_cases,
		  ovl_fh_kunit_err_desc);

/*
 * A result the encoder marks as invalid, or a layer that cannot encode and
 * decode file handles, makes the encoding fail -EIO.
 */
static void ovl_fh_kunit_encode_error(struct kunit *test)
{
	const struct ovl_fh_kunit_err_case *c = test->param_value;
	struct ovl_fh_kunit_ctx *ctx = test->priv;
	struct ovl_fh *fh;

	ovl_fh_kunit_err_setup(ctx, c);

	fh = ovl_encode_real_fh(ctx->ofs, ctx->inode, false);
	if (!IS_ERR_OR_NULL(fh))
		ovl_fh_kunit_own(test, fh);
	KUNIT_EXPECT_EQ(test, ctx->enc_calls, c->calls);
	KUNIT_EXPECT_TRUE(test, IS_ERR(fh));
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(fh), -EIO);
}

static void ovl_fh_kunit_kfree_probe(void *data, unsigned long call_site,
				     const void *ptr)
{
	struct ovl_fh_kunit_ctx *ctx = data;

	if (ptr && ptr == READ_ONCE(ctx->enc_fh))
		WRITE_ONCE(ctx->enc_fh_freed, true);
}

/*
 * The kfree probe on and off.  A case that turns it on also makes KUnit
 * turn it off when the case ends, so that no probe is left behind if an
 * assertion ends the case early.
 */
static void ovl_fh_kunit_untrace(void *data)
{
	struct ovl_fh_kunit_ctx *ctx = data;

	if (!ctx->traced)
		return;
	unregister_trace_kfree(ovl_fh_kunit_kfree_probe, ctx);
	tracepoint_synchronize_unregister();
	ctx->traced = false;
}

static void ovl_fh_kunit_trace(struct kunit *test, struct ovl_fh_kunit_ctx *ctx)
{
	KUNIT_ASSERT_EQ(test, register_trace_kfree(ovl_fh_kunit_kfree_probe, ctx), 0);
	ctx->traced = true;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ovl_fh_kunit_untrace, ctx), 0);
}

/*
 * The buffer of a failed encoding is freed.  Watched through the kfree
 * tracepoint, so this needs CONFIG_TRACEPOINTS; no test assertion may abort
 * the test while the probe is registered.  Not a parameterized case, so that
 * KUnit reports it as skipped when it cannot run.  Only the cases that reach
 * the encoder are watched: the fake encoder is what tells the buffer.
 */
static void ovl_fh_kunit_encode_error_frees(struct kunit *test)
{
	struct ovl_fh_kunit_ctx *ctx = test->priv;
	const struct ovl_fh_kunit_err_case *c;
	struct ovl_fh *fh;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "needs CONFIG_TRACEPOINTS (kfree tracepoint)");

	for (c = ovl_fh_kunit_err_cases;
	     c < ovl_fh_kunit_err_cases + ARRAY_SIZE(ovl_fh_kunit_err_cases);
	     c++) {
		if (!c->calls)
			continue;
		ovl_fh_kunit_err_setup(ctx, c);
		WRITE_ONCE(ctx->enc_fh, NULL);
		WRITE_ONCE(ctx->enc_fh_freed, false);

		ovl_fh_kunit_trace(test, ctx);
		fh = ovl_encode_real_fh(ctx->ofs, ctx->inode, false);
		kunit_release_action(test, ovl_fh_kunit_untrace, ctx);

		if (!IS_ERR_OR_NULL(fh))
			ovl_fh_kunit_own(test, fh);
		KUNIT_ASSERT_TRUE_MSG(test, IS_ERR(fh), "%s", c->desc);
		KUNIT_ASSERT_EQ_MSG(test, ctx->enc_calls, 1, "%s", c->desc);
		KUNIT_EXPECT_NOT_NULL_MSG(test, ctx->enc_fh, "%s", c->desc);
		KUNIT_EXPECT_TRUE_MSG(test, ctx->enc_fh_freed,
				      "%s: buffer of a failed encoding leaked",
				      c->desc);
	}
}

/* Control for the above: a successful encoding's buffer is not freed. */
static void ovl_fh_kunit_encode_success_keeps(struct kunit *test)
{
	struct ovl_fh_kunit_ctx *ctx = test->priv;
	struct ovl_fh *fh;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "needs CONFIG_TRACEPOINTS (kfree tracepoint)");

	ctx->eops.encode_fh = ovl_fh_kunit_encode_fh;
	ctx->enc_type = OVL_FH_KUNIT_TYPE;
	ctx->enc_dwords = 2;

	ovl_fh_kunit_trace(test, ctx);
	fh = ovl_encode_real_fh(ctx->ofs, ctx->inode, false);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(ctx->enc_fh_freed));
	/* ... and the probe does see it go when it is freed */
	if (!IS_ERR_OR_NULL(fh))
		kfree(fh);
	kunit_release_action(test, ovl_fh_kunit_untrace, ctx);

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(fh));
	KUNIT_EXPECT_PTR_EQ(test, (void *)fh, ctx->enc_fh);
	KUNIT_EXPECT_TRUE(test, ctx->enc_fh_freed);
}

/* A handle as it was stored on disk: fid {ino, gen}, the given uuid. */
static struct ovl_fh *ovl_fh_kunit_stored(struct kunit *test,
					  const uuid_t *uuid, bool is_upper)
{
	struct ovl_fh *fh;

	fh = kunit_kzalloc(test, OVL_FH_FID_OFFSET + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fh);
	fh->fb.version = OVL_FH_VERSION;
	fh->fb.magic = OVL_FH_MAGIC;
	fh->fb.type = FILEID_INO32_GEN;
	fh->fb.flags = OVL_FH_FLAG_CPU_ENDIAN;
	if (is_upper)
		fh->fb.flags |= OVL_FH_FLAG_PATH_UPPER;
	fh->fb.len = sizeof(fh->fb) + 8;
	uuid_copy(&fh->fb.uuid, uuid);
	fh->fb.fid[0] = OVL_FH_KUNIT_INO;
	fh->fb.fid[1] = OVL_FH_KUNIT_GEN;
	KUNIT_ASSERT_EQ(test, ovl_check_fh_len(fh, OVL_FH_LEN(fh)), 0);
	return fh;
}

/* Make the layer decodable by a fake ->fh_to_dentry() returning @ret. */
static void ovl_fh_kunit_decodable(struct ovl_fh_kunit_ctx *ctx,
				   struct dentry *ret)
{
	ctx->eops.fh_to_dentry = ovl_fh_kunit_fh_to_dentry;
	ctx->sb->s_export_op = &ctx->eops;
	ctx->dec_ret = ret;
}

enum ovl_fh_kunit_stored_uuid {
	OVL_FH_KUNIT_NULL,
	OVL_FH_KUNIT_EQUAL,
	OVL_FH_KUNIT_DIFFERENT,
};

struct ovl_fh_kunit_dec_case {
	const char *desc;
	int uuid_opt;
	enum ovl_fh_kunit_stored_uuid stored;
	bool decoded;	/* passed on to the layer's fh_to_dentry() */
};

static const struct ovl_fh_kunit_dec_case ovl_fh_kunit_dec_cases[] = {
	{ "uuid_on_null",	 OVL_UUID_ON,	OVL_FH_KUNIT_NULL,	false },
	{ "uuid_on_equal",	 OVL_UUID_ON,	OVL_FH_KUNIT_EQUAL,	true },
	{ "uuid_on_different",	 OVL_UUID_ON,	OVL_FH_KUNIT_DIFFERENT,	false },
	{ "uuid_auto_null",	 OVL_UUID_AUTO,	OVL_FH_KUNIT_NULL,	false },
	{ "uuid_auto_equal",	 OVL_UUID_AUTO,	OVL_FH_KUNIT_EQUAL,	true },
	{ "uuid_auto_different", OVL_UUID_AUTO,	OVL_FH_KUNIT_DIFFERENT,	false },
	{ "uuid_null_null",	 OVL_UUID_NULL,	OVL_FH_KUNIT_NULL,	false },
	{ "uuid_null_equal",	 OVL_UUID_NULL,	OVL_FH_KUNIT_EQUAL,	true },
	{ "uuid_null_different", OVL_UUID_NULL,	OVL_FH_KUNIT_DIFFERENT,	false },
	{ "uuid_off_null",	 OVL_UUID_OFF,	OVL_FH_KUNIT_NULL,	true },
	{ "uuid_off_equal",	 OVL_UUID_OFF,	OVL_FH_KUNIT_EQUAL,	false },
	{ "uuid_off_different",	 OVL_UUID_OFF,	OVL_FH_KUNIT_DIFFERENT,	false },
};

static void ovl_fh_kunit_dec_desc(const struct ovl_fh_kunit_dec_case *c,
				  char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ovl_fh_kunit_dec, ovl_fh_kunit_dec_cases,
		  ovl_fh_kunit_dec_desc);

/*
 * With uuid=on, auto or null the stored uuid must be the layer's, with
 * uuid=off it must be null; otherwise the handle is not even passed to the layer.  The fake
 * ->fh_to_dentry() fails with -ENOMEM, which ovl_decode_real_fh() passes
 * through, so that "decoded" (-ENOMEM) and "rejected" (NULL) differ.
 */
static void ovl_fh_kunit_decode_uuid(struct kunit *test)
{
	const struct ovl_fh_kunit_dec_case *c = test->param_value;
	struct ovl_fh_kunit_ctx *ctx = test->priv;
	const uuid_t *stored[] = {
		[OVL_FH_KUNIT_NULL] = &uuid_null,
		[OVL_FH_KUNIT_EQUAL] = &ovl_fh_kunit_uuid,
		[OVL_FH_KUNIT_DIFFERENT] = &ovl_fh_kunit_other_uuid,
	};
	struct ovl_fh *fh;
	struct dentry *real;

	fh = ovl_fh_kunit_stored(test, stored[c->stored], false);
	ovl_fh_kunit_decodable(ctx, ERR_PTR(-ENOMEM));
	ctx->ofs->config.uuid = c->uuid_opt;

	real = ovl_decode_real_fh(ctx->ofs, fh, ctx->mnt, false);
	if (c->decoded) {
		KUNIT_EXPECT_EQ(test, ctx->dec_calls, 1);
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(real), -ENOMEM);
		KUNIT_EXPECT_EQ(test, ctx->dec_len, 2);
		KUNIT_EXPECT_EQ(test, ctx->dec_type, FILEID_INO32_GEN);
		KUNIT_EXPECT_EQ(test, ctx->dec_fid[0], (u32)OVL_FH_KUNIT_INO);
		KUNIT_EXPECT_EQ(test, ctx->dec_fid[1], (u32)OVL_FH_KUNIT_GEN);
	} else {
		KUNIT_EXPECT_EQ(test, ctx->dec_calls, 0);
		KUNIT_EXPECT_NULL(test, real);
	}
}

/*
 * What ovl_encode_real_fh() writes, ovl_decode_real_fh() accepts on the
 * same layer with the same uuid option, and rejects on a layer with another
 * uuid unless uuid=off.
 */
static void ovl_fh_kunit_roundtrip(struct kunit *test)
{
	struct ovl_fh_kunit_ctx *ctx = test->priv;
	struct ovl_fh *fh;
	struct dentry *real;
	int uuid_opt;

	for (uuid_opt = OVL_UUID_OFF; uuid_opt <= OVL_UUID_ON; uuid_opt++) {
		ctx->ofs->config.uuid = uuid_opt;
		ctx->eops.encode_fh = generic_encode_ino32_fh;
		uuid_copy(&ctx->sb->s_uuid, &ovl_fh_kunit_uuid);
		fh = ovl_fh_kunit_own(test, ovl_encode_real_fh(ctx->ofs,
							       ctx->inode,
							       false));

		ovl_fh_kunit_decodable(ctx, ERR_PTR(-ENOMEM));
		ctx->dec_calls = 0;
		real = ovl_decode_real_fh(ctx->ofs, fh, ctx->mnt, false);
		KUNIT_EXPECT_EQ_MSG(test, ctx->dec_calls, 1, "uuid=%d", uuid_opt);
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(real), -ENOMEM);
		KUNIT_EXPECT_EQ(test, ctx->dec_fid[0], (u32)OVL_FH_KUNIT_INO);
		KUNIT_EXPECT_EQ(test, ctx->dec_fid[1], (u32)OVL_FH_KUNIT_GEN);

		/* The same layer fs, now with another uuid */
		uuid_copy(&ctx->sb->s_uuid, &ovl_fh_kunit_other_uuid);
		ctx->dec_calls = 0;
		real = ovl_decode_real_fh(ctx->ofs, fh, ctx->mnt, false);
		if (uuid_opt != OVL_UUID_OFF) {
			KUNIT_EXPECT_EQ(test, ctx->dec_calls, 0);
			KUNIT_EXPECT_NULL(test, real);
		} else {
			KUNIT_EXPECT_EQ(test, ctx->dec_calls, 1);
			KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(real), -ENOMEM);
		}
	}
}

/*
 * A stale handle means "origin unknown" (NULL) for a lower file handle,
 * but is an error for an upper one (a stale index entry).
 */
static void ovl_fh_kunit_decode_stale(struct kunit *test)
{
	struct ovl_fh_kunit_ctx *ctx = test->priv;
	struct dentry *real;

	ovl_fh_kunit_decodable(ctx, ERR_PTR(-ESTALE));

	real = ovl_decode_real_fh(ctx->ofs,
				  ovl_fh_kunit_stored(test, &ovl_fh_kunit_uuid,
						      false),
				  ctx->mnt, false);
	KUNIT_EXPECT_EQ(test, ctx->dec_calls, 1);
	KUNIT_EXPECT_NULL(test, real);

	real = ovl_decode_real_fh(ctx->ofs,
				  ovl_fh_kunit_stored(test, &ovl_fh_kunit_uuid,
						      true),
				  ctx->mnt, false);
	KUNIT_EXPECT_EQ(test, ctx->dec_calls, 2);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(real), -ESTALE);
}

static struct kunit_case ovl_fh_kunit_cases[] = {
	KUNIT_CASE_PARAM(ovl_fh_kunit_encode_generic,
			 ovl_fh_kunit_enc_gen_params),
	KUNIT_CASE(ovl_fh_kunit_encode_fs_fid),
	KUNIT_CASE_PARAM(ovl_fh_kunit_encode_error,
			 ovl_fh_kunit_err_gen_params),
	KUNIT_CASE(ovl_fh_kunit_encode_error_frees),
	KUNIT_CASE(ovl_fh_kunit_encode_success_keeps),
	KUNIT_CASE_PARAM(ovl_fh_kunit_decode_uuid,
			 ovl_fh_kunit_dec_gen_params),
	KUNIT_CASE(ovl_fh_kunit_roundtrip),
	KUNIT_CASE(ovl_fh_kunit_decode_stale),
	{}
};

static struct kunit_suite ovl_fh_kunit_suite = {
	.name = "overlayfs_fh",
	.init = ovl_fh_kunit_init,
	.test_cases = ovl_fh_kunit_cases,
};

kunit_test_suite(ovl_fh_kunit_suite);
