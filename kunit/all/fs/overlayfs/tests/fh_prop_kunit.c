// SPDX-License-Identifier: GPL-2.0-only
/*
 * Property tests of the checks overlayfs applies to a file handle it did
 * not make itself (an "origin" or "upper" xattr on a layer, an index
 * entry name, an NFS file handle): ovl_check_fh_len() and the uuid rule
 * of ovl_decode_real_fh().
 *
 * Each case is a buffer of exactly the length the check is told, so that
 * KASAN reports any read past it: either a valid handle with up to three
 * mutations (its len, version, magic, flags, type or uuid bytes, the
 * buffer cut short or padded), or random bytes.  The check must refuse
 *
 *   - a buffer shorter than struct ovl_fh                       -EINVAL
 *   - a handle whose len says more than the buffer holds        -EINVAL
 *   - a handle whose len is shorter than its own header         -EINVAL
 *   - a wrong magic                                             -EINVAL
 *   - a newer version or an unknown flag ("origin unknown")     -ENODATA
 *   - the other byte order, unless flagged any-endian           -ENODATA
 *
 * and accept anything else.  A handle it accepts is passed to the layer's
 * ->fh_to_dentry() only if its uuid is the layer's (uuid=null, auto or
 * on) or null (uuid=off), with the handle's type and a fid length, in
 * 32-bit words, that fits in the handle's len; the fake ->fh_to_dentry()
 * reads every word it is given.
 *
 * A handle the check accepts although these rules refuse it is still
 * passed on to the decoder, as the kernel would pass it, so that a KASAN
 * kernel reports the read past its buffer where it happens; the run goes
 * on after such a case, reports the first one and counts them all.
 *
 * Case i of a run uses seed + i; a failure prints that seed, and booting
 * with overlay.fh_prop_seed=<seed> overlay.fh_prop_iters=1 replays it.
 */

#include <kunit/test.h>
#include <linux/exportfs.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/prandom.h>
#include <linux/uuid.h>
#include <linux/xattr.h>
#include "../overlayfs.h"

static unsigned long long ovl_fh_prop_seed = 1;
module_param_named(fh_prop_seed, ovl_fh_prop_seed, ullong, 0444);
MODULE_PARM_DESC(fh_prop_seed, "KUnit overlayfs_fh_prop: seed of the first case");

static unsigned int ovl_fh_prop_iters = 20000;
module_param_named(fh_prop_iters, ovl_fh_prop_iters, uint, 0444);
MODULE_PARM_DESC(fh_prop_iters, "KUnit overlayfs_fh_prop: number of cases");

/* Largest buffer tried: a u8 len can claim at most 255 bytes of ovl_fb */
#define OVL_FH_PROP_MAX		(OVL_FH_WIRE_OFFSET + 255 + 16)

static const uuid_t ovl_fh_prop_uuid =
	UUID_INIT(0x51e2d3c4, 0xb5a6, 0x9788, 0x79, 0x6a, 0x5b, 0x4c,
		  0x3d, 0x2e, 0x1f, 0x00);

/*
 * The uuid= values, each drawn as often, and the uuid a handle needs to
 * be decoded: the layer's, or null with uuid=off (null and auto differ
 * from on in the overlay's own s_uuid, not in the handles)
 */
static const struct {
	int opt;
	const char *name;
	bool layer_uuid;
} ovl_fh_prop_uuid_opts[] = {
	{ OVL_UUID_OFF,  "off",  false },
	{ OVL_UUID_NULL, "null", true },
	{ OVL_UUID_AUTO, "auto", true },
	{ OVL_UUID_ON,   "on",   true },
};

struct ovl_fh_prop_ctx {
	struct ovl_fs ofs;
	struct super_block sb;
	struct dentry root;
	struct vfsmount mnt;
	struct export_operations eops;
	struct rnd_state rnd;
	/* What the fake ->fh_to_dentry() was given */
	int dec_calls;
	int dec_len;
	int dec_type;
	u32 dec_sum;
};

