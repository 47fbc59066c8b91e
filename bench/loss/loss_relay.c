// SPDX-License-Identifier: GPL-2.0
/*
 * loss_relay - UDP relay on loopback that drops a fraction of datagrams.
 *
 *   loss_relay TO_PORT LOSS SEED
 *
 * Binds 127.0.0.1 on an ephemeral port, prints "port N" on stdout, then
 * forwards every datagram it receives to 127.0.0.1:TO_PORT, except that each
 * is dropped with probability LOSS (0..1) drawn from a xorshift64* generator
 * seeded with SEED, so a run is reproducible.  Datagrams starting with
 * "NOMARK" are control markers and always forwarded.  Exits on SIGTERM or
 * SIGINT, printing "received N forwarded N dropped N" on stderr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

int main(int argc, char **argv)
{
	static uint8_t buf[65536];
	unsigned long long received = 0, forwarded = 0, dropped = 0;
	struct sockaddr_in in = { 0 }, to = { 0 };
	struct sigaction sa = { 0 };
	socklen_t sl = sizeof(in);
	int fd, bufsz = 8 << 20;
	uint64_t rng;
	double loss;

	if (argc != 4) {
		fprintf(stderr, "usage: loss_relay TO_PORT LOSS SEED\n");
		return 2;
	}
	loss = strtod(argv[2], NULL);
	rng = strtoull(argv[3], NULL, 0) * 0x9e3779b97f4a7c15ull + 1;
	to.sin_family = AF_INET;
	to.sin_port = htons((uint16_t)atoi(argv[1]));
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	in.sin_family = AF_INET;
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&in, sizeof(in)) ||
	    getsockname(fd, (struct sockaddr *)&in, &sl)) {
		perror("loss_relay: socket");
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz, sizeof(bufsz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	printf("port %u\n", ntohs(in.sin_port));
	fflush(stdout);

	while (!stop) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		double u;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("loss_relay: recv");
			return 1;
		}
		if (n >= 6 && !memcmp(buf, "NOMARK", 6)) {
			sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&to,
			       sizeof(to));
			continue;
		}
		received++;
		u = (double)(rng_next(&rng) >> 11) * 0x1.0p-53;
		if (u < loss) {
			dropped++;
			continue;
		}
		if (sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&to,
			   sizeof(to)) == n)
			forwarded++;
	}
	fprintf(stderr, "received %llu forwarded %llu dropped %llu\n",
		received, forwarded, dropped);
	return 0;
}
