// SPDX-License-Identifier: GPL-2.0
/*
 * udp_sink - receive UDP datagrams for the netoops selftests.
 *
 * Binds to ADDR:PORT (IPv4 or IPv6), then writes each datagram it receives
 * either appended to one file (-o, for netconsole text) or to its own file
 * DIR/NNNNNN.bin (-d, for netoops packets, whose boundaries matter).  When
 * the socket is bound it creates the file given with -r, so a test can wait
 * for that file instead of sleeping.  Stops after -n datagrams, after -t
 * seconds without traffic, or on SIGTERM/SIGINT.
 *
 * The receive buffer is raised to 8 MiB (SO_RCVBUFFORCE as root, else as
 * far as net.core.rmem_max allows): a guest under emulation may not run
 * the sink for a while, and a whole dump with its parity arrives in one
 * burst.  A datagram the socket drops is a test failure, not a kernel one.
 *
 * Kept static and dependency-free so it runs in a busybox initramfs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Set by the signal handler: lock-free, so async-signal-safe. */
static atomic_int stop;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: udp_sink -p PORT [-b ADDR] [-o FILE | -d DIR] [-r READYFILE]\n"
		"                [-n COUNT] [-t IDLE_SECONDS]\n");
	exit(2);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *bind_addr = "0.0.0.0", *out = NULL, *dir = NULL;
	const char *ready = NULL;
	long port = -1, count = 0, idle = 0, got = 0;
	struct sockaddr_storage ss;
	socklen_t sslen;
	static char buf[65536];
	int opt, fd, outfd = -1, one = 1, rcvbuf = 8 << 20;

	while ((opt = getopt(argc, argv, "p:b:o:d:r:n:t:")) != -1) {
		switch (opt) {
		case 'p':
			port = strtol(optarg, NULL, 10);
			break;
		case 'b':
			bind_addr = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'r':
			ready = optarg;
			break;
		case 'n':
			count = strtol(optarg, NULL, 10);
			break;
		case 't':
			idle = strtol(optarg, NULL, 10);
			break;
		default:
			print_usage();
		}
	}
	if (port <= 0 || port > 65535 || (out && dir))
		print_usage();

	memset(&ss, 0, sizeof(ss));
	if (strchr(bind_addr, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)port);
		if (inet_pton(AF_INET6, bind_addr, &s6->sin6_addr) != 1)
			print_usage();
		sslen = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((unsigned short)port);
		if (inet_pton(AF_INET, bind_addr, &s4->sin_addr) != 1)
			print_usage();
		sslen = sizeof(*s4);
	}

	fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("udp_sink: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&ss, sslen) < 0) {
		perror("udp_sink: bind");
		return 1;
	}
	if (out) {
		outfd = open(out, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (outfd < 0) {
			perror("udp_sink: open output");
			return 1;
		}
	} else if (!dir) {
		outfd = STDOUT_FILENO;
	}

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	if (ready) {
		int rfd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (rfd < 0) {
			perror("udp_sink: open ready file");
			return 1;
		}
		close(rfd);
	}

	while (!atomic_load(&stop) && (!count || got < count)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r = poll(&pfd, 1, idle ? (int)idle * 1000 : -1);
		ssize_t n;

		if (r < 0) {
			if (errno == EINTR)
				continue;
			perror("udp_sink: poll");
			return 1;
		}
		if (r == 0)
			break;	/* idle timeout */
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("udp_sink: recv");
			return 1;
		}
		if (dir) {
			char path[4096];
			int dfd;

			snprintf(path, sizeof(path), "%s/%06ld.bin", dir, got);
			dfd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (dfd < 0 || write_all(dfd, buf, (size_t)n) < 0) {
				perror("udp_sink: write datagram");
				return 1;
			}
			close(dfd);
		} else if (write_all(outfd, buf, (size_t)n) < 0) {
			perror("udp_sink: write");
			return 1;
		}
		got++;
	}
	return 0;
}
