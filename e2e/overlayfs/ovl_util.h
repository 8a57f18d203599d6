/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the overlayfs guest programs (ovl_test.c, ovl_faults.c).
 */
#ifndef OVL_UTIL_H
#define OVL_UTIL_H

#include "e2e_test.h"
#include <stdint.h>

/* A path built from a format; 16 rotating buffers. */
static const char *P(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *P(const char *fmt, ...)
{
	static char bufs[16][512];
	static int i;
	char *b = bufs[i++ % 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, 512, fmt, ap);
	va_end(ap);
	return b;
}

/* Deterministic pseudo-random content of len bytes. */
static void put_random(const char *path, size_t len, unsigned int seed)
{
	char *buf = malloc(len + 1);
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		buf[i] = 'a' + x % 26;
	}
	buf[len] = 0;
	e2e_put_file(path, buf, 0644);
	free(buf);
}

#endif /* OVL_UTIL_H */
