// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd options: command line flags and a config file of the same names
 * ("name = value" lines; '#' at the start of a line or after a blank starts
 * a comment).  Flags given after --config override the file, flags before
 * it are overridden by it.  A refused value is reported with the reason.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netoops_hex.h"
#include "netoops_version.h"
#include "netoopsd.h"

enum {
	OPT_PORT = 'p', OPT_LISTEN = 'l', OPT_DB = 'd', OPT_CONFIG = 'c',
	OPT_WORKERS = 'w', OPT_VERBOSE = 'v', OPT_HELP = 'h',
	OPT_ARCHIVE = 256, OPT_METRICS_LISTEN,
	OPT_METRICS_FILE, OPT_METRICS_INTERVAL, OPT_READY_FILE, OPT_RCVBUF,
	OPT_MAX_PACKET, OPT_BATCH, OPT_SYNC, OPT_STORE_QUEUE,
	OPT_SOURCE_KEY, OPT_TIMEOUT, OPT_MAX_PKTS, OPT_MAX_DUMP_BYTES,
	OPT_MAX_PER_SOURCE, OPT_MAX_DUMPS, OPT_MAX_MEMORY, OPT_PENDING_BYTES,
	OPT_FINISHERS, OPT_FINISH_NICE, OPT_KEY, OPT_KEY_FILE, OPT_REQUIRE_AUTH,
	OPT_MAX_PER_ADDR, OPT_MIN_PARTIAL,
	OPT_SPOOL, OPT_SPOOL_BYTES, OPT_SPOOL_MEMORY, OPT_RESUME_BYTES,
	OPT_RETAIN_DAYS, OPT_MAX_STORE_BYTES, OPT_RETAIN_INTERVAL,
	OPT_VERSION,
	OPT_ARCHIVE_BYTES, OPT_ARCHIVE_KEEP, OPT_ARCHIVE_SYNC_MS,
	OPT_NAME,
};

static const struct option longopts[] = {
	{ "port", required_argument, NULL, OPT_PORT },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "workers", required_argument, NULL, OPT_WORKERS },
	{ "db", required_argument, NULL, OPT_DB },
	{ "archive", required_argument, NULL, OPT_ARCHIVE },
	{ "archive-bytes", required_argument, NULL, OPT_ARCHIVE_BYTES },
	{ "archive-keep", required_argument, NULL, OPT_ARCHIVE_KEEP },
	{ "archive-sync-ms", required_argument, NULL, OPT_ARCHIVE_SYNC_MS },
	{ "metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN },
	{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
	{ "metrics-interval", required_argument, NULL, OPT_METRICS_INTERVAL },
	{ "ready-file", required_argument, NULL, OPT_READY_FILE },
	{ "rcvbuf", required_argument, NULL, OPT_RCVBUF },
	{ "max-packet", required_argument, NULL, OPT_MAX_PACKET },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "sync", required_argument, NULL, OPT_SYNC },
	{ "store-queue", required_argument, NULL, OPT_STORE_QUEUE },
	{ "pending-bytes", required_argument, NULL, OPT_PENDING_BYTES },
	{ "spool", required_argument, NULL, OPT_SPOOL },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "spool-bytes", required_argument, NULL, OPT_SPOOL_BYTES },
	{ "spool-memory", required_argument, NULL, OPT_SPOOL_MEMORY },
	{ "resume-bytes", required_argument, NULL, OPT_RESUME_BYTES },
	{ "finishers", required_argument, NULL, OPT_FINISHERS },
	{ "finish-nice", required_argument, NULL, OPT_FINISH_NICE },
	{ "source-key", required_argument, NULL, OPT_SOURCE_KEY },
	{ "timeout-ms", required_argument, NULL, OPT_TIMEOUT },
	{ "max-packets-per-dump", required_argument, NULL, OPT_MAX_PKTS },
	{ "max-bytes-per-dump", required_argument, NULL, OPT_MAX_DUMP_BYTES },
	{ "max-dumps-per-source", required_argument, NULL, OPT_MAX_PER_SOURCE },
	{ "max-dumps-per-addr", required_argument, NULL, OPT_MAX_PER_ADDR },
	{ "min-partial-pct", required_argument, NULL, OPT_MIN_PARTIAL },
	{ "max-open-dumps", required_argument, NULL, OPT_MAX_DUMPS },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "key-file", required_argument, NULL, OPT_KEY_FILE },
	{ "require-auth", no_argument, NULL, OPT_REQUIRE_AUTH },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "retain-days", required_argument, NULL, OPT_RETAIN_DAYS },
	{ "max-store-bytes", required_argument, NULL, OPT_MAX_STORE_BYTES },
	{ "retain-interval", required_argument, NULL, OPT_RETAIN_INTERVAL },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

