/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few libcap calls of the kernel's filesystems selftests
 * (tools/testing/selftests/filesystems/utils.c: caps_down(), cap_down()),
 * on capget()/capset(): the guest programs are static, built for both
 * arches, and no libcap can be installed for the foreign one without
 * adding a dpkg architecture to the host.  cap_shim.c implements them.
 */
#ifndef KGATE_SYS_CAPABILITY_H
#define KGATE_SYS_CAPABILITY_H

#include <linux/capability.h>

typedef int cap_value_t;
typedef enum { CAP_EFFECTIVE, CAP_PERMITTED, CAP_INHERITABLE } cap_flag_t;
typedef enum { CAP_CLEAR, CAP_SET } cap_flag_value_t;
typedef struct kgate_cap *cap_t;

cap_t cap_get_proc(void);
int cap_set_proc(cap_t caps);
int cap_clear_flag(cap_t caps, cap_flag_t flag);
int cap_set_flag(cap_t caps, cap_flag_t flag, int n, const cap_value_t *values,
		 cap_flag_value_t value);
int cap_free(void *caps);

#endif
