// SPDX-License-Identifier: GPL-2.0-only
/*
 * Property tests of the overlayfs mount option parser as mount(2) drives
 * it: ovl_parse_monolithic(), which hands each option through
 * vfs_parse_fs_string() to ovl_parse_param() (the layers are looked up as
 * they come), then ovl_fs_params_verify(), with or without CAP_SYS_ADMIN.
 * The option strings are generated from the grammar: valid options,
 * repeats, contradictions, bad values and near-miss names, layer paths
 * that are directories, files, missing, over-long, escaped or not UTF-8,
 * lowerdir= lists with data layers and malformed colons, lowerdir+= and
 * datadir+= in and out of order, the VFS's own keys (sb flags, source=);
 * one case in eight is a raw byte string instead.
 *
 * The parser knows the outcome of each option: the test keeps a model of
 * what the parser must do with the string (which option must be refused,
 * how many lower and data layers there are), so a string with a bad
 * option must be refused and one without must be parsed.  The parser
 * returns 0, -EINVAL or the layer lookup's -ENOENT, -ENOTDIR or
 * -ENAMETOOLONG; the verification 0 or -EINVAL, and -EPERM only without
 * CAP_SYS_ADMIN.  A config that is accepted holds the invariants of the
 * overlayfs documentation (userxattr: no redirects, metacopy or verity;
 * metacopy: redirect_dir=on; verity: metacopy; nfs_export: index and no
 * metacopy; data-only layers: metacopy; no upper layer: no workdir, no
 * volatile, no uuid=on, no index unless nfs_export; no trusted xattr
 * feature asked for without CAP_SYS_ADMIN and userxattr).  An option asked
 * for explicitly (the last one of its kind) is honoured or the mount is
 * refused, save the documented fallbacks: without an upper layer index=,
 * workdir= and volatile are dropped, uuid=on becomes null and
 * redirect_dir=follow becomes on; nfs_export=on gives way to verity and,
 * without an upper layer, to redirects that are followed.  A refusal
 * needs a pair of conflicting options (or data-only layers, or a trusted
 * xattr feature without CAP_SYS_ADMIN).
 *
 * The input is generated from a seed: case i of a run uses seed + i, and
 * a failure prints that case's seed, so booting with
 * overlay.params_prop_seed=<seed> overlay.params_prop_iters=1 replays it.
 *
 * The layer directories and the module parameter defaults are set up by
 * the helpers of the overlayfs_params suite (params_kunit.h).
 */

#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/fs_context.h>
#include <linux/fs_struct.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/xattr.h>
#include "../overlayfs.h"
#include "../params.h"
#include "params_kunit.h"

static unsigned long long ovl_params_prop_seed = 1;
module_param_named(params_prop_seed, ovl_params_prop_seed, ullong, 0444);
MODULE_PARM_DESC(params_prop_seed,
		 "KUnit overlayfs_params_prop: seed of the first case");

static unsigned int ovl_params_prop_iters = 2000;
module_param_named(params_prop_iters, ovl_params_prop_iters, uint, 0444);
MODULE_PARM_DESC(params_prop_iters,
		 "KUnit overlayfs_params_prop: number of generated cases");

/* Longest value generated: past PATH_MAX */
#define OVL_PROP_LONG		(PATH_MAX + 300)
#define OVL_PROP_MAXOPTS	12
/* Each option at most five paths (lowerdir=) */
#define OVL_PROP_BUFSZ		(OVL_PROP_MAXOPTS * 5 * (OVL_PROP_LONG + 32))

/* What the generated string asked for, and what the parser must make of it */
struct ovl_prop_want {
	bool bad;			/* an option the parser must refuse */
	/* The last value of each option; -1: not given */
	int redirect, index, nfs_export, metacopy, uuid, xino, verity, fsync;
	bool userxattr, default_permissions;
	int sources;
	/* Offsets into the pristine copy of the string; -1: not given */
	int lowerdir, upperdir, workdir;
	int lowerdir_len, upperdir_len, workdir_len;
	/* The lower layers: a lowerdir= list in force, how many, data ones */
	bool lower_all;
	int nr, nr_data;
};

