// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd as a black box: the helpers the suites that run it share
 * (harness.h).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <libpq-fe.h>

#include "harness.h"

struct harness_current current;

bool harness_skip(const char *target)
{
	if (getenv("NETOOPSD") && getenv("NETOOPS_CLI"))
		return false;
	printf("SKIP: set NETOOPSD and NETOOPS_CLI to the programs under"
	       " test (make %s does)\n", target);
	return true;
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

void nap(void)
{
	struct timespec ts = { 0, 20 * 1000000 };

	nanosleep(&ts, NULL);	/* the poll interval of a condition wait */
}

void harness_exec(const char *const *argv, const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || dup2(fd, 2) < 0)
		_exit(126);
	execv(argv[0], (char **)argv);
	_exit(127);
}

void harness_wait_ready(pid_t pid, const char *ready, const char *log,
			uint64_t deadline_ms, int *ret_port, int *ret_mport)
{
	FILE *f;

	while (!(f = fopen(ready, "r"))) {
		int st;

		if (waitpid(pid, &st, WNOHANG))
			fail_msg("netoopsd exited before it was ready: see %s",
				 log);
		assert_true(now_ms() < deadline_ms);
		nap();
	}
	assert_int_equal(fscanf(f, "port=%d\nmetrics_port=%d", ret_port,
				ret_mport), 2);
	fclose(f);
}

void harness_dir(struct harness_daemon *d, const char *tag)
{
	memset(d, 0, sizeof(*d));
	if (snprintf(d->dir, sizeof(d->dir), "/tmp/netoops-%s-XXXXXX", tag) >=
	    (int)sizeof(d->dir))
		fail_msg("directory tag too long: %s", tag);
	assert_non_null(mkdtemp(d->dir));
	snprintf(d->db, sizeof(d->db), "%s/n.db", d->dir);
	snprintf(d->ready, sizeof(d->ready), "%s/ready", d->dir);
	snprintf(d->log, sizeof(d->log), "%s/netoopsd.log", d->dir);
	current.active = true;
	current.pid = 0;
	memcpy(current.dir, d->dir, sizeof(current.dir));
}

/* Appends NULL-terminated @args to @argv, holding *@n of HARNESS_MAX_ARGS. */
static void add_args(const char **argv, size_t *n, const char *const *args)
{
	for (; args && *args; args++) {
		if (*n >= HARNESS_MAX_ARGS - 1)	/* room for the NULL */
			fail_msg("more than %d arguments for netoopsd",
				 HARNESS_MAX_ARGS - 2);
		argv[(*n)++] = *args;
	}
}

void harness_start(struct harness_daemon *d, const char *const *base,
		   const char *const *extra, uint64_t wait_ms)
{
	const char *argv[HARNESS_MAX_ARGS];
	uint64_t end = now_ms() + wait_ms;
	size_t n = 0;

	argv[n++] = getenv("NETOOPSD");
	assert_non_null(argv[0]);
	add_args(argv, &n, base);
	add_args(argv, &n, extra);
	argv[n] = NULL;
	unlink(d->ready);	/* a restart waits for a new one */
	d->pid = fork();
	assert_true(d->pid >= 0);
	current.pid = d->pid;
	if (!d->pid)
		harness_exec(argv, d->log);
	harness_wait_ready(d->pid, d->ready, d->log, end, &d->port,
			   &d->mport);
	assert_true(d->port > 0);
	assert_true(d->mport > 0);
}

int harness_stop(pid_t *pid)
{
	int st;

	assert_int_equal(kill(*pid, SIGTERM), 0);
	assert_int_equal(waitpid(*pid, &st, 0), *pid);
	*pid = 0;
	current.pid = 0;
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

void harness_cleanup(const char *dir)
{
	char cmd[160];

	current.active = false;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* After a failed test: no daemon left behind, its directory kept. */
int harness_teardown(void **state)
{
	(void)state;
	if (!current.active)
		return 0;
	if (current.pid > 0) {
		kill(current.pid, SIGKILL);
		waitpid(current.pid, NULL, 0);
		current.pid = 0;
	}
	fprintf(stderr, "test failed: evidence kept in %s\n", current.dir);
	current.active = false;
	return 0;
}

void harness_send_raw(int port, const void *buf, size_t len)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(sendto(fd, buf, len, 0, (struct sockaddr *)&sa,
				sizeof(sa)), (ssize_t)len);
	close(fd);
}

double harness_metric(int mport, const char *name)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	static char buf[65536];
	size_t len = 0;
	ssize_t n;
	char req[128], *p;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	sa.sin_port = htons(mport);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(req, sizeof(req), "GET /metrics HTTP/1.0\r\n"
		 "Host: 127.0.0.1\r\n\r\n");
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	assert_non_null(strstr(buf, "200 OK"));
	for (p = buf; (p = strstr(p, name)); p++)
		if ((p == buf || p[-1] == '\n') && p[strlen(name)] == ' ')
			return strtod(p + strlen(name), NULL);
	return -1;
}

