// SPDX-License-Identifier: GPL-2.0-only
/*
 * Property tests of the overlayfs mount option parser, ovl_parse_opt():
 * option strings generated from its grammar (valid options, repeats,
 * contradictions, bad values and near-miss names, empty and over-long
 * values, escaped commas and backslashes, bytes that are not UTF-8), and
 * raw byte strings, each parsed from random module parameter defaults.
 *
 * Whatever the input, the parser must return 0 or -EINVAL (-ENOMEM is
 * not expected here), and a config it accepts must hold every invariant
 * of the overlayfs documentation: userxattr means no redirects and no
 * metacopy, metacopy means redirect_dir, nfs_export means no metacopy and
 * (with an upper layer) index, a mount without an upper layer has no
 * workdir, no volatile and no index unless nfs_export asks for it.  An
 * option asked for explicitly (the last one of its kind) is honoured or
 * the mount is refused; the only documented exceptions are options that
 * need an upper layer on a mount without one, and nfs_export=on on such
 * a mount that follows redirects.  A string with an unknown option, or
 * with a last redirect_dir= value that is not a mode, is refused; a
 * string that names no pair of conflicting options is accepted.
 *
 * The input is generated from a seed: case i of a run uses seed + i, and
 * a failure prints that case's seed, so booting with
 * overlay.params_prop_seed=<seed> overlay.params_prop_iters=1 replays it.
 *
 * #included at the end of super.c after params_kunit.c, whose helpers
 * set the module parameter defaults.
 */

#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/prandom.h>

static unsigned long long ovl_params_prop_seed = 1;
module_param_named(params_prop_seed, ovl_params_prop_seed, ullong, 0444);
MODULE_PARM_DESC(params_prop_seed,
		 "KUnit overlayfs_params_prop: seed of the first case");

static unsigned int ovl_params_prop_iters = 2000;
module_param_named(params_prop_iters, ovl_params_prop_iters, uint, 0444);
MODULE_PARM_DESC(params_prop_iters,
		 "KUnit overlayfs_params_prop: number of generated cases");

/* Longest value generated: past PATH_MAX, past a page of mount data */
#define OVL_PROP_LONG		(PATH_MAX + 300)
#define OVL_PROP_MAXOPTS	12
#define OVL_PROP_BUFSZ		(OVL_PROP_MAXOPTS * (OVL_PROP_LONG + 32))