static struct dentry *ovl_fh_prop_fh_to_dentry(struct super_block *sb,
					       struct fid *fid, int fh_len,
					       int fh_type)
{
	struct ovl_fh_prop_ctx *ctx = sb->s_fs_info;
	int i;

	ctx->dec_calls++;
	ctx->dec_len = fh_len;
	ctx->dec_type = fh_type;
	/* Every word it was told about: KASAN sees a read past the handle */
	for (i = 0; i < fh_len; i++)
		ctx->dec_sum += READ_ONCE(fid->raw[i]);
	return ERR_PTR(-ENOMEM);
}

static u32 ovl_fh_prop_rand(struct ovl_fh_prop_ctx *ctx, u32 n)
{
	return prandom_u32_state(&ctx->rnd) % n;
}

/* Case @seed into @buf; returns its length. */
static size_t ovl_fh_prop_generate(struct ovl_fh_prop_ctx *ctx, u8 *buf,
				   u64 seed)
{
	struct ovl_fh *fh = (struct ovl_fh *)buf;
	size_t len;
	int i, n, m;

	prandom_seed_state(&ctx->rnd, seed);
	prandom_bytes_state(&ctx->rnd, buf, OVL_FH_PROP_MAX);
	if (!ovl_fh_prop_rand(ctx, 8))
		return ovl_fh_prop_rand(ctx, OVL_FH_PROP_MAX + 1);

	/* A valid handle of n fid words */
	n = ovl_fh_prop_rand(ctx, 9);
	fh->fb.version = OVL_FH_VERSION;
	fh->fb.magic = OVL_FH_MAGIC;
	fh->fb.len = sizeof(struct ovl_fb) + 4 * n;
	fh->fb.flags = OVL_FH_FLAG_CPU_ENDIAN;
	if (ovl_fh_prop_rand(ctx, 2))
		fh->fb.flags |= OVL_FH_FLAG_PATH_UPPER;
	if (!ovl_fh_prop_rand(ctx, 4))
		fh->fb.flags |= OVL_FH_FLAG_ANY_ENDIAN;
	switch (ovl_fh_prop_rand(ctx, 3)) {
	case 0:
		uuid_copy(&fh->fb.uuid, &uuid_null);
		break;
	case 1:
		uuid_copy(&fh->fb.uuid, &ovl_fh_prop_uuid);
		break;
	}
	len = OVL_FH_LEN(fh);

	/* Up to three mutations */
	m = ovl_fh_prop_rand(ctx, 4);
	for (i = 0; i < m; i++) {
		switch (ovl_fh_prop_rand(ctx, 9)) {
		case 0:
			fh->fb.len = ovl_fh_prop_rand(ctx, 256);
			break;
		case 1:
			fh->fb.len = sizeof(struct ovl_fb) +
				     ovl_fh_prop_rand(ctx, 8) - 4;
			break;
		case 2:
			fh->fb.version = ovl_fh_prop_rand(ctx, 256);
			break;
		case 3:
			fh->fb.magic = ovl_fh_prop_rand(ctx, 256);
			break;
		case 4:
			fh->fb.flags = ovl_fh_prop_rand(ctx, 256);
			break;
		case 5:
			fh->fb.flags ^= OVL_FH_FLAG_BIG_ENDIAN;
			break;
		case 6:
			fh->fb.uuid.b[ovl_fh_prop_rand(ctx, 16)] ^=
				1 << ovl_fh_prop_rand(ctx, 8);
			break;
		case 7:
			len = ovl_fh_prop_rand(ctx, len + 1);
			break;
		default:
			len += ovl_fh_prop_rand(ctx, 16);
		}
	}
	return min_t(size_t, len, OVL_FH_PROP_MAX);
}

/* The errno the rules above give a @len byte buffer @fh; 0 to accept */
static int ovl_fh_prop_expected(const struct ovl_fh *fh, size_t len)
{
	const struct ovl_fb *fb = &fh->fb;
	u8 endian = fb->flags & OVL_FH_FLAG_BIG_ENDIAN;

	if (len < sizeof(struct ovl_fh) ||
	    fb->len > len - OVL_FH_WIRE_OFFSET ||
	    fb->len < sizeof(struct ovl_fb) || fb->magic != OVL_FH_MAGIC)
		return -EINVAL;
	if (fb->version > OVL_FH_VERSION || fb->flags & ~OVL_FH_FLAG_ALL ||
	    (!(fb->flags & OVL_FH_FLAG_ANY_ENDIAN) &&
	     endian != OVL_FH_FLAG_CPU_ENDIAN))
		return -ENODATA;
	return 0;
}