struct ovl_prop_gen {
	struct rnd_state rnd;
	char *buf;
	size_t len;
	struct ovl_prop_want want;
};

static u32 ovl_prop_rand(struct ovl_prop_gen *g, u32 n)
{
	return prandom_u32_state(&g->rnd) % n;
}

static void ovl_prop_put(struct ovl_prop_gen *g, const char *s)
{
	size_t n = strlen(s);

	if (g->len + n < OVL_PROP_BUFSZ) {
		memcpy(g->buf + g->len, s, n);
		g->len += n;
	}
}

static void ovl_prop_putc(struct ovl_prop_gen *g, char c)
{
	if (g->len + 1 < OVL_PROP_BUFSZ)
		g->buf[g->len++] = c;
}

/*
 * Layer paths, as the option string carries them.  upperdir=, workdir=
 * and the entries of lowerdir= are unescaped before the lookup (and
 * lowerdir= is split on unescaped colons first); lowerdir+= and datadir+=
 * are looked up as they are.  The directories are made by
 * ovl_params_kunit_suite_init().
 */
static const struct {
	const char *path;
	bool esc;	/* a directory once unescaped */
	bool noesc;	/* a directory as it is */
	bool colon;	/* an unescaped ':', which splits lowerdir= */
} ovl_prop_paths[] = {
	{ OVLK_LOWER, true, true, false },
	{ OVLK_LOWER2, true, true, false },
	{ OVLK_DATA, true, true, false },
	{ OVLK_UPPER, true, true, false },
	{ OVLK_WORK, true, true, false },
	{ OVLK_LOWER "/", true, true, false },
	{ "//ovl_kunit//lower2/.", true, true, false },
	{ OVLK_LOWER "/..", true, true, false },
	{ OVLK_D "/a\\,b", true, false, false },
	{ OVLK_D "/c\\:d", true, false, false },
	{ OVLK_D "/lo\\wer", true, false, false },
	{ OVLK_D "/c:d", true, true, true },
	/* Not a directory: -EINVAL */
	{ OVLK_FILE, false, false, false },
	/* -ENOTDIR */
	{ OVLK_FILE "/x", false, false, false },
	/* -ENOENT */
	{ OVLK_MISSING, false, false, false },
	{ OVLK_D "/\xc3\x28", false, false, false },
};

/* The first five are the plain layer directories */
#define OVL_PROP_PLAIN		5

/*
 * A layer path: mostly a plain directory, else one of the table or an
 * over-long one (-ENAMETOOLONG).  Returns whether it is a directory for
 * an option that unescapes (@esc) or not; @lower: never an unescaped ':'.
 */
static bool ovl_prop_path(struct ovl_prop_gen *g, bool esc, bool lower)
{
	u32 i, n;

	switch (ovl_prop_rand(g, 8)) {
	case 0:
		ovl_prop_putc(g, '/');
		n = PATH_MAX - 8 + ovl_prop_rand(g, OVL_PROP_LONG - PATH_MAX);
		while (n--)
			ovl_prop_putc(g, 'x');
		return false;
	case 1:
	case 2:
		do {
			i = ovl_prop_rand(g, ARRAY_SIZE(ovl_prop_paths));
		} while (lower && ovl_prop_paths[i].colon);
		break;
	default:
		i = ovl_prop_rand(g, OVL_PROP_PLAIN);
	}
	ovl_prop_put(g, ovl_prop_paths[i].path);
	return esc ? ovl_prop_paths[i].esc : ovl_prop_paths[i].noesc;
}

/* upperdir=, workdir=: a path, or an empty value (-EINVAL) */
static void ovl_prop_upper(struct ovl_prop_gen *g, const char *name, int *at,
			   int *len)
{
	ovl_prop_put(g, name);
	*at = g->len;
	if (!ovl_prop_rand(g, 16))
		g->want.bad = true;
	else if (!ovl_prop_path(g, true, false))
		g->want.bad = true;
	*len = g->len - *at;
}

