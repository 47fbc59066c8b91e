// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd listeners: UDP sockets, recvmmsg() batches, hand-off to workers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "netoopsd.h"

#define BATCH	64	/* datagrams per recvmmsg() */

uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "1.2.3.4", "::1" or "[::1]" -> sockaddr with @port. */
static int parse_addr(const char *s, int port, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	char buf[64];
	size_t n = strlen(s);

	memset(ss, 0, sizeof(*ss));
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']' && n - 2 < sizeof(buf)) {
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = 0;
		s = buf;
	}
	if (inet_pton(AF_INET, s, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return 0;
	}
	return -EINVAL;
}

static int open_one(struct daemon *d, const char *addr, int port, int *ret_port)
{
	struct sockaddr_storage ss;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
	socklen_t len;
	int fd, one = 1, r;

	r = parse_addr(addr, port, &ss, &len);
	if (r < 0) {
		fprintf(stderr, "netoopsd: bad listen address '%s'\n", addr);
		return r;
	}
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		goto fail;
	if (ss.ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0)
		goto fail;
	/* The kernel's count of datagrams dropped for a full buffer. */
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		goto fail;
	if (d->cfg.rcvbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &d->cfg.rcvbuf,
		       sizeof(d->cfg.rcvbuf)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &d->cfg.rcvbuf,
		       sizeof(d->cfg.rcvbuf)) < 0)
		goto fail;
	if (bind(fd, (struct sockaddr *)&ss, len) < 0)
		goto fail;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		goto fail;
	*ret_port = ntohs(ss.ss_family == AF_INET ?
			  ((struct sockaddr_in *)&ss)->sin_port :
			  ((struct sockaddr_in6 *)&ss)->sin6_port);
	d->listeners[d->nr_listeners].fd = fd;
	d->listeners[d->nr_listeners].family = ss.ss_family;
	d->listeners[d->nr_listeners].d = d;
	d->nr_listeners++;
	return 0;
fail:
	r = -errno;
	fprintf(stderr, "netoopsd: cannot listen on udp %s port %d: %m\n",
		addr, port);
	if (fd >= 0)
		close(fd);
	return r;
}

int listeners_open(struct daemon *d)
{
	static const char *const defaults[] = { "::", "0.0.0.0" };
	const char *const *addrs = (const char *const *)d->cfg.listen;
	int nr = d->cfg.nr_listen, port = d->cfg.port, i, j, r, got = 0;

	if (!nr) {
		addrs = defaults;
		nr = 2;
	}
	if (nr * d->cfg.listeners > MAX_LISTENERS)
		return -E2BIG;
	for (i = 0; i < nr; i++) {
		for (j = 0; j < d->cfg.listeners; j++) {
			r = open_one(d, addrs[i], port, &got);
			if (r < 0)
				return r;
			/* Port 0: every later socket joins the first one's. */
			port = got;
		}
	}
	d->port = port;
	return 0;
}

