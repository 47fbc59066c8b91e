// SPDX-License-Identifier: GPL-2.0
/*
 * storm_sink: the baseline receiver.  recvmmsg() batches on one UDP socket,
 * counting datagrams and bytes, nothing else.  Stops after --expect
 * datagrams, or --idle-ms without one once traffic has started, or
 * --max-ms in all.
 *
 * Output (stdout), key=value: packets, bytes, first_ms, last_ms (unix ms
 * of the first and last datagram), kernel_drops.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define BUFSZ 2048

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "ready-file", required_argument, NULL, 'f' },
		{ "rcvbuf", required_argument, NULL, 'b' },
		{ "expect", required_argument, NULL, 'e' },
		{ "idle-ms", required_argument, NULL, 'i' },
		{ "max-ms", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 }
	};
	static uint8_t bufs[BATCH][BUFSZ];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct timeval tv = { 0, 100000 };
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctl[BATCH];
	unsigned long long pkts = 0, bytes = 0, expect = 0;
	uint64_t first = 0, last = 0, idle = 3000, maxms = 170000, t0;
	uint32_t drops = 0;
	struct rusage ru;
	const char *ready = NULL;
	socklen_t sl = sizeof(sa);
	int fd, one = 1, rcvbuf = 0, o, n, i;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'p': sa.sin_port = htons(atoi(optarg)); break;
		case 'f': ready = optarg; break;
		case 'b': rcvbuf = atoi(optarg); break;
		case 'e': expect = strtoull(optarg, NULL, 10); break;
		case 'i': idle = strtoull(optarg, NULL, 10); break;
		case 'm': maxms = strtoull(optarg, NULL, 10); break;
		default: return 2;
		}
	}
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return 1;
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (rcvbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl)) {
		perror("storm_sink: bind");
		return 1;
	}
	if (ready) {
		char tmp[4096];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
		f = fopen(tmp, "w");
		if (!f)
			return 1;
		fprintf(f, "port=%d\n", ntohs(sa.sin_port));
		fclose(f);
		rename(tmp, ready);
	}
	t0 = wall_ms();
	for (;;) {
		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = BUFSZ;
			memset(&msgs[i].msg_hdr, 0, sizeof(msgs[i].msg_hdr));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_control = ctl[i].buf;
			msgs[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
		}
		n = recvmmsg(fd, msgs, BATCH, MSG_WAITFORONE, NULL);
		if (n > 0) {
			struct cmsghdr *cm;

			last = wall_ms();
			if (!first)
				first = last;
			pkts += n;
			for (i = 0; i < n; i++)
				bytes += msgs[i].msg_len;
			cm = CMSG_FIRSTHDR(&msgs[n - 1].msg_hdr);
			if (cm && cm->cmsg_type == SO_RXQ_OVFL)
				memcpy(&drops, CMSG_DATA(cm), sizeof(drops));
			if (expect && pkts >= expect)
				break;
			continue;
		}
		if (first && wall_ms() - last > idle)
			break;
		if (wall_ms() - t0 > maxms)
			break;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("packets=%llu\nbytes=%llu\nfirst_ms=%llu\nlast_ms=%llu\n"
	       "kernel_drops=%u\ncpu_ms=%ld\n", pkts, bytes,
	       (unsigned long long)first, (unsigned long long)last, drops,
	       (long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
	return 0;
}