double harness_wait_metric(int mport, const char *name, double want,
			   uint64_t wait_ms, const char *log)
{
	uint64_t end = now_ms() + wait_ms;
	double v;

	while ((v = harness_metric(mport, name)) < want) {
		if (now_ms() > end)
			fail_msg("%s stayed at %g, wanted %g (log: %s)", name,
				 v, want, log);
		nap();
	}
	return v;
}

/*
 * popen() of `$NETOOPS_CLI --db @db @args`, that command line in @cmd
 * (@len bytes) for messages.
 */
static FILE *cli_open(const char *db, const char *args, char *cmd,
		      size_t len)
{
	const char *bin = getenv("NETOOPS_CLI");
	FILE *f;

	assert_non_null(bin);
	if (snprintf(cmd, len, "%s --db %s %s", bin, db, args) >= (int)len)
		fail_msg("command longer than %zu bytes: %s --db %s %s", len,
			 bin, db, args);
	f = popen(cmd, "r");
	assert_non_null(f);
	return f;
}

/* pclose() of what cli_open() started; its exit status. */
static int cli_close(FILE *f)
{
	int st = pclose(f);

	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

int harness_cli(const char *db, const char *args, char *out, size_t cap)
{
	char cmd[1024];
	FILE *f = cli_open(db, args, cmd, sizeof(cmd));
	size_t len = 0, n;

	while (cap && (n = fread(out + len, 1, cap - 1 - len, f)) > 0)
		len += n;
	if (cap)
		out[len] = 0;
	return cli_close(f);
}

json_t *harness_cli_json(const char *db, const char *args)
{
	return harness_cli_json_status(db, args, 0);
}

json_t *harness_cli_json_status(const char *db, const char *args, int status)
{
	char cmd[1024];
	FILE *f = cli_open(db, args, cmd, sizeof(cmd));
	json_error_t err;
	json_t *j;

	j = json_loadf(f, JSON_ALLOW_NUL, &err);	/* a log may hold NULs */
	if (!j)
		fail_msg("`%s`: bad JSON: %s (line %d)", cmd, err.text,
			 err.line);
	assert_int_equal(cli_close(f), status);
	return j;
}

json_t *harness_find_dump(json_t *list, const uint8_t boot[16])
{
	char hex[33];
	size_t i;
	json_t *d;

	for (i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", boot[i]);
	json_array_foreach(list, i, d)
		if (!strcmp(json_string_value(json_object_get(d, "boot_id")),
			    hex))
			return d;
	return NULL;
}

int64_t harness_disk_bytes(const char *db)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char p[4096];
	struct stat sb;
	int64_t n = 0;
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", db, sfx[i]);
		if (!stat(p, &sb))
			n += sb.st_size;
	}
	return n;
}

long long harness_pg_sql(const char *loc, const char *sql)
{
	PGconn *c = PQconnectdb(strncmp(loc, "pg:", 3) ? loc : loc + 3);
	ExecStatusType st;
	long long v = -1;
	PGresult *r;

	if (PQstatus(c) != CONNECTION_OK)
		fail_msg("%s: %s", loc, PQerrorMessage(c));
	r = PQexec(c, sql);
	st = PQresultStatus(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	if (st == PGRES_TUPLES_OK && PQntuples(r) && !PQgetisnull(r, 0, 0))
		v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	PQfinish(c);
	return v;
}

void harness_pg_empty(const char *loc)
{
	harness_pg_sql(loc, "SET client_min_messages = warning;"
		       " DROP TABLE IF EXISTS dumps, netoops_schema_version");
}

void harness_pg_ctl(const char *what)
{
	const char *ctl = getenv("NETOOPS_PG_CTL");
	char cmd[512];

	assert_non_null(ctl);
	snprintf(cmd, sizeof(cmd), "%s %s", ctl, what);
	assert_int_equal(system(cmd), 0);
}
