// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd sockets: for each listen address one SO_REUSEPORT group with a
 * socket per worker, and a classic BPF program that picks the socket (so
 * the worker) from the datagram's boot_id.  One netoopsd per UDP port:
 * see port_lock().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "netoopsd.h"

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

int parse_addr(const char *s, int port, struct sockaddr_storage *ss,
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

/*
 * The reuseport program: for UDP it sees the datagram from the start of
 * the UDP payload.  A = boot_id words xor-ed together, modulo the number of
 * sockets.  A datagram too short to hold a boot_id fails the first loads
 * and goes to socket 0 (its worker counts it as malformed).
 */
static int attach_steering(int fd, unsigned int n)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 8),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 12),
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 20),
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, n),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
			  sizeof(prog)) < 0 ? -errno : 0;
}

/*
 * SO_REUSEPORT lets a second netoopsd of the same user join the group:
 * it would take a share of the dumps and its steering program would
 * replace ours.  So each netoopsd owns its port by binding the abstract
 * unix socket "netoopsd/udp/PORT" before its first UDP socket.  Abstract
 * names live in the network namespace, as ports do, need no directory,
 * and vanish with the process however it ends (SIGKILL included).  The
 * port, not the address: a wildcard and a specific address overlap, and
 * the kernel gives the specific one the datagrams.
 */
static int port_lock(struct daemon *d, int port)
{
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t len, clen = sizeof(cred);
	int fd, c, n;

	n = snprintf(su.sun_path + 1, sizeof(su.sun_path) - 1,
		     "netoopsd/udp/%d", port);
	len = offsetof(struct sockaddr_un, sun_path) + 1 + n;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (!bind(fd, (struct sockaddr *)&su, len) && !listen(fd, 1)) {
		d->port_lock = fd;
		return 0;
	}
	if (errno != EADDRINUSE)
		goto fail;
	close(fd);
	/* The owner's pid, for the message: its credentials at listen(). */
	c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c >= 0 && !connect(c, (struct sockaddr *)&su, len) &&
	    !getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &clen))
		fprintf(stderr, "netoopsd: udp port %d is taken by another"
			" netoopsd (pid %d): one netoopsd per port\n", port,
			(int)cred.pid);
	else
		fprintf(stderr, "netoopsd: udp port %d is taken by another"
			" netoopsd: one netoopsd per port\n", port);
	if (c >= 0)
		close(c);
	return -EADDRINUSE;
fail:
	n = -errno;
	fprintf(stderr, "netoopsd: cannot lock udp port %d: %m\n", port);
	if (fd >= 0)
		close(fd);
	return n;
}

static int open_one(struct daemon *d, const char *addr, int port,
		    int *ret_port)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 50000 };
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, r;

	r = parse_addr(addr, port, &ss, &len);
	if (r < 0) {
		fprintf(stderr, "netoopsd: bad listen address '%s'\n", addr);
		return r;
	}
	/* Blocking, so that a worker with one socket waits in recvmmsg()
	 * itself (one system call per batch, as the baseline sink); the
	 * timeout bounds how late expiry and a stop request are seen.
	 */
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		goto fail;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		goto fail;
	if (ss.ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0)
		goto fail;
	/* The kernel's count of datagrams dropped for a full buffer. */
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
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
	return fd;
fail:
	r = -errno;
	fprintf(stderr, "netoopsd: cannot listen on udp %s port %d: %m\n",
		addr, port);
	if (fd >= 0)
		close(fd);
	return r;
}

int sockets_open(struct daemon *d)
{
	static const char *const defaults[] = { "::", "0.0.0.0" };
	const char *const *addrs = (const char *const *)d->cfg.listen;
	int nr = d->cfg.nr_listen, port = d->cfg.port, i, a = 0, w, r;
	int got = 0;

	if (!nr) {
		addrs = defaults;
		nr = 2;
	}
	/* Port 0: locked as soon as the first socket has one. */
	d->port_lock = -1;
	if (port) {
		r = port_lock(d, port);
		if (r < 0)
			return r;
	}
	for (i = 0; i < nr; i++) {
		for (w = 0; w < d->cfg.workers; w++) {
			r = open_one(d, addrs[i], port, &got);
			if (r == -EAFNOSUPPORT && !d->cfg.nr_listen && !w) {
				/* No IPv6 on this host: the default
				 * addresses make do with IPv4.
				 */
				fprintf(stderr, "netoopsd: %s skipped\n",
					addrs[i]);
				break;
			}
			if (r < 0)
				return r;
			d->workers[w].fds[a] = r;
			d->workers[w].nfds = a + 1;
			/* Port 0: every later socket joins the first one's. */
			if (!port) {
				r = port_lock(d, got);
				if (r < 0)
					return r;
			}
			port = got;
		}
		if (w < d->cfg.workers)
			continue;
		if (d->cfg.workers > 1) {
			r = attach_steering(d->workers[0].fds[a],
					    d->cfg.workers);
			if (r < 0) {
				fprintf(stderr, "netoopsd: cannot attach the"
					" boot_id steering program: %s\n",
					strerror(-r));
				return r;
			}
		}
		d->nr_addrs = ++a;
	}
	if (!a)
		return -EADDRNOTAVAIL;
	d->port = port;
	return 0;
}

void sockets_close(struct daemon *d)
{
	int w, i;

	for (w = 0; w < d->cfg.workers; w++)
		for (i = 0; i < d->workers[w].nfds; i++)
			close(d->workers[w].fds[i]);
	if (d->port_lock >= 0)
		close(d->port_lock);
	d->port_lock = -1;
}