/*
 * lowerdir=: empty (drops the lower layers), malformed colons, or up to
 * three layers then up to two data-only layers ("l1:l2::d1::d2")
 */
static void ovl_prop_lowerdir(struct ovl_prop_gen *g)
{
	struct ovl_prop_want *w = &g->want;
	bool ok = true;
	int i, n, d;

	ovl_prop_put(g, "lowerdir=");
	w->lowerdir = g->len;
	switch (ovl_prop_rand(g, 10)) {
	case 0:
		w->lower_all = false;
		w->nr = 0;
		w->nr_data = 0;
		break;
	case 1:
		/* "cannot append lower layer", "trailing colons", ":::" */
		switch (ovl_prop_rand(g, 4)) {
		case 0:
			ovl_prop_putc(g, ':');
			ovl_prop_path(g, true, true);
			break;
		case 1:
			ovl_prop_path(g, true, true);
			ovl_prop_putc(g, ':');
			break;
		case 2:
			ovl_prop_path(g, true, true);
			ovl_prop_put(g, ":::");
			ovl_prop_path(g, true, true);
			break;
		default:
			/* A regular layer after a data-only one */
			ovl_prop_path(g, true, true);
			ovl_prop_put(g, "::");
			ovl_prop_path(g, true, true);
			ovl_prop_putc(g, ':');
			ovl_prop_path(g, true, true);
		}
		w->bad = true;
		break;
	default:
		n = 1 + ovl_prop_rand(g, 3);
		d = ovl_prop_rand(g, 3);
		for (i = 0; i < n + d; i++) {
			if (i)
				ovl_prop_put(g, i < n ? ":" : "::");
			ok &= ovl_prop_path(g, true, true);
		}
		if (!ok)
			w->bad = true;
		w->lower_all = true;
		w->nr = n + d;
		w->nr_data = d;
	}
	w->lowerdir_len = g->len - w->lowerdir;
}

/* lowerdir+= and datadir+=: never after lowerdir=, no regular after data */
static void ovl_prop_lower_add(struct ovl_prop_gen *g, bool data)
{
	struct ovl_prop_want *w = &g->want;

	ovl_prop_put(g, data ? "datadir+=" : "lowerdir+=");
	if (!ovl_prop_rand(g, 16) || !ovl_prop_path(g, false, false) ||
	    w->lower_all || (!data && w->nr_data)) {
		w->bad = true;
		return;
	}
	w->nr++;
	w->nr_data += data;
}

/* Names and values that are not options: near misses of real ones */
static const char * const ovl_prop_bad[] = {
	"index", "index=", "index=On", "index=1", "uuid=yes", "uuid",
	"xino=", "xino=yes", "metacopy", "metacopy=", "Volatile",
	"userxattr=on", "default_permissions=1", "lowerdir", "upperdir",
	"workdir", "redirect_dir", "nfs_export=1", "nfs_export", "noatime",
	"lowerdir+", "datadir+", "verity", "verity=yes", "fsync",
	"fsync=sync", "volatile=on", "lowerdir =/l", " userxattr",
	"userxattr ", "\\,", "index=on\\,uuid=off", "\xff\xfe", "nouserxattr",
	"source", "redirect_dir=", "redirect_dir=On", "redirect_dir=of",
	"redirect_dir=\xc3\xa9", "redirect_dir=follow\\,on",
};

/* What the VFS takes before the filesystem sees it, or skips */
static const char * const ovl_prop_vfs[] = {
	"ro", "rw", "sync", "async", "dirsync", "lazytime", "nolazytime",
	"=", "=index=on", "",
};

static const struct constant_table ovl_prop_modes[] = {
	{ "off", OVL_REDIRECT_OFF },
	{ "follow", OVL_REDIRECT_FOLLOW },
	{ "nofollow", OVL_REDIRECT_NOFOLLOW },
	{ "on", OVL_REDIRECT_ON },
};

