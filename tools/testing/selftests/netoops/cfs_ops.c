// SPDX-License-Identifier: GPL-2.0
/*
 * cfs_ops - run configfs operations read from stdin and print what each
 * did, for netconsole_diff.sh.  One process runs a whole script, so that
 * a thousand writes cost no thousand process starts under TCG.
 *
 * Input, one operation per line, fields separated by a TAB; values use the
 * escapes \n \t \\ \0 and \xHH:
 *	mkdir PATH		rmdir PATH
 *	write PATH VALUE	one write(2) of VALUE; prints the result and
 *				what PATH reads afterwards; for *_ip, marks
 *				[ipv4-text] a VALUE that has no ':' and is not
 *				a dotted quad (less one trailing newline)
 *	read PATH
 *	snap DIR		one line: every readable attribute of DIR
 *				(and of DIR's subdirectories) as name=value
 *	list DIR		the entries of DIR, sorted, with their modes
 *	# TEXT			printed as is
 * Output: one line per operation.  A result is "ok", "short N" (write(2)
 * took N of the bytes) or the errno's name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <unistd.h>

#define VAL_MAX 8192

/* Decode the escapes of @in into @out; return the length. */
static size_t unescape(const char *in, char *out)
{
	size_t n = 0;

	while (*in && n < VAL_MAX) {
		if (*in != '\\' || !in[1]) {
			out[n++] = *in++;
			continue;
		}
		in++;
		switch (*in) {
		case 'n':
			out[n++] = '\n';
			in++;
			break;
		case 't':
			out[n++] = '\t';
			in++;
			break;
		case '0':
			out[n++] = '\0';
			in++;
			break;
		case 'x': {
			unsigned int v = 0;

			if (sscanf(in + 1, "%2x", &v) == 1) {
				out[n++] = (char)v;
				in += 3;
			} else {
				out[n++] = 'x';
				in++;
			}
			break;
		}
		default:
			out[n++] = *in++;
			break;
		}
	}
	return n;
}

/* Print @len bytes of @s with the same escapes, bounded for long values. */
static void show(const char *s, size_t len)
{
	size_t i;

	if (len > 80) {
		size_t same = 1;

		while (same < len && s[same] == s[0])
			same++;
		if (same == len) {
			printf("<%zu x ", len);
			show(s, 1);
			printf(">");
			return;
		}
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			printf("\\n");
		else if (c == '\t')
			printf("\\t");
		else if (c == '\\')
			printf("\\\\");
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static const char *err_name(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

/* Read @path into @buf; return the length or -errno. */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while ((size_t)got < size &&
	       (n = read(fd, buf + got, size - got)) > 0)
		got += n;
	if (n < 0)
		got = -errno;
	close(fd);
	return got;
}

static void print_read(const char *path)
{
	static char buf[VAL_MAX];
	ssize_t n = slurp(path, buf, sizeof(buf));

	if (n < 0)
		printf("%s", err_name((int)-n));
	else
		show(buf, (size_t)n);
}

/* Text the kernel must not take for an IPv4 address (see above). */
static int bad_ipv4_text(const char *v, size_t len)
{
	char buf[64];
	struct in_addr a;

	if (len && v[len - 1] == '\n')
		len--;
	if (memchr(v, ':', len))
		return 0;
	if (len >= sizeof(buf) || memchr(v, '\0', len))
		return 1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	return inet_pton(AF_INET, buf, &a) != 1;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* The sorted entries of @dir (without . and ..); NULL if unreadable. */
static char **entries(const char *dir, size_t *count)
{
	struct dirent *de;
	char **v = malloc(sizeof(*v));
	size_t n = 0;
	DIR *d = opendir(dir);

	if (!d || !v) {
		int e = errno;

		free(v);
		if (d)
			closedir(d);
		errno = e;
		return NULL;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		if (!v)
			exit(2);
		v[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp);
	*count = n;
	return v;
}

/*
 * Call @fn with the path and name of each entry of @dir, sorted; print the
 * errno's name if @dir cannot be read.
 */
static void each_entry(const char *dir,
		       void (*fn)(const char *path, const char *name,
				  const void *arg),
		       const void *arg)
{
	size_t i, n = 0;
	char **v = entries(dir, &n);
	char path[4096];

	if (!v) {
		printf(" %s", err_name(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, v[i]);
		fn(path, v[i], arg);
		free(v[i]);
	}
	free(v);
}

/* snap: a readable attribute as PREFIXname=value; a directory, its own. */
static void snap_entry(const char *path, const char *name, const void *arg)
{
	const char *prefix = arg;
	char sub[512];
	struct stat st;

	if (stat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		snprintf(sub, sizeof(sub), "%s%s/", prefix, name);
		each_entry(path, snap_entry, sub);
	} else if (st.st_mode & 0444) {
		printf(" %s%s=", prefix, name);
		print_read(path);
	}
}

/* list: name:MODE, MODE with a 'd' before it for a directory. */
static void list_entry(const char *path, const char *name, const void *arg)
{
	struct stat st;

	(void)arg;
	if (stat(path, &st) == 0)
		printf(" %s:%s%03o", name, S_ISDIR(st.st_mode) ? "d" : "",
		       st.st_mode & 07777);
	else
		printf(" %s:?", name);
}

int main(void)
{
	static char line[4 * VAL_MAX], val[VAL_MAX];
	char *op, *path, *arg;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0]) {
			puts(line);
			continue;
		}
		op = strtok(line, "\t");
		path = strtok(NULL, "\t");
		arg = strtok(NULL, "");
		if (!path) {
			printf("bad line: %s\n", op);
			return 2;
		}
		printf("%s %s", op, path);
		if (!strcmp(op, "mkdir")) {
			printf(": %s", mkdir(path, 0755) ? err_name(errno) : "ok");
		} else if (!strcmp(op, "rmdir")) {
			printf(": %s", rmdir(path) ? err_name(errno) : "ok");
		} else if (!strcmp(op, "write")) {
			size_t len = unescape(arg ? arg : "", val);
			int fd = open(path, O_WRONLY);
			ssize_t w;

			printf(" '");
			show(val, len);
			printf("': ");
			if (fd < 0) {
				printf("%s", err_name(errno));
			} else {
				w = write(fd, val, len);
				if (w < 0)
					printf("%s", err_name(errno));
				else if ((size_t)w != len)
					printf("short %zd", w);
				else
					printf("ok");
				close(fd);
			}
			printf(" -> ");
			print_read(path);
			len = strlen(path);
			if (len > 3 && !strcmp(path + len - 3, "_ip") &&
			    bad_ipv4_text(val, unescape(arg ? arg : "", val)))
				printf(" [ipv4-text]");
		} else if (!strcmp(op, "read")) {
			printf(": ");
			print_read(path);
		} else if (!strcmp(op, "snap")) {
			printf(":");
			each_entry(path, snap_entry, "");
		} else if (!strcmp(op, "list")) {
			printf(":");
			each_entry(path, list_entry, NULL);
		} else {
			printf(": unknown operation\n");
			return 2;
		}
		putchar('\n');
	}
	return 0;
}
