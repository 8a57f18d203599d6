// SPDX-License-Identifier: GPL-2.0
/* The libcap calls of include/sys/capability.h, on capget()/capset(). */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/capability.h>

struct kgate_cap {
	struct __user_cap_header_struct head;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
};

cap_t cap_get_proc(void)
{
	cap_t c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->head.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &c->head, c->data)) {
		free(c);
		return NULL;
	}
	return c;
}

int cap_set_proc(cap_t c)
{
	return syscall(SYS_capset, &c->head, c->data);
}

static __u32 *set_of(cap_t c, cap_flag_t flag, int i)
{
	switch (flag) {
	case CAP_EFFECTIVE:
		return &c->data[i].effective;
	case CAP_PERMITTED:
		return &c->data[i].permitted;
	default:
		return &c->data[i].inheritable;
	}
}

int cap_clear_flag(cap_t c, cap_flag_t flag)
{
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		*set_of(c, flag, i) = 0;
	return 0;
}

int cap_set_flag(cap_t c, cap_flag_t flag, int n, const cap_value_t *values,
		 cap_flag_value_t value)
{
	for (int k = 0; k < n; k++) {
		int i = values[k] >> 5;
		__u32 bit = 1u << (values[k] & 31);

		if (values[k] < 0 || i >= _LINUX_CAPABILITY_U32S_3)
			return -1;
		if (value == CAP_SET)
			*set_of(c, flag, i) |= bit;
		else
			*set_of(c, flag, i) &= ~bit;
	}
	return 0;
}

int cap_free(void *c)
{
	free(c);
	return 0;
}