void usage(FILE *f)
{
	fputs(
"Usage: netoopsd [OPTION]...\n"
"Receive netoops crash dumps over UDP, reassemble them and store them.\n"
"\n"
"  -p, --port N               UDP port (default 6667; 0 = any free port,\n"
"                             printed and written to --ready-file)\n"
"  -l, --listen ADDR          address to bind, repeatable (default :: and\n"
"                             0.0.0.0; an IPv6 socket is v6-only)\n"
"  -w, --workers N            receiving and reassembly threads, each with one\n"
"                             SO_REUSEPORT socket per address, datagrams\n"
"                             steered to them by boot_id (default 2)\n"
"  -d, --db LOCATION          SQLite database (PATH or sqlite:PATH), or\n"
"                             PostgreSQL (postgresql://..., postgres://...\n"
"                             or pg:CONNINFO) (default\n"
"                             /var/lib/netoops/netoops.db)\n"
"      --name NAME            this collector's name, recorded with each dump\n"
"                             it stores (the store lists every collector\n"
"                             whose copy a merged dump was built from)\n"
"                             (default: the host name)\n"
"      --spool DIR            where each dump is written, flushed, before it\n"
"                             is stored; kept there while the store fails\n"
"                             (default: the SQLite path with .spool added;\n"
"                             needed with PostgreSQL)\n"
"      --spool-bytes BYTES    most bytes of dumps in the spool (default 1G)\n"
"      --spool-memory BYTES   most bytes of dumps held in memory when the\n"
"                             spool cannot take them (disk full); more are\n"
"                             refused, each logged (default 64M)\n"
"      --resume-bytes BYTES   datagrams kept to complete partial dumps when\n"
"                             the rest arrives, even after a restart: in\n"
"                             memory and in the spool, each (default 64M;\n"
"                             0 = none)\n"
"      --retain-days DAYS     delete dumps received more than DAYS ago\n"
"                             (default 0: keep them)\n"
"      --max-store-bytes BYTES\n"
"                             delete the oldest dumps while the database\n"
"                             with its -wal and -shm files takes more, and\n"
"                             give the space back (default 0: no limit)\n"
"      --retain-interval S    seconds between two deletions by age (default\n"
"                             3600); the size is looked at every second\n"
"      --archive FILE         append every valid datagram to FILE (readable\n"
"                             by `netoops decode`), never half a datagram;\n"
"                             SIGHUP reopens it (for logrotate)\n"
"      --archive-bytes BYTES  rotate FILE at this size: FILE.1 ... FILE.N\n"
"                             (default 256M; 0 = never; at least 64K)\n"
"      --archive-keep N       rotated files kept (default 4; 0 = none)\n"
"      --archive-sync-ms MS   fdatasync the archive every MS when written to:\n"
"                             a power loss loses at most the last MS of it\n"
"                             (default 1000; 0 = after every write)\n"
"      --key-file ID:PATH     MAC key of key id ID (repeatable): 16 to 64\n"
"                             bytes in hex in PATH; a relative PATH is a\n"
"                             credential in $CREDENTIALS_DIRECTORY (systemd\n"
"                             LoadCredential=).  Signed datagrams must then\n"
"                             verify; a dump whose datagrams all verified\n"
"                             with key ID is stored as authenticated by it\n"
"                             (`netoops show`)\n"
"      --key ID:HEX           the same, the key itself: every user sees it\n"
"                             (ps) until netoopsd has read it; deprecated\n"
"      --require-auth         refuse datagrams without a MAC\n"
"      --metrics-listen A:P   serve Prometheus metrics at http://A:P/metrics\n"
"                             (P may be 0: bound port goes to --ready-file)\n"
"      --metrics-file PATH    write the metrics to PATH every interval and\n"
"                             at exit\n"
"      --metrics-interval S   seconds between metrics file writes (default 5)\n"
"      --ready-file PATH      written (atomically) once all sockets are bound:\n"
"                             \"port=N\\nmetrics_port=M\\npid=P\\n\"\n"
"      --rcvbuf BYTES         socket receive buffer (SO_RCVBUFFORCE as root)\n"
"      --max-packet BYTES     largest datagram accepted (default 65535)\n"
"      --batch N              most dumps per store transaction (default 256)\n"
"      --sync full|normal     SQLite synchronous mode (default full)\n"
"      --store-queue N        most records waiting for the store (default 1024)\n"
"      --pending-bytes BYTES  most payload bytes of finished dumps waiting to\n"
"                             be inflated and signed, and of records waiting\n"
"                             for the store (each; default 256M)\n"
"      --finishers N          threads inflating and signing dumps (default 2)\n"
"      --finish-nice N        nice value of those threads\n"
"                             (default 19: packets first, 0 = same as all)\n"
"      --source-key boot|addr|addrport\n"
"                             what counts as one source for the per-source\n"
"                             limit (default boot: the sender's boot_id)\n"
"      --timeout-ms MS        a dump with no new packet for MS is stored as\n"
"                             partial (default 10000)\n"
"      --max-packets-per-dump N   (default 8192)\n"
"      --max-bytes-per-dump BYTES (default 1M)\n"
"      --max-dumps-per-source N   open dumps per source (default 8)\n"
"      --max-dumps-per-addr N     open dumps per IP address, authenticated\n"
"                             and not each (default a quarter of\n"
"                             --max-open-dumps); then its oldest is evicted\n"
"      --min-partial-pct P    store a timed-out unauthenticated dump only if\n"
"                             it has its metadata and P %% of its datagrams\n"
"                             (default 10; 0 stores every partial dump)\n"
"      --max-open-dumps N     open dumps in all (default 1024 per worker)\n"
"      --max-memory BYTES     reassembly memory in all, split between\n"
"                             workers (default 64M per worker)\n"
"  -c, --config FILE          read \"option = value\" lines (long names;\n"
"                             '#' after a blank starts a comment)\n"
"  -v, --verbose              log every stored dump\n"
"  -h, --help                 this text\n"
"      --version              the version, and the wire protocol's\n"
"\n"
"Sizes take K, M, G suffixes.  SIGTERM or SIGINT: stop receiving, store\n"
"every dump still open as partial, commit (what the store cannot take\n"
"stays in the spool for the next start), write metrics, exit 0.\n", f);
}

