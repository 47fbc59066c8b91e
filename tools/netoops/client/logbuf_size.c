// SPDX-License-Identifier: GPL-2.0
/*
 * logbuf-size: print the size in bytes of the running kernel's log buffer
 * (syslog(2) SYSLOG_ACTION_SIZE_BUFFER), which includes log_buf_len= and
 * the per-CPU extra the kernel may add at boot.  netoopsctl loads netoops
 * with record_size set to it, so one record holds the whole log.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>

#define SYSLOG_ACTION_SIZE_BUFFER 10

int main(int argc, char **argv)
{
	int n;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: logbuf-size\n");
		return 2;
	}
	n = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	if (n < 0) {
		fprintf(stderr, "logbuf-size: syslog(SIZE_BUFFER): %s\n",
			strerror(errno));
		return 1;
	}
	printf("%d\n", n);
	return 0;
}