static const struct constant_table ovl_prop_uuid[] = {
	{ "off", OVL_UUID_OFF },
	{ "null", OVL_UUID_NULL },
	{ "auto", OVL_UUID_AUTO },
	{ "on", OVL_UUID_ON },
};

static const struct constant_table ovl_prop_xino[] = {
	{ "off", OVL_XINO_OFF },
	{ "auto", OVL_XINO_AUTO },
	{ "on", OVL_XINO_ON },
};

static const struct constant_table ovl_prop_verity[] = {
	{ "off", OVL_VERITY_OFF },
	{ "on", OVL_VERITY_ON },
	{ "require", OVL_VERITY_REQUIRE },
};

static const struct constant_table ovl_prop_fsync[] = {
	{ "volatile", OVL_FSYNC_VOLATILE },
	{ "auto", OVL_FSYNC_AUTO },
	{ "strict", OVL_FSYNC_STRICT },
};

static const struct constant_table ovl_prop_bool[] = {
	{ "off", 0 },
	{ "on", 1 },
};

static void ovl_prop_enum(struct ovl_prop_gen *g, const char *name,
			  const struct constant_table *table, u32 n, int *v)
{
	u32 i = ovl_prop_rand(g, n);

	ovl_prop_put(g, name);
	ovl_prop_putc(g, '=');
	ovl_prop_put(g, table[i].name);
	*v = table[i].value;
}

static void ovl_prop_option(struct ovl_prop_gen *g)
{
	struct ovl_prop_want *w = &g->want;

	switch (ovl_prop_rand(g, 20)) {
	case 0:
	case 1:
		ovl_prop_lowerdir(g);
		break;
	case 2:
		ovl_prop_lower_add(g, false);
		break;
	case 3:
		ovl_prop_lower_add(g, true);
		break;
	case 4:
		ovl_prop_upper(g, "upperdir=", &w->upperdir, &w->upperdir_len);
		break;
	case 5:
		ovl_prop_upper(g, "workdir=", &w->workdir, &w->workdir_len);
		break;
	case 6:
		ovl_prop_put(g, "default_permissions");
		w->default_permissions = true;
		break;
	case 7:
		ovl_prop_enum(g, "redirect_dir", ovl_prop_modes,
			      ARRAY_SIZE(ovl_prop_modes), &w->redirect);
		break;
	case 8:
		ovl_prop_enum(g, "index", ovl_prop_bool,
			      ARRAY_SIZE(ovl_prop_bool), &w->index);
		break;
	case 9:
		ovl_prop_enum(g, "uuid", ovl_prop_uuid,
			      ARRAY_SIZE(ovl_prop_uuid), &w->uuid);
		break;
	case 10:
		ovl_prop_enum(g, "nfs_export", ovl_prop_bool,
			      ARRAY_SIZE(ovl_prop_bool), &w->nfs_export);
		break;
	case 11:
		ovl_prop_put(g, "userxattr");
		w->userxattr = true;
		break;
	case 12:
		ovl_prop_enum(g, "xino", ovl_prop_xino,
			      ARRAY_SIZE(ovl_prop_xino), &w->xino);
		break;
	case 13:
		ovl_prop_enum(g, "metacopy", ovl_prop_bool,
			      ARRAY_SIZE(ovl_prop_bool), &w->metacopy);
		break;
	case 14:
		ovl_prop_enum(g, "verity", ovl_prop_verity,
			      ARRAY_SIZE(ovl_prop_verity), &w->verity);
		break;
	case 15:
		ovl_prop_enum(g, "fsync", ovl_prop_fsync,
			      ARRAY_SIZE(ovl_prop_fsync), &w->fsync);
		break;
	case 16:
		ovl_prop_put(g, "volatile");
		w->fsync = OVL_FSYNC_VOLATILE;
		break;
	case 17:
		ovl_prop_put(g, ovl_prop_bad[ovl_prop_rand(g, ARRAY_SIZE(ovl_prop_bad))]);
		w->bad = true;
		break;
	case 18:
		/* A second source= is refused ("Multiple sources") */
		ovl_prop_put(g, "source=kunit");
		if (++w->sources > 1)
			w->bad = true;
		break;
	default:
		ovl_prop_put(g, ovl_prop_vfs[ovl_prop_rand(g, ARRAY_SIZE(ovl_prop_vfs))]);
	}
}