void config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->port = NETOOPS_DEFAULT_PORT;
	c->workers = 2;
	c->metrics_interval = 5;
	c->max_packet = 65535;
	c->batch = 256;
	c->store_queue = 1024;
	c->pending_bytes = 256ull << 20;
	c->finishers = 2;
	c->finish_nice = 19;
	c->spool_bytes = 1ull << 30;
	c->spool_memory = 64ull << 20;
	c->resume_bytes = 64ull << 20;
	c->archive_bytes = 256ull << 20;
	c->archive_keep = 4;
	c->archive_sync_ms = 1000;
	c->src_key = SRC_KEY_BOOT;
	c->limits.partial_min_pct = 10;
	c->retain_interval = 3600;
}

void config_free(struct config *c)
{
	int i;

	for (i = 0; i < c->nr_listen; i++)
		free(c->listen[i]);
	free(c->db);
	free(c->archive);
	free(c->metrics_listen);
	free(c->metrics_file);
	free(c->ready_file);
	free(c->spool_dir);
	free(c->name);
	explicit_bzero(c->keys, sizeof(c->keys));
}

/* Why a value was refused, for the message of the caller of apply(). */
#define WHY_LEN 96

/*
 * A number (decimal, 0x hex, 0 octal) with an optional K, M or G suffix
 * (powers of 1024), at most @max.  Return 0, -EINVAL (not a number) or
 * -ERANGE (above @max, or too large for 64 bits with its suffix).
 */
