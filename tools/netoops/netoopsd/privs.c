// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd privileges: CAP_NET_ADMIN serves only SO_RCVBUFFORCE when the
 * sockets are bound; after that netoopsd needs no capability at all.
 * privs_drop() gives up every one, in every set, for good.  Raw capget()/
 * capset()/prctl(): libcap is not needed for "all of them".
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "netoopsd.h"

static int caps_get(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return syscall(SYS_capget, &hdr, data) < 0 ? -errno : 0;
}

static bool caps_none(const struct __user_cap_data_struct data[2])
{
	int i;

	for (i = 0; i < 2; i++)
		if (data[i].effective || data[i].permitted ||
		    data[i].inheritable)
			return false;
	return true;
}

/*
 * Call before any thread starts: capabilities belong to each thread, and
 * new threads copy those of their creator.
 */
int privs_drop(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	unsigned long cap;
	int r;

	/* Ambient first: clearing it needs no capability. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return -errno;
	r = caps_get(data);
	if (r < 0)
		return r;
	/*
	 * With CAP_SETPCAP (as root): an empty bounding set, so that not even
	 * an execve() of uid 0 gets a capability back.  Without it, a service
	 * manager has bounded the set already; no_new_privs below covers
	 * execve() too.
	 */
	if (data[0].effective & (1u << CAP_SETPCAP))
		for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
				return -errno;
	/* Nothing held (a service without capabilities): no capset(), which
	 * a system call filter may forbid.
	 */
	if (!caps_none(data)) {
		memset(data, 0, sizeof(data));
		if (syscall(SYS_capset, &hdr, data) < 0)
			return -errno;
		r = caps_get(data);
		if (r < 0)
			return r;
		if (!caps_none(data))
			return -EPERM;
	}
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : 0;
}