/* Build case @seed into g->buf; returns false for a raw byte string */
static bool ovl_prop_generate(struct ovl_prop_gen *g, u64 seed)
{
	struct ovl_prop_want *w = &g->want;
	int n, i;

	prandom_seed_state(&g->rnd, seed);
	g->len = 0;
	memset(w, 0, sizeof(*w));
	w->redirect = -1;
	w->index = -1;
	w->nfs_export = -1;
	w->metacopy = -1;
	w->uuid = -1;
	w->xino = -1;
	w->verity = -1;
	w->fsync = -1;
	w->lowerdir = -1;
	w->upperdir = -1;
	w->workdir = -1;

	if (!ovl_prop_rand(g, 8)) {
		/* Raw bytes 1..255, weighted to ',', '\\', '=' and ':' */
		n = ovl_prop_rand(g, 200);
		for (i = 0; i < n; i++) {
			switch (ovl_prop_rand(g, 7)) {
			case 0:
				ovl_prop_putc(g, ',');
				break;
			case 1:
				ovl_prop_putc(g, '\\');
				break;
			case 2:
				ovl_prop_putc(g, '=');
				break;
			case 3:
				ovl_prop_putc(g, ':');
				break;
			default:
				ovl_prop_putc(g, 1 + ovl_prop_rand(g, 255));
			}
		}
		g->buf[g->len] = '\0';
		return false;
	}

	n = ovl_prop_rand(g, OVL_PROP_MAXOPTS + 1);
	for (i = 0; i < n; i++) {
		if (i)
			ovl_prop_putc(g, ',');
		ovl_prop_option(g);
	}
	if (!ovl_prop_rand(g, 8))
		ovl_prop_putc(g, ',');
	g->buf[g->len] = '\0';
	return true;
}

static bool ovl_prop_str_is(const char *got, const char *buf, int at, int len)
{
	return got && strlen(got) == (size_t)len &&
	       !memcmp(got, buf + at, len);
}

/*
 * The first property that the parse (@perr) and the verification (@verr,
 * @nocap: without CAP_SYS_ADMIN) of @fc violate, or NULL.  @w is NULL for
 * a raw byte string, which only the invariants apply to.
 */