static int parse_size(const char *s, uint64_t max, uint64_t *ret, char *why)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!isdigit((unsigned char)*s)) {
		snprintf(why, WHY_LEN, "not a number");
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, 0);
	switch (*end) {
	case 'k': case 'K':
		shift = 10; end++; break;
	case 'm': case 'M':
		shift = 20; end++; break;
	case 'g': case 'G':
		shift = 30; end++; break;
	}
	if (*end) {
		snprintf(why, WHY_LEN, "not a number (suffixes: K, M, G)");
		return -EINVAL;
	}
	if (errno == ERANGE || v > UINT64_MAX >> shift ||
	    (v << shift) > max) {
		snprintf(why, WHY_LEN, "value too large (at most %llu)",
			 (unsigned long long)max);
		return -ERANGE;
	}
	*ret = v << shift;
	return 0;
}

/* parse_size() of a value that must also be at least @min. */
static int parse_range(const char *s, uint64_t min, uint64_t max,
		       uint64_t *ret, char *why)
{
	int r = parse_size(s, max, ret, why);

	if (!r && *ret < min) {
		snprintf(why, WHY_LEN, "value too small (at least %llu)",
			 (unsigned long long)min);
		return -ERANGE;
	}
	return r;
}

/* A port: decimal digits only, 0..65535. */
static int parse_port(const char *s, int *ret, char *why)
{
	unsigned long v = 0;
	const char *p;

	for (p = s; isdigit((unsigned char)*p) && v <= 65535; p++)
		v = v * 10 + (*p - '0');
	if (p == s || *p || v > 65535) {
		snprintf(why, WHY_LEN, "invalid port '%s' (0 to 65535)", s);
		return -EINVAL;
	}
	*ret = (int)v;
	return 0;
}

/* "ADDR:PORT", an IPv6 ADDR in brackets: --metrics-listen. */
static int parse_host_port(struct config *c, const char *v, char *why)
{
	const char *colon = strrchr(v, ':');
	char host[INET6_ADDRSTRLEN + 2];
	size_t n;
	int port, r;

	if (!colon) {
		snprintf(why, WHY_LEN, "not ADDR:PORT");
		return -EINVAL;
	}
	r = parse_port(colon + 1, &port, why);
	if (r < 0)
		return r;
	n = (size_t)(colon - v);
	if (n >= sizeof(host) || (memchr(v, ':', n) && v[0] != '[')) {
		snprintf(why, WHY_LEN, "invalid address (IPv6: [ADDR]:PORT)");
		return -EINVAL;
	}
	memcpy(host, v, n);
	host[n] = 0;
	if (parse_addr(host, port, &c->metrics_addr, &c->metrics_addrlen)) {
		snprintf(why, WHY_LEN, "invalid address '%s'", host);
		return -EINVAL;
	}
	return 0;
}