/* One row per condition, from a valid 32-byte handle with a 2-word fid */
struct ovl_fh_prop_case {
	const char *desc;
	int len;	/* the buffer's length; 0: 32 */
	int fb_len;	/* fb.len; 0: 29 (21-byte header + 8) */
	int version, magic, flags;	/* -1: valid value */
	int err;
};

#define OVL_FH_PROP_OTHER_ENDIAN	(OVL_FH_FLAG_CPU_ENDIAN ^ \
					 OVL_FH_FLAG_BIG_ENDIAN)

static const struct ovl_fh_prop_case ovl_fh_prop_cases_refuse[] = {
	{ "valid",		0,  0,  -1, -1,   -1, 0 },
	{ "valid_upper",	0,  0,  -1, -1,
	  OVL_FH_FLAG_CPU_ENDIAN | OVL_FH_FLAG_PATH_UPPER, 0 },
	{ "any_endian",		0,  0,  -1, -1,
	  OVL_FH_FLAG_ANY_ENDIAN | OVL_FH_PROP_OTHER_ENDIAN, 0 },
	{ "header_only",	24, 21, -1, -1,   -1, 0 },
	{ "buffer_short",	23, 20, -1, -1,   -1, -EINVAL },
	{ "len_past_buffer",	0,  30, -1, -1,   -1, -EINVAL },
	{ "len_below_header",	0,  20, -1, -1,   -1, -EINVAL },
	{ "len_zero",		0,  -2, -1, -1,   -1, -EINVAL },
	{ "bad_magic",		0,  0,  -1, 0xfa, -1, -EINVAL },
	{ "newer_version",	0,  0,  1,  -1,   -1, -ENODATA },
	{ "unknown_flag",	0,  0,  -1, -1,
	  OVL_FH_FLAG_CPU_ENDIAN | (1 << 3), -ENODATA },
	{ "other_byte_order",	0,  0,  -1, -1,   OVL_FH_PROP_OTHER_ENDIAN,
	  -ENODATA },
};

static void ovl_fh_prop_case_desc(const struct ovl_fh_prop_case *c,
				  char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ovl_fh_prop_refuse, ovl_fh_prop_cases_refuse,
		  ovl_fh_prop_case_desc);

/* ovl_check_fh_len(), one condition at a time */
static void ovl_fh_prop_refuse(struct kunit *test)
{
	const struct ovl_fh_prop_case *c = test->param_value;
	size_t len = c->len ?: 32;
	struct ovl_fh *fh;

	/* Exactly len bytes: KASAN reports a read past them */
	fh = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fh);
	if (len >= sizeof(struct ovl_fh)) {
		fh->fb.version = c->version >= 0 ? c->version : OVL_FH_VERSION;
		fh->fb.magic = c->magic >= 0 ? c->magic : OVL_FH_MAGIC;
		fh->fb.flags = c->flags >= 0 ? c->flags :
			       OVL_FH_FLAG_CPU_ENDIAN;
		fh->fb.len = c->fb_len == -2 ? 0 : (c->fb_len ?: 29);
		fh->fb.type = FILEID_INO32_GEN;
	}
	KUNIT_EXPECT_EQ(test, ovl_check_fh_len(fh, len), c->err);
}