static const char *ovl_prop_violation(struct fs_context *fc, int perr,
				      int verr, bool nocap,
				      const struct ovl_prop_want *w,
				      const char *orig, bool always_follow)
{
	struct ovl_fs_context *ctx = fc->fs_private;
	struct ovl_config *c = &((struct ovl_fs *)fc->s_fs_info)->config;
	bool upper = c->upperdir;
	int mode;

	if (perr && perr != -EINVAL && perr != -ENOENT && perr != -ENOTDIR &&
	    perr != -ENAMETOOLONG)
		return "parse error other than -EINVAL, -ENOENT, -ENOTDIR, -ENAMETOOLONG";
	if (w && w->bad && !perr)
		return "bad option accepted";
	if (w && !w->bad && perr)
		return "parse refused a string of valid options";
	if (perr)
		return NULL;

	if (verr && verr != -EINVAL && !(nocap && verr == -EPERM))
		return "verify error other than -EINVAL (or -EPERM without CAP_SYS_ADMIN)";
	if (w && verr &&
	    !((w->metacopy >= 0 && (w->verity > 0 || w->redirect >= 0)) ||
	      (w->verity > 0 && w->redirect >= 0) ||
	      (w->nfs_export >= 0 && (w->index >= 0 || w->metacopy >= 0)) ||
	      (w->userxattr && (w->redirect >= 0 || w->metacopy >= 0 ||
				w->verity > 0)) ||
	      w->nr_data > 0 ||
	      (nocap && (w->redirect >= 0 || w->metacopy >= 0 ||
			 w->verity > 0))))
		return "refused, with no conflicting pair of options";
	if (verr)
		return NULL;

	/* Invariants of any accepted config */
	if (c->redirect_mode != OVL_REDIRECT_FOLLOW &&
	    c->redirect_mode != OVL_REDIRECT_NOFOLLOW &&
	    c->redirect_mode != OVL_REDIRECT_ON)
		return "redirect_mode not one of follow/nofollow/on";
	if (c->userxattr && c->redirect_mode != OVL_REDIRECT_NOFOLLOW)
		return "userxattr with redirects";
	if (c->userxattr && c->metacopy)
		return "userxattr with metacopy";
	if (c->userxattr && c->verity_mode)
		return "userxattr with verity";
	if (c->metacopy && c->redirect_mode != OVL_REDIRECT_ON)
		return "metacopy without redirect_dir=on";
	if (c->verity_mode && !c->metacopy)
		return "verity without metacopy";
	if (c->nfs_export && c->metacopy)
		return "nfs_export with metacopy";
	if (c->nfs_export && !c->index)
		return "nfs_export without index";
	if (ctx->nr_data && !c->metacopy)
		return "data-only layers without metacopy";
	if (!upper && c->workdir)
		return "workdir kept without upperdir";
	if (!upper && c->fsync_mode == OVL_FSYNC_VOLATILE)
		return "volatile without upperdir";
	if (!upper && c->uuid == OVL_UUID_ON)
		return "uuid=on without upperdir";
	if (!upper && c->index && !c->nfs_export)
		return "index without upperdir";
	if (nocap && !c->userxattr &&
	    (c->verity_mode || ctx->nr_data ||
	     (ctx->set.metacopy && c->metacopy) ||
	     (ctx->set.redirect && c->redirect_mode != OVL_REDIRECT_NOFOLLOW)))
		return "trusted xattr feature without CAP_SYS_ADMIN";
	if (!w)
		return NULL;

	/* The layers, as the string gave them */
	if (w->lower_all ?
	    !ovl_prop_str_is(ctx->lowerdir_all, orig, w->lowerdir,
			     w->lowerdir_len) : !!ctx->lowerdir_all)
		return "lowerdir is not the last lowerdir= value";
	if (ctx->nr != (size_t)w->nr || ctx->nr_data != (size_t)w->nr_data)
		return "lower layers miscounted";
	if (w->upperdir >= 0 ?
	    !ovl_prop_str_is(c->upperdir, orig, w->upperdir,
			     w->upperdir_len) : upper)
		return "upperdir is not the last upperdir= value";
	if (upper && (w->workdir >= 0 ?
		      !ovl_prop_str_is(c->workdir, orig, w->workdir,
				       w->workdir_len) : !!c->workdir))
		return "workdir is not the last workdir= value";

	/* Explicit options: honoured, or the mount refused */
	if (w->sources && (!fc->source || strcmp(fc->source, "kunit")))
		return "source= not honoured";
	if (w->default_permissions && !c->default_permissions)
		return "default_permissions dropped";
	if (w->userxattr && !c->userxattr)
		return "userxattr dropped";
	if (w->uuid >= 0 && c->uuid != w->uuid &&
	    !(w->uuid == OVL_UUID_ON && !upper && c->uuid == OVL_UUID_NULL))
		return "uuid= not honoured";
	if (w->xino >= 0 && c->xino != w->xino)
		return "xino= not honoured";
	if (w->verity >= 0 && c->verity_mode != w->verity)
		return "verity= not honoured";
	if (w->fsync >= 0 && c->fsync_mode != w->fsync &&
	    !(w->fsync == OVL_FSYNC_VOLATILE && !upper &&
	      c->fsync_mode == OVL_FSYNC_AUTO))
		return "fsync=/volatile not honoured";
	if (w->index >= 0 && upper && c->index != w->index)
		return "index= not honoured";
	if (w->metacopy >= 0 && c->metacopy != w->metacopy)
		return "metacopy= not honoured";
	if (w->nfs_export == 0 && c->nfs_export)
		return "nfs_export=off not honoured";
	if (w->nfs_export == 1 && !c->nfs_export && upper && !c->verity_mode)
		return "nfs_export=on not honoured";
	if (w->redirect >= 0) {
		mode = w->redirect;
		if (mode == OVL_REDIRECT_OFF)
			mode = always_follow ? OVL_REDIRECT_FOLLOW :
					       OVL_REDIRECT_NOFOLLOW;
		if (!upper && mode == OVL_REDIRECT_FOLLOW)
			mode = OVL_REDIRECT_ON;
		if (c->redirect_mode != mode)
			return "redirect_dir= not honoured";
	}
	return NULL;
}