static int set_str(char **dst, const char *v)
{
	char *n = strdup(v);

	if (!n)
		return -ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

static int config_file(struct config *c, const char *path);

/*
 * A MAC key: 16 to 64 bytes, as the kernel's auth_key takes it.  A
 * refused key is never echoed, not even in part: the reasons below name
 * no byte of it.
 */
#define KEY_MIN	16
#define KEY_MAX	64

/* "ID:" of "ID:@what" */
static int key_id(const char *v, const char *what, uint32_t *ret_id,
		  const char **ret_rest, char *why)
{
	unsigned long id;
	char *end;

	errno = 0;
	id = strtoul(v, &end, 0);
	if (!isdigit((unsigned char)*v) || errno || *end != ':' ||
	    id > UINT32_MAX) {
		snprintf(why, WHY_LEN, "not ID:%s (ID: a key id, decimal or"
			 " 0x hex)", what);
		return -EINVAL;
	}
	*ret_id = (uint32_t)id;
	*ret_rest = end + 1;
	return 0;
}

/* @n hex digits at @hex: key @id of the configuration. */
static int key_store(struct config *c, uint32_t id, const char *hex,
		     size_t n, char *why)
{
	struct cfg_key *k;
	size_t i;

	if (c->nr_keys >= MAX_KEYS) {
		snprintf(why, WHY_LEN, "too many keys (at most %d)", MAX_KEYS);
		return -E2BIG;
	}
	/* Only the first would be used: a second is a mistake. */
	for (i = 0; i < (size_t)c->nr_keys; i++)
		if (c->keys[i].id == id) {
			snprintf(why, WHY_LEN, "key %u given twice",
				 (unsigned int)id);
			return -EEXIST;
		}
	for (i = 0; i < n; i++)
		if (netoops_hexval(hex[i]) < 0) {
			snprintf(why, WHY_LEN, "key %u: not hex digits",
				 (unsigned int)id);
			return -EINVAL;
		}
	if (n % 2 || n / 2 < KEY_MIN || n / 2 > KEY_MAX) {
		snprintf(why, WHY_LEN, "key %u: %zu hex digits; a key has %d"
			 " to %d bytes (%d to %d hex digits)", (unsigned int)id,
			 n, KEY_MIN, KEY_MAX, 2 * KEY_MIN, 2 * KEY_MAX);
		return -EINVAL;
	}
	k = &c->keys[c->nr_keys];
	for (i = 0; i < n / 2; i++)
		k->key[i] = (uint8_t)(netoops_hexval(hex[2 * i]) << 4 |
				      netoops_hexval(hex[2 * i + 1]));
	k->id = id;
	k->len = n / 2;
	c->nr_keys++;
	return 0;
}

/* --key "ID:HEX". */
static int add_key(struct config *c, const char *v, char *why)
{
	const char *hex;
	uint32_t id;
	int r = key_id(v, "HEX", &id, &hex, why);

	return r < 0 ? r : key_store(c, id, hex, strlen(hex), why);
}

/*
 * --key-file "ID:PATH": the key in hex, blanks around it ignored.  A
 * relative PATH names a credential of the service (systemd
 * LoadCredential=ID:FILE puts it in $CREDENTIALS_DIRECTORY).
 */
static int add_key_file(struct config *c, const char *v, char *why)
{
	char path[PATH_MAX], buf[4 * KEY_MAX];
	const char *name, *dir, *hex;
	struct stat st;
	size_t n = 0;
	ssize_t got;
	uint32_t id;
	int fd, r;

	r = key_id(v, "PATH", &id, &name, why);
	if (r < 0)
		return r;
	dir = getenv("CREDENTIALS_DIRECTORY");
	if (!*name) {
		snprintf(why, WHY_LEN, "no file name after the key id");
		return -EINVAL;
	}
	if (name[0] == '/') {
		r = snprintf(path, sizeof(path), "%s", name);
	} else if (dir && *dir) {
		r = snprintf(path, sizeof(path), "%s/%s", dir, name);
	} else {
		snprintf(why, WHY_LEN, "relative file name, and no"
			 " $CREDENTIALS_DIRECTORY (LoadCredential=)");
		return -EINVAL;
	}
	if (r >= (int)sizeof(path)) {
		snprintf(why, WHY_LEN, "file name too long");
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(why, WHY_LEN, "cannot read %.40s: %s", path,
			 strerror(-r));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, WHY_LEN, "%.40s is not a regular file", path);
		r = -EINVAL;
		goto out;
	}
	if (st.st_mode & S_IROTH)
		fprintf(stderr, "netoopsd: warning: key file %s is readable"
			" by every user\n", path);
	while (n < sizeof(buf) &&
	       (got = read(fd, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)got;
	if (n == sizeof(buf)) {
		snprintf(why, WHY_LEN, "key %u: file too large for a key of"
			 " at most %d bytes in hex", (unsigned int)id, KEY_MAX);
		r = -EINVAL;
		goto out;
	}
	hex = buf;
	while (n && isspace((unsigned char)*hex)) {
		hex++;
		n--;
	}
	while (n && isspace((unsigned char)hex[n - 1]))
		n--;
	r = key_store(c, id, hex, n, why);
out:
	explicit_bzero(buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * Applies one option; the same code serves flags and the config file.  A
 * refused value returns a negative errno, the reason in @why (WHY_LEN).
 */
static int apply(struct config *c, int opt, const char *v, char *why)
{
	uint64_t n;
	int r = 0;

#define NUM(min, max) do {						\
		r = parse_range(v, (min), (max), &n, why);		\
		if (r < 0)						\
			return r;					\
	} while (0)
#define CHOICE(list) do {						\
		snprintf(why, WHY_LEN, "not one of " list);		\
		return -EINVAL;						\
	} while (0)
	why[0] = 0;
	switch (opt) {
	case OPT_PORT:
		return parse_port(v, &c->port, why);
	case OPT_LISTEN:
		if (c->nr_listen >= MAX_LISTEN_ADDRS) {
			snprintf(why, WHY_LEN, "too many addresses (at most"
				 " %d)", MAX_LISTEN_ADDRS);
			return -E2BIG;
		}
		c->listen[c->nr_listen] = strdup(v);
		if (!c->listen[c->nr_listen])
			return -ENOMEM;
		c->nr_listen++;
		break;
	case OPT_WORKERS:
		NUM(1, MAX_WORKERS);
		c->workers = n;
		break;
	case OPT_DB:
		return set_str(&c->db, v);
	case OPT_ARCHIVE:
		return set_str(&c->archive, v);
	case OPT_ARCHIVE_BYTES:
		/* 0, or room for the largest datagram */
		NUM(0, 1ull << 50);
		if (n && n < 65536) {
			snprintf(why, WHY_LEN, "value too small (0, or at"
				 " least 64K)");
			return -ERANGE;
		}
		c->archive_bytes = n;
		break;
	case OPT_ARCHIVE_KEEP:
		NUM(0, 1000);
		c->archive_keep = n;
		break;
	case OPT_ARCHIVE_SYNC_MS:
		NUM(0, 3600000);
		c->archive_sync_ms = n;
		break;
	case OPT_METRICS_LISTEN:
		r = parse_host_port(c, v, why);
		return r < 0 ? r : set_str(&c->metrics_listen, v);
	case OPT_METRICS_FILE:
		return set_str(&c->metrics_file, v);
	case OPT_METRICS_INTERVAL:
		NUM(1, 3600);
		c->metrics_interval = n;
		break;
	case OPT_READY_FILE:
		return set_str(&c->ready_file, v);
	case OPT_RCVBUF:
		NUM(0, INT_MAX);
		c->rcvbuf = n;
		break;
	case OPT_MAX_PACKET:
		NUM(NETOOPS_HDR_LEN_V1, 65535);
		c->max_packet = n;
		break;
	case OPT_BATCH:
		NUM(1, 100000);
		c->batch = n;
		break;
	case OPT_SYNC:
		if (!strcmp(v, "full"))
			c->sync_normal = false;
		else if (!strcmp(v, "normal"))
			c->sync_normal = true;
		else
			CHOICE("full, normal");
		break;
	case OPT_STORE_QUEUE:
		NUM(1, 1000000);
		c->store_queue = n;
		break;
	case OPT_PENDING_BYTES:
		NUM(1u << 20, 1ull << 40);
		c->pending_bytes = n;
		break;
	case OPT_SPOOL:
		return set_str(&c->spool_dir, v);
	case OPT_NAME:
		/* a ',' would split it in the store's list of collectors */
		if (!*v || strlen(v) > 64 || strpbrk(v, ", \t\n")) {
			fprintf(stderr, "netoopsd: --name: 1 to 64 bytes"
				" without ',' or blanks: '%s'\n", v);
			return -EINVAL;
		}
		return set_str(&c->name, v);
	case OPT_SPOOL_BYTES:
		NUM(1u << 20, 1ull << 50);
		c->spool_bytes = n;
		break;
	case OPT_SPOOL_MEMORY:
		NUM(0, 1ull << 40);
		c->spool_memory = n;
		break;
	case OPT_RESUME_BYTES:
		NUM(0, 1ull << 40);
		c->resume_bytes = n;
		break;
	case OPT_FINISHERS:
		NUM(1, MAX_WORKERS);
		c->finishers = n;
		break;
	case OPT_FINISH_NICE:
		NUM(0, 19);
		c->finish_nice = n;
		break;
	case OPT_SOURCE_KEY:
		if (!strcmp(v, "boot"))
			c->src_key = SRC_KEY_BOOT;
		else if (!strcmp(v, "addr"))
			c->src_key = SRC_KEY_ADDR;
		else if (!strcmp(v, "addrport"))
			c->src_key = SRC_KEY_ADDRPORT;
		else
			CHOICE("boot, addr, addrport");
		break;
	case OPT_TIMEOUT:
		NUM(1, 86400000);
		c->limits.timeout_ms = n;
		break;
	case OPT_MAX_PKTS:
		NUM(0, 65535);
		c->limits.max_pkts_per_dump = n;
		break;
	case OPT_MAX_DUMP_BYTES:
		NUM(0, UINT32_MAX);
		c->limits.max_bytes_per_dump = n;
		break;
	case OPT_MAX_PER_SOURCE:
		NUM(0, UINT32_MAX);
		c->limits.max_dumps_per_source = n;
		break;
	case OPT_MAX_DUMPS:
		NUM(0, UINT32_MAX);
		c->limits.max_dumps = n;
		break;
	case OPT_MAX_PER_ADDR:
		NUM(0, UINT32_MAX);
		c->limits.max_dumps_per_addr = n;	/* split in workers */
		break;
	case OPT_MIN_PARTIAL:
		NUM(0, 100);
		c->limits.partial_min_pct = n;
		break;
	case OPT_MAX_MEMORY:
		NUM(0, 1ull << 40);
		c->limits.max_bytes_total = n;	/* split in main() */
		break;
	case OPT_RETAIN_DAYS:
		NUM(0, 36500);
		c->retain_days = n;
		break;
	case OPT_MAX_STORE_BYTES:
		NUM(0, 1ull << 50);
		if (n && n < 1u << 20) {
			snprintf(why, WHY_LEN, "value too small (0, or at"
				 " least 1M)");
			return -ERANGE;
		}
		c->max_store_bytes = n;
		break;
	case OPT_RETAIN_INTERVAL:
		NUM(1, 86400);
		c->retain_interval = n;
		break;
	case OPT_KEY:
		return add_key(c, v, why);
	case OPT_KEY_FILE:
		return add_key_file(c, v, why);
	case OPT_REQUIRE_AUTH:
		c->require_auth = true;
		break;
	case OPT_CONFIG:
		return config_file(c, v);
	case OPT_VERBOSE:
		c->verbose++;
		break;
	default:
		return -EINVAL;
	}
#undef NUM
#undef CHOICE
	return r;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = 0;
	return s;
}

/* '#' at the start or after a blank ends the line: "db = /srv/a#1" keeps
 * its '#', "workers = 4  # one per core" loses the comment.
 */
static void strip_comment(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			*p = 0;
			return;
		}
}

static int config_file(struct config *c, const char *path)
{
	char line[1024], why[WHY_LEN], *k, *v, *eq;
	const struct option *o;
	int lineno = 0, r = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		fprintf(stderr, "netoopsd: cannot open config %s: %s\n", path,
			strerror(-r));
		return r;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		strip_comment(line);
		k = trim(line);
		if (!*k)
			continue;
		eq = strchr(k, '=');
		v = eq ? trim(eq + 1) : (char *)"";
		if (eq)
			*eq = 0;
		k = trim(k);
		/* "key 1:SECRET" (no '='): name only, the rest never shown */
		if (k[strcspn(k, " \t")]) {
			k[strcspn(k, " \t")] = 0;
			fprintf(stderr, "netoopsd: %s:%d: '%s' and its value need"
				" '=' between them\n", path, lineno, k);
			r = -EINVAL;
			break;
		}
		for (o = longopts; o->name; o++)
			if (!strcmp(o->name, k))
				break;
		if (!o->name || o->val == OPT_CONFIG || o->val == OPT_HELP ||
		    o->val == OPT_VERSION) {
			fprintf(stderr, "netoopsd: %s:%d: unknown option '%s'\n",
				path, lineno, k);
			r = -EINVAL;
			break;
		}
		if ((o->has_arg == required_argument) != !!eq) {
			fprintf(stderr, "netoopsd: %s:%d: '%s' %s a value\n",
				path, lineno, k,
				eq ? "does not take" : "needs");
			r = -EINVAL;
			break;
		}
		r = apply(c, o->val, v, why);
		if (r < 0) {
			/* a key is never echoed */
			fprintf(stderr, "netoopsd: %s:%d: bad value for %s%s%s%s"
				"%s%s\n", path, lineno, k,
				o->val == OPT_KEY ? "" : " '",
				o->val == OPT_KEY ? "" : v,
				o->val == OPT_KEY ? "" : "'",
				*why ? ": " : "", why);
			break;
		}
	}
	fclose(f);
	return r;
}