static void ovl_fh_prop_check(struct kunit *test)
{
	struct ovl_fh_prop_ctx *ctx;
	unsigned int i, accepted = 0, decoded = 0, wrong = 0;
	struct dentry *real;
	u8 *buf, *fhbuf;
	u64 seed, t0, ms;
	int err, want;
	unsigned int uuid_idx;
	bool match;
	size_t len;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	buf = kunit_kzalloc(test, OVL_FH_PROP_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);

	ctx->sb.s_fs_info = ctx;
	ctx->sb.s_uuid = ovl_fh_prop_uuid;
	ctx->eops.fh_to_dentry = ovl_fh_prop_fh_to_dentry;
	ctx->sb.s_export_op = &ctx->eops;
	ctx->root.d_sb = &ctx->sb;
	ctx->mnt.mnt_sb = &ctx->sb;
	ctx->mnt.mnt_root = &ctx->root;

	kunit_info(test, "seed %llu, %u cases\n", ovl_fh_prop_seed,
		   ovl_fh_prop_iters);
	t0 = ktime_get_ns();
	for (i = 0; i < ovl_fh_prop_iters; i++) {
		seed = ovl_fh_prop_seed + i;
		len = ovl_fh_prop_generate(ctx, buf, seed);
		uuid_idx = ovl_fh_prop_rand(ctx,
					    ARRAY_SIZE(ovl_fh_prop_uuid_opts));

		/* Exactly len bytes (at least one, for kmemdup) */
		fhbuf = kmemdup(buf, len ?: 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fhbuf);
		err = ovl_check_fh_len((struct ovl_fh *)fhbuf, len);
		want = ovl_fh_prop_expected((struct ovl_fh *)buf, len);
		if (err != want && !wrong++)
			KUNIT_FAIL(test,
				   "case seed %llu (replay: overlay.fh_prop_seed=%llu overlay.fh_prop_iters=1): ovl_check_fh_len() %d, expected %d, for %zu bytes %*ph",
				   seed, seed, err, want, len,
				   (int)min_t(size_t, len, 64), buf);
		if (err) {
			kfree(fhbuf);
			continue;
		}

		accepted++;
		ctx->ofs.config.uuid = ovl_fh_prop_uuid_opts[uuid_idx].opt;
		ctx->dec_calls = 0;
		real = ovl_decode_real_fh(&ctx->ofs, (struct ovl_fh *)fhbuf,
					  &ctx->mnt, false);
		match = ovl_fh_prop_uuid_opts[uuid_idx].layer_uuid ?
				  uuid_equal(&((struct ovl_fh *)buf)->fb.uuid,
					     &ovl_fh_prop_uuid) :
				  uuid_is_null(&((struct ovl_fh *)buf)->fb.uuid);
		kfree(fhbuf);
		/* Refused by the rules: decoding it was for KASAN's sake */
		if (want)
			continue;
		if (ctx->dec_calls != match ||
		    (!match && real) ||
		    (match && PTR_ERR_OR_ZERO(real) != -ENOMEM) ||
		    (match && (ctx->dec_len < 0 ||
			       sizeof(struct ovl_fb) + 4 * ctx->dec_len >
			       buf[OVL_FH_WIRE_OFFSET + 2] ||
			       ctx->dec_type !=
			       buf[OVL_FH_WIRE_OFFSET + 4]))) {
			KUNIT_FAIL(test,
				   "case seed %llu (replay: overlay.fh_prop_seed=%llu overlay.fh_prop_iters=1): uuid=%s, uuid %s: decoder called %d times, len %d, type %d, result %d, for %zu bytes %*ph",
				   seed, seed, ovl_fh_prop_uuid_opts[uuid_idx].name,
				   match ? "usable" : "not usable",
				   ctx->dec_calls, ctx->dec_len, ctx->dec_type,
				   PTR_ERR_OR_ZERO(real), len,
				   (int)min_t(size_t, len, 64), buf);
			break;
		}
		decoded += match;
	}
	ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
	kunit_info(test, "%u cases (%u accepted, %u decoded, %u wrong verdicts) in %llu ms: %llu/s\n",
		   i, accepted, decoded, wrong, ms,
		   div64_u64((u64)i * MSEC_PER_SEC, ms ?: 1));
}

static struct kunit_case ovl_fh_prop_cases[] = {
	KUNIT_CASE_PARAM(ovl_fh_prop_refuse, ovl_fh_prop_refuse_gen_params),
	KUNIT_CASE(ovl_fh_prop_check),
	{}
};

static struct kunit_suite ovl_fh_prop_suite = {
	.name = "overlayfs_fh_prop",
	.test_cases = ovl_fh_prop_cases,
};

kunit_test_suite(ovl_fh_prop_suite);