static void ovl_params_prop_parse(struct kunit *test)
{
	struct ovl_params_kunit_defs defs;
	unsigned int i, raw = 0, refused = 0;
	struct ovl_prop_gen *g;
	struct fs_context *fc;
	int perr, verr;
	const char *bad;
	u64 seed, t0, ms;
	bool nocap;
	char *opts;
	u32 d;

	g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	g->buf = kunit_kmalloc(test, OVL_PROP_BUFSZ, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g->buf);

	kunit_info(test, "seed %llu, %u cases\n", ovl_params_prop_seed,
		   ovl_params_prop_iters);
	t0 = ktime_get_ns();
	for (i = 0; i < ovl_params_prop_iters; i++) {
		bool grammar;

		seed = ovl_params_prop_seed + i;
		grammar = ovl_prop_generate(g, seed);

		/* Module parameter defaults; CAP_SYS_ADMIN or not */
		d = prandom_u32_state(&g->rnd);
		defs.redirect_dir = d & 1;
		defs.redirect_always_follow = d & 2;
		defs.index = d & 4;
		defs.nfs_export = d & 8;
		defs.xino_auto = d & 16;
		defs.metacopy = d & 32;
		nocap = d & 64;
		ovl_params_kunit_set_defs(&defs);

		fc = fs_context_for_mount(&ovl_fs_type, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fc);

		/* Exactly the string's size, so KASAN sees a read past it */
		opts = kmemdup(g->buf, g->len + 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, opts);
		perr = fc->ops->parse_monolithic(fc, opts);
		kfree(opts);

		verr = 0;
		if (!perr && nocap)
			verr = ovl_params_kunit_verify_nocap(fc);
		else if (!perr)
			verr = ovl_fs_params_verify(fc->fs_private,
						    &((struct ovl_fs *)fc->s_fs_info)->config);

		bad = ovl_prop_violation(fc, perr, verr, nocap,
					 grammar ? &g->want : NULL, g->buf,
					 defs.redirect_always_follow);
		put_fs_context(fc);
		raw += !grammar;
		refused += perr || verr;
		if (bad) {
			KUNIT_FAIL(test,
				   "case seed %llu (replay: overlay.params_prop_seed=%llu overlay.params_prop_iters=1): %s: parse %d, verify %d, defaults %#x, options \"%*pE\" (%zu bytes)",
				   seed, seed, bad, perr, verr, d & 127,
				   (int)min_t(size_t, g->len, 300), g->buf, g->len);
			break;
		}
	}
	ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
	kunit_info(test, "%u cases (%u raw, %u refused) in %llu ms: %llu/s\n",
		   i, raw, refused, ms, div64_u64((u64)i * MSEC_PER_SEC, ms ?: 1));
}

static struct kunit_case ovl_params_prop_test_cases[] = {
	KUNIT_CASE(ovl_params_prop_parse),
	{}
};

static struct kunit_suite ovl_params_prop_suite = {
	.name = "overlayfs_params_prop",
	.suite_init = ovl_params_kunit_suite_init,
	.suite_exit = ovl_params_kunit_suite_exit,
	.init = ovl_params_kunit_init,
	.exit = ovl_params_kunit_exit,
	.test_cases = ovl_params_prop_test_cases,
};

kunit_test_suite(ovl_params_prop_suite);