/* Return: 0 to run, 1 after --help, negative errno on a bad option. */
int config_parse_args(struct config *c, int argc, char **argv)
{
	char why[WHY_LEN];
	int opt, r;

	while ((opt = getopt_long(argc, argv, "p:l:d:c:w:vh", longopts,
				  NULL)) != -1) {
		if (opt == OPT_HELP) {
			usage(stdout);
			return 1;
		}
		if (opt == OPT_VERSION) {
			printf("netoopsd %s (wire protocol %d)\n",
			       NETOOPS_TOOLS_VERSION, NETOOPS_VERSION);
			return 1;
		}
		if (opt == '?')
			return -EINVAL;
		r = apply(c, opt, optarg, why);
		if (opt == OPT_KEY) {
			/* Gone from /proc/PID/cmdline from now on. */
			fprintf(stderr, "netoopsd: warning: --key shows the key"
				" to every user (ps); use --key-file\n");
			memset(optarg, 'x', strlen(optarg));
		}
		if (r < 0) {
			const struct option *o = longopts;

			while (o->name && o->val != opt)
				o++;
			if (opt == OPT_KEY)
				fprintf(stderr, "netoopsd: bad value for --key:"
					" %s\n", why);
			else if (opt != OPT_CONFIG)
				fprintf(stderr, "netoopsd: bad value for --%s"
					" '%s'%s%s\n", o->name ? o->name : "?",
					optarg, *why ? ": " : "", why);
			return r;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "netoopsd: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}
