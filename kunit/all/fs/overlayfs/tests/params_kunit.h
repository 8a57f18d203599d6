/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the KUnit suites of the overlayfs mount option parser share: the
 * layers they make on the root filesystem and the module parameters that
 * feed the mount defaults, which each test pins and puts back.
 */
#ifndef _OVL_PARAMS_KUNIT_H
#define _OVL_PARAMS_KUNIT_H

#include <kunit/test.h>

struct fs_context;

#define OVLK_D		"/ovl_kunit"
#define OVLK_LOWER	OVLK_D "/lower"
#define OVLK_LOWER2	OVLK_D "/lower2"
#define OVLK_DATA	OVLK_D "/data"
#define OVLK_UPPER	OVLK_D "/upper"
#define OVLK_WORK	OVLK_D "/work"
#define OVLK_FILE	OVLK_D "/file"
#define OVLK_MISSING	OVLK_D "/missing"
#define OVLK_DIRS	"lowerdir=" OVLK_LOWER ",upperdir=" OVLK_UPPER \
			",workdir=" OVLK_WORK
/* The same with a data-only layer under the lower one */
#define OVLK_DATA_DIRS	"lowerdir=" OVLK_LOWER "::" OVLK_DATA \
			",upperdir=" OVLK_UPPER ",workdir=" OVLK_WORK

/* The module parameters that feed the defaults */
struct ovl_params_kunit_defs {
	bool redirect_dir;
	bool redirect_always_follow;
	bool index;
	bool nfs_export;
	bool xino_auto;
	bool metacopy;
};

int ovl_params_kunit_suite_init(struct kunit_suite *suite);
void ovl_params_kunit_suite_exit(struct kunit_suite *suite);
int ovl_params_kunit_init(struct kunit *test);
void ovl_params_kunit_exit(struct kunit *test);
void ovl_params_kunit_set_defs(const struct ovl_params_kunit_defs *defs);
int ovl_params_kunit_parse_opts(struct kunit *test, struct fs_context *fc,
				const char *opts);
int ovl_params_kunit_verify_nocap(struct fs_context *fc);

#endif