static uint32_t hash_bytes(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/* Which worker gets the datagram: by boot_id (or address), never by port. */
static unsigned int pick_worker(struct daemon *d, const uint8_t *buf,
				size_t len, const struct sockaddr_storage *src)
{
	uint32_t h;

	if (d->cfg.workers == 1)
		return 0;
	if (d->cfg.src_key == SRC_KEY_BOOT) {
		if (len >= 24)
			h = hash_bytes(buf + 8, 16);
		else
			h = hash_bytes(buf, len);
	} else if (src->ss_family == AF_INET6) {
		h = hash_bytes((const uint8_t *)
			       &((const struct sockaddr_in6 *)src)->sin6_addr, 16);
	} else {
		h = hash_bytes((const uint8_t *)
			       &((const struct sockaddr_in *)src)->sin_addr, 4);
	}
	return h % d->cfg.workers;
}

static void *listener_main(void *arg)
{
	struct listener *l = arg;
	struct daemon *d = l->d;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_storage srcs[BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctl[BATCH];
	struct pkt *heads[MAX_WORKERS], *tails[MAX_WORKERS];
	uint64_t qbytes[MAX_WORKERS];
	size_t bufsz = d->cfg.max_packet;
	uint8_t *bufs;
	int i, n, w, flags;

	bufs = malloc(bufsz * BATCH);
	if (!bufs) {
		fprintf(stderr, "netoopsd: listener: out of memory\n");
		return NULL;
	}
	for (;;) {
		bool stopping = atomic_load(&d->stop);

		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = bufs + i * bufsz;
			iov[i].iov_len = bufsz;
			memset(&msgs[i].msg_hdr, 0, sizeof(msgs[i].msg_hdr));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_name = &srcs[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(srcs[i]);
			msgs[i].msg_hdr.msg_control = ctl[i].buf;
			msgs[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
		}
		/* Once stopping, take what the socket holds, then leave. */
		flags = stopping ? MSG_DONTWAIT : MSG_WAITFORONE;
		n = recvmmsg(l->fd, msgs, BATCH, flags, NULL);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				fprintf(stderr, "netoopsd: recvmmsg: %m\n");
			if (stopping)
				break;
			continue;
		}
		atomic_fetch_add_explicit(&l->st.batches, 1,
					  memory_order_relaxed);
		memset(heads, 0, sizeof(heads[0]) * d->cfg.workers);
		memset(qbytes, 0, sizeof(qbytes[0]) * d->cfg.workers);
		for (i = 0; i < n; i++) {
			struct msghdr *mh = &msgs[i].msg_hdr;
			uint32_t len = msgs[i].msg_len;
			struct cmsghdr *cm;
			struct pkt *p;

			for (cm = CMSG_FIRSTHDR(mh); cm;
			     cm = CMSG_NXTHDR(mh, cm)) {
				uint32_t drops;

				if (cm->cmsg_level != SOL_SOCKET ||
				    cm->cmsg_type != SO_RXQ_OVFL)
					continue;
				memcpy(&drops, CMSG_DATA(cm), sizeof(drops));
				atomic_store_explicit(&l->st.kernel_drops,
						      drops,
						      memory_order_relaxed);
			}
			atomic_fetch_add_explicit(&l->st.packets, 1,
						  memory_order_relaxed);
			atomic_fetch_add_explicit(&l->st.bytes, len,
						  memory_order_relaxed);
			if (mh->msg_flags & MSG_TRUNC) {
				atomic_fetch_add_explicit(&l->st.oversized, 1,
							  memory_order_relaxed);
				continue;
			}
			p = malloc(sizeof(*p) + len);
			if (!p)
				continue;	/* counted by the gap it leaves */
			p->next = NULL;
			p->recv_ms = mono_ms();
			p->len = len;
			memcpy(&p->src, &srcs[i], mh->msg_namelen);
			p->srclen = mh->msg_namelen;
			memcpy(p->data, iov[i].iov_base, len);
			w = pick_worker(d, p->data, len, &srcs[i]);
			if (heads[w])
				tails[w]->next = p;
			else
				heads[w] = p;
			tails[w] = p;
			qbytes[w] += sizeof(*p) + len;
		}
		for (w = 0; w < d->cfg.workers; w++)
			if (heads[w])
				pktq_push_list(d, &d->workers[w], heads[w],
					       tails[w], qbytes[w]);
	}
	free(bufs);
	return NULL;
}

int listeners_start(struct daemon *d)
{
	int i, r;

	for (i = 0; i < d->nr_listeners; i++) {
		r = pthread_create(&d->listeners[i].thread, NULL,
				   listener_main, &d->listeners[i]);
		if (r) {
			atomic_store(&d->stop, true);
			while (i--)
				pthread_join(d->listeners[i].thread, NULL);
			return -r;
		}
	}
	return 0;
}

void listeners_join(struct daemon *d)
{
	int i;

	for (i = 0; i < d->nr_listeners; i++) {
		pthread_join(d->listeners[i].thread, NULL);
		close(d->listeners[i].fd);
	}
}