/* What the generated string asked for: the last value of each option */
struct ovl_prop_want {
	bool bad_token;
	const char *redirect;		/* last redirect_dir= value or NULL */
	int index, nfs_export, metacopy, uuid, xino;	/* -1: not given */
	bool userxattr, ovl_volatile, default_permissions;
	/* Offsets into the pristine copy of the string; -1: not given */
	int lowerdir, upperdir, workdir;
	int lowerdir_len, upperdir_len, workdir_len;
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
 * A path value: empty, short or over-long; plain characters, escaped
 * commas and backslashes (kept as they are by the parser, which only
 * splits on unescaped commas), '=' and bytes above 0x7f.  Returns where
 * it starts; *len is its length.
 */
static int ovl_prop_value(struct ovl_prop_gen *g, int *len)
{
	static const char plain[] = "abcxyz/._-=:0123";
	int start = g->len, n, i;

	switch (ovl_prop_rand(g, 16)) {
	case 0:
		n = 0;
		break;
	case 1:
		n = PATH_MAX - 8 + ovl_prop_rand(g, OVL_PROP_LONG - PATH_MAX + 8);
		break;
	default:
		n = 1 + ovl_prop_rand(g, 24);
	}
	for (i = 0; i < n; i++) {
		switch (ovl_prop_rand(g, 12)) {
		case 0:
			ovl_prop_put(g, "\\,");
			break;
		case 1:
			ovl_prop_put(g, "\\\\");
			break;
		case 2:
			ovl_prop_putc(g, 0x80 + ovl_prop_rand(g, 0x80));
			break;
		default:
			ovl_prop_putc(g, plain[ovl_prop_rand(g, sizeof(plain) - 1)]);
		}
	}
	*len = g->len - start;
	return start;
}

/* Names that are not options: near misses of real ones and junk */
static const char * const ovl_prop_bad[] = {
	"index", "index=", "index=On", "index=1", "uuid=null", "uuid",
	"xino=", "xino=yes", "metacopy", "metacopy=", "Volatile",
	"userxattr=on", "default_permissions=1", "lowerdir", "upperdir",
	"workdir", "redirect_dir", "nfs_export=1", "nfs_export", "noatime",
	"ro", "=", "lowerdir =/l", " userxattr", "userxattr ", "\\,",
	"index=on\\,uuid=off", "\xff\xfe", "volatile=on",
};

static const char * const ovl_prop_modes[] = {
	"on", "follow", "off", "nofollow",
	/* not modes */
	"On", "onn", "of", "nofollow ", "\xc3\xa9", "follow\\,on",
};

static void ovl_prop_onoff(struct ovl_prop_gen *g, const char *name, int *v)
{
	*v = ovl_prop_rand(g, 2);
	ovl_prop_put(g, name);
	ovl_prop_put(g, *v ? "=on" : "=off");
}

static void ovl_prop_dir(struct ovl_prop_gen *g, const char *name, int *at,
			 int *len)
{
	ovl_prop_put(g, name);
	*at = ovl_prop_value(g, len);
	/* "%s" matches no empty value: an unknown option */
	if (!*len)
		g->want.bad_token = true;
}

static void ovl_prop_option(struct ovl_prop_gen *g)
{
	struct ovl_prop_want *w = &g->want;
	static const struct {
		const char *name;
		int value;
	} xino[] = {
		{ "xino=off", OVL_XINO_OFF },
		{ "xino=auto", OVL_XINO_AUTO },
		{ "xino=on", OVL_XINO_ON },
	};
	u32 i;

	switch (ovl_prop_rand(g, 14)) {
	case 0:
		ovl_prop_dir(g, "lowerdir=", &w->lowerdir, &w->lowerdir_len);
		break;
	case 1:
		ovl_prop_dir(g, "upperdir=", &w->upperdir, &w->upperdir_len);
		break;
	case 2:
		ovl_prop_dir(g, "workdir=", &w->workdir, &w->workdir_len);
		break;
	case 3:
		ovl_prop_put(g, "default_permissions");
		w->default_permissions = true;
		break;
	case 4:
		i = ovl_prop_rand(g, ARRAY_SIZE(ovl_prop_modes));
		ovl_prop_put(g, "redirect_dir=");
		ovl_prop_put(g, ovl_prop_modes[i]);
		w->redirect = ovl_prop_modes[i];
		break;
	case 5:
		ovl_prop_onoff(g, "index", &w->index);
		break;
	case 6:
		ovl_prop_put(g, "userxattr");
		w->userxattr = true;
		break;
	case 7:
		ovl_prop_onoff(g, "uuid", &w->uuid);
		break;
	case 8:
		ovl_prop_onoff(g, "nfs_export", &w->nfs_export);
		break;
	case 9:
		i = ovl_prop_rand(g, ARRAY_SIZE(xino));
		ovl_prop_put(g, xino[i].name);
		w->xino = xino[i].value;
		break;
	case 10:
		ovl_prop_onoff(g, "metacopy", &w->metacopy);
		break;
	case 11:
		ovl_prop_put(g, "volatile");
		w->ovl_volatile = true;
		break;
	case 12:
		i = ovl_prop_rand(g, ARRAY_SIZE(ovl_prop_bad));
		ovl_prop_put(g, ovl_prop_bad[i]);
		w->bad_token = true;
		break;
	default:
		/* An empty option (",,"), which the parser skips */
		break;
	}
}

/* Build case @seed into g->buf; returns false for a raw byte string */
static bool ovl_prop_generate(struct ovl_prop_gen *g, u64 seed)
{
	int n, i;

	prandom_seed_state(&g->rnd, seed);
	g->len = 0;
	memset(&g->want, 0, sizeof(g->want));
	g->want.index = -1;
	g->want.nfs_export = -1;
	g->want.metacopy = -1;
	g->want.uuid = -1;
	g->want.xino = -1;
	g->want.lowerdir = -1;
	g->want.upperdir = -1;
	g->want.workdir = -1;

	if (!ovl_prop_rand(g, 8)) {
		/* Raw bytes 1..255, weighted to ',', '\\' and '=' */
		n = ovl_prop_rand(g, 200);
		for (i = 0; i < n; i++) {
			switch (ovl_prop_rand(g, 6)) {
			case 0:
				ovl_prop_putc(g, ',');
				break;
			case 1:
				ovl_prop_putc(g, '\\');
				break;
			case 2:
				ovl_prop_putc(g, '=');
				break;
			default:
				ovl_prop_putc(g, 1 + ovl_prop_rand(g, 255));
			}
		}
		g->buf[g->len] = '\0';
		return false;
	}

	if (!ovl_prop_rand(g, 8))
		ovl_prop_putc(g, ',');
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

static bool ovl_prop_is_mode(const char *s)
{
	return !strcmp(s, "on") || !strcmp(s, "follow") ||
	       !strcmp(s, "off") || !strcmp(s, "nofollow");
}

static bool ovl_prop_str_is(const char *got, const char *buf, int at, int len)
{
	return got && strlen(got) == (size_t)len &&
	       !memcmp(got, buf + at, len);
}

/*
 * The first property that @config violates, or NULL.  @want is NULL for
 * a raw byte string, which only the invariants apply to.
 */
static const char *ovl_prop_violation(const struct ovl_config *c, int err,
				      const struct ovl_prop_want *w,
				      const char *orig, bool always_follow)
{
	bool upper = c->upperdir;
	bool conflict;

	if (err != 0 && err != -EINVAL)
		return "error other than 0 or -EINVAL";
	if (w && w->bad_token && err != -EINVAL)
		return "unknown option accepted";
	if (w && !w->bad_token && w->redirect &&
	    !ovl_prop_is_mode(w->redirect) && err != -EINVAL)
		return "bad redirect_dir= mode accepted";
	if (w && !w->bad_token && (!w->redirect ||
				   ovl_prop_is_mode(w->redirect))) {
		conflict = (w->metacopy >= 0 && w->redirect) ||
			   (w->nfs_export >= 0 && w->index >= 0) ||
			   (w->nfs_export >= 0 && w->metacopy >= 0) ||
			   (w->userxattr && (w->redirect || w->metacopy >= 0));
		if (!conflict && err)
			return "refused, with no conflicting pair of options";
	}
	if (err)
		return NULL;

	/* Invariants of any accepted config */
	if (!c->redirect_mode || !ovl_prop_is_mode(c->redirect_mode))
		return "redirect_mode not one of on/follow/off/nofollow";
	if (c->userxattr && (c->redirect_dir || c->redirect_follow))
		return "userxattr with redirects";
	if (c->userxattr && c->metacopy)
		return "userxattr with metacopy";
	if (c->metacopy && !(c->redirect_dir && c->redirect_follow))
		return "metacopy without redirect_dir";
	if (c->redirect_dir && !c->redirect_follow)
		return "redirect_dir without redirect_follow";
	if (c->nfs_export && c->metacopy)
		return "nfs_export with metacopy";
	if (c->nfs_export && upper && !c->index)
		return "nfs_export without index";
	if (!upper && c->workdir)
		return "workdir kept without upperdir";
	if (!upper && c->ovl_volatile)
		return "volatile without upperdir";
	if (!upper && c->index && !c->nfs_export)
		return "index without upperdir";
	if (!w)
		return NULL;

	/* Explicit options: honoured, or the mount refused */
	if (w->lowerdir >= 0 &&
	    !ovl_prop_str_is(c->lowerdir, orig, w->lowerdir, w->lowerdir_len))
		return "lowerdir is not the last lowerdir= value";
	if (w->upperdir >= 0 &&
	    !ovl_prop_str_is(c->upperdir, orig, w->upperdir, w->upperdir_len))
		return "upperdir is not the last upperdir= value";
	if (w->upperdir < 0 && c->upperdir)
		return "upperdir out of nowhere";
	if (w->workdir >= 0 && upper &&
	    !ovl_prop_str_is(c->workdir, orig, w->workdir, w->workdir_len))
		return "workdir is not the last workdir= value";
	if (w->default_permissions && !c->default_permissions)
		return "default_permissions dropped";
	if (w->userxattr && !c->userxattr)
		return "userxattr dropped";
	if (w->ovl_volatile && upper && !c->ovl_volatile)
		return "volatile dropped";
	if (w->uuid >= 0 && c->uuid != w->uuid)
		return "uuid= not honoured";
	if (w->xino >= 0 && c->xino != w->xino)
		return "xino= not honoured";
	/* Without an upper layer index= is ignored, see the invariants */
	if (w->index >= 0 && upper && c->index != w->index)
		return "index= not honoured";
	if (w->metacopy >= 0 && c->metacopy != w->metacopy)
		return "metacopy= not honoured";
	/*
	 * Without an upper layer, nfs_export=on falls back to off unless
	 * redirects are not followed, which only redirect_dir=nofollow
	 * says for sure (the fallback comes before userxattr turns them
	 * off, and "off" follows or not by a module parameter)
	 */
	if (w->nfs_export >= 0 && c->nfs_export != w->nfs_export &&
	    !(w->nfs_export && !upper &&
	      !(w->redirect && !strcmp(w->redirect, "nofollow"))))
		return "nfs_export= not honoured";
	if (w->redirect) {
		if (strcmp(c->redirect_mode, w->redirect))
			return "redirect_mode is not the last redirect_dir= value";
		if (!strcmp(w->redirect, "on") &&
		    !(c->redirect_dir && c->redirect_follow))
			return "redirect_dir=on not honoured";
		if (!strcmp(w->redirect, "follow") && !c->redirect_follow)
			return "redirect_dir=follow not honoured";
		if (!strcmp(w->redirect, "nofollow") && c->redirect_follow)
			return "redirect_dir=nofollow not honoured";
		if (!strcmp(w->redirect, "off") &&
		    (c->redirect_follow != always_follow ||
		     (upper && c->redirect_dir)))
			return "redirect_dir=off not honoured";
	}
	return NULL;
}

static void ovl_prop_free_config(struct ovl_config *config)
{
	kfree(config->lowerdir);
	kfree(config->upperdir);
	kfree(config->workdir);
	kfree(config->redirect_mode);
	memset(config, 0, sizeof(*config));
}

static void ovl_params_prop_parse(struct kunit *test)
{
	struct ovl_params_kunit_ctx *ctx = test->priv;
	struct ovl_config *config = &ctx->ofs->config;
	struct ovl_params_kunit_defs defs;
	struct ovl_prop_gen *g;
	char *orig, *opts;
	unsigned int i, raw = 0, refused = 0;
	const char *bad;
	u64 seed, t0, ms;
	u32 d;
	int err;

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
		orig = g->buf;

		/* Module parameter defaults, each on or off */
		d = prandom_u32_state(&g->rnd);
		defs.redirect_dir = d & 1;
		defs.redirect_always_follow = d & 2;
		defs.index = d & 4;
		defs.nfs_export = d & 8;
		defs.xino_auto = d & 16;
		defs.metacopy = d & 32;
		ovl_params_kunit_set_defs(&defs);
		ovl_config_set_defaults(config);

		/* Exactly the string's size, so KASAN sees a read past it */
		opts = kmemdup(orig, g->len + 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, opts);
		err = ovl_parse_opt(opts, config);
		kfree(opts);

		bad = ovl_prop_violation(config, err, grammar ? &g->want : NULL,
					 orig, defs.redirect_always_follow);
		raw += !grammar;
		refused += !!err;
		if (bad) {
			KUNIT_FAIL(test,
				   "case seed %llu (replay: overlay.params_prop_seed=%llu overlay.params_prop_iters=1): %s: err %d, defaults %#x, options \"%*pE\" (%zu bytes)",
				   seed, seed, bad, err, d & 63,
				   (int)min_t(size_t, g->len, 300), orig, g->len);
			ovl_prop_free_config(config);
			break;
		}
		ovl_prop_free_config(config);
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
	.init = ovl_params_kunit_init,
	.exit = ovl_params_kunit_exit,
	.test_cases = ovl_params_prop_test_cases,
};

kunit_test_suite(ovl_params_prop_suite);
