// SPDX-License-Identifier: GPL-2.0
/*
 * netoops spool: the files of dumps waiting for the store (spool.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/netoops.h>
#include <zlib.h>

#include "spool.h"

#define BATCH_MAGIC	"NOSPOOL\n"
/* 2: records end with the collector's name and the datagrams (merging);
 * batches of version 1, left by an older netoopsd, are still read
 */
#define BATCH_VERSION	2
#define BATCH_HDR	16	/* magic, le32 version, le32 count */
#define REC_HDR		8	/* le32 length, le32 CRC-32 */
#define NIL		0xffffffffu	/* the length of a NULL */

struct nspool {
	int dirfd;		/* DIR */
	int resfd;		/* DIR/resume */
	int lockfd;		/* DIR/lock, flock()ed */
	unsigned int flags;
	uint64_t next_seq;	/* of the next batch (nspool_batch_write) */
};

/* ---- records --------------------------------------------------------- */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void w_bytes(struct wbuf *b, const void *src, size_t n)
{
	uint8_t *p;
	size_t cap;

	if (b->err)
		return;
	if (n > b->cap - b->len) {
		cap = b->cap ? b->cap : 1024;
		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->err = -ENOMEM;
				return;
			}
			cap *= 2;
		}
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void le_put(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t le_get(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void w_int(struct wbuf *b, uint64_t v, int n)
{
	uint8_t x[8];

	le_put(x, v, n);
	w_bytes(b, x, n);
}

#define w_u8(b, v)	w_int(b, v, 1)
#define w_u16(b, v)	w_int(b, v, 2)
#define w_u32(b, v)	w_int(b, v, 4)
#define w_u64(b, v)	w_int(b, (uint64_t)(v), 8)

/* A blob or string: le32 length (NIL for NULL), the bytes. */
static void w_blob(struct wbuf *b, const void *p, size_t n)
{
	if (!p) {
		w_u32(b, NIL);
		return;
	}
	if (n >= NIL) {
		if (!b->err)
			b->err = -EMSGSIZE;
		return;
	}
	w_u32(b, n);
	w_bytes(b, p, n);
}

static void w_str(struct wbuf *b, const char *s)
{
	w_blob(b, s, s ? strlen(s) : 0);
}

static void encode_into(struct wbuf *b, const struct nstore_dump *d)
{
	size_t i;

	w_bytes(b, d->boot_id, 16);
	w_u64(b, d->dump_id);
	w_str(b, d->hostname);
	w_str(b, d->release);
	w_str(b, d->version);
	w_str(b, d->arch);
	w_u32(b, d->reason);
	w_u32(b, d->oops_count);
	w_u32(b, d->part);
	w_u32(b, d->cpu);
	w_u8(b, d->have_time);
	w_u64(b, d->wall_sec);
	w_u32(b, d->wall_nsec);
	w_u64(b, d->uptime_ns);
	w_u8(b, d->have_taint);
	w_u64(b, d->taint);
	w_str(b, d->cpu_desc);
	w_u16(b, d->regs_arch);
	w_u8(b, d->regs_context);
	w_u16(b, d->nr_regs);
	for (i = 0; i < d->nr_regs; i++)
		w_u64(b, d->regs[i]);
	w_u32(b, d->nr_user);
	for (i = 0; i < d->nr_user; i++) {
		w_str(b, d->user[i].key);
		w_str(b, d->user[i].value);
	}
	w_u8(b, d->complete);
	w_u32(b, d->pkt_count);
	w_u32(b, d->pkt_received);
	w_u32(b, d->compression);
	w_u32(b, d->payload_total);
	w_u32(b, d->nr_gaps);
	for (i = 0; i < d->nr_gaps; i++) {
		w_u64(b, d->gaps[i].off);
		w_u64(b, d->gaps[i].len);
	}
	w_u64(b, d->log_len);
	w_blob(b, d->log, d->log ? d->log_len : 0);
	w_blob(b, d->log_z, d->log_z_len);
	w_str(b, d->src);
	w_u64(b, d->received_ms);
	w_u64(b, d->stored_ms);
	w_str(b, d->sig_title);
	w_str(b, d->sig_frames);
	w_str(b, d->sig_hash);
	w_u8(b, d->authenticated);
	w_u32(b, d->auth_key_id);
	w_str(b, d->collectors);
	w_blob(b, d->pieces, d->pieces_len);
	if (!b->err && (d->nr_user >= NIL || d->nr_gaps >= NIL))
		b->err = -EMSGSIZE;
}

int nspool_encode(const struct nstore_dump *d, uint8_t **ret, size_t *ret_len)
{
	struct wbuf b = { 0 };

	if (!d || !ret || !ret_len)
		return -EINVAL;
	encode_into(&b, d);
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*ret = b.p;
	*ret_len = b.len;
	return 0;
}

struct rbuf {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

static const uint8_t *r_bytes(struct rbuf *b, size_t n)
{
	const uint8_t *p;

	if (b->bad || n > b->len - b->off) {
		b->bad = true;
		return NULL;
	}
	p = b->p + b->off;
	b->off += n;
	return p;
}

static uint64_t r_int(struct rbuf *b, int n)
{
	const uint8_t *p = r_bytes(b, n);

	return p ? le_get(p, n) : 0;
}

#define r_u8(b)		((uint8_t)r_int(b, 1))
#define r_u16(b)	((uint16_t)r_int(b, 2))
#define r_u32(b)	((uint32_t)r_int(b, 4))
#define r_u64(b)	r_int(b, 8)

/* A blob as w_blob() wrote it, copied with a NUL after it; NULL for NIL. */
static void *r_blob(struct rbuf *b, size_t *ret_len)
{
	uint32_t n = r_u32(b);
	const uint8_t *p;
	uint8_t *c;

	*ret_len = 0;
	if (b->bad || n == NIL)
		return NULL;
	p = r_bytes(b, n);
	if (!p)
		return NULL;
	c = malloc((size_t)n + 1);
	if (!c) {
		b->bad = true;	/* reported as -EBADMSG: rare enough */
		return NULL;
	}
	memcpy(c, p, n);
	c[n] = 0;
	*ret_len = n;
	return c;
}

static char *r_str(struct rbuf *b)
{
	size_t n;

	return r_blob(b, &n);
}

/* Whether @n entries of at least @each bytes can still follow. */
static bool room_for(struct rbuf *b, uint64_t n, size_t each)
{
	if (b->bad || n > (b->len - b->off) / each) {
		b->bad = true;
		return false;
	}
	return true;
}

static int decode_v(const void *buf, size_t len, unsigned int version,
		    struct nstore_dump **ret)
{
	struct rbuf b = { .p = buf, .len = len };
	struct nstore_dump *d;
	const uint8_t *id;
	size_t i, n;

	if (!buf || !ret)
		return -EINVAL;
	d = nstore_dump_new();
	if (!d)
		return -ENOMEM;
	id = r_bytes(&b, 16);
	if (id)
		memcpy(d->boot_id, id, 16);
	d->dump_id = r_u64(&b);
	d->hostname = r_str(&b);
	d->release = r_str(&b);
	d->version = r_str(&b);
	d->arch = r_str(&b);
	d->reason = r_u32(&b);
	d->oops_count = r_u32(&b);
	d->part = r_u32(&b);
	d->cpu = r_u32(&b);
	d->have_time = r_u8(&b);
	d->wall_sec = (int64_t)r_u64(&b);
	d->wall_nsec = r_u32(&b);
	d->uptime_ns = r_u64(&b);
	d->have_taint = r_u8(&b);
	d->taint = r_u64(&b);
	d->cpu_desc = r_str(&b);
	d->regs_arch = r_u16(&b);
	d->regs_context = r_u8(&b);
	n = r_u16(&b);
	if (n && room_for(&b, n, 8)) {
		d->regs = calloc(n, sizeof(*d->regs));
		if (!d->regs)
			goto nomem;
		d->nr_regs = n;
		for (i = 0; i < n; i++)
			d->regs[i] = r_u64(&b);
	}
	n = r_u32(&b);
	if (n && room_for(&b, n, 8)) {
		d->user = calloc(n, sizeof(*d->user));
		if (!d->user)
			goto nomem;
		for (i = 0; i < n && !b.bad; i++) {
			d->user[i].key = r_str(&b);
			d->user[i].value = r_str(&b);
			d->nr_user++;
			if (!d->user[i].key || !d->user[i].value)
				b.bad = true;
		}
	}
	d->complete = r_u8(&b);
	d->pkt_count = r_u32(&b);
	d->pkt_received = r_u32(&b);
	d->compression = r_u32(&b);
	d->payload_total = r_u32(&b);
	n = r_u32(&b);
	if (n && room_for(&b, n, 16)) {
		d->gaps = calloc(n, sizeof(*d->gaps));
		if (!d->gaps)
			goto nomem;
		d->nr_gaps = n;
		for (i = 0; i < n; i++) {
			d->gaps[i].off = r_u64(&b);
			d->gaps[i].len = r_u64(&b);
		}
	}
	d->log_len = r_u64(&b);
	d->log = r_blob(&b, &n);
	if (d->log && n != d->log_len)
		b.bad = true;
	d->log_z = r_blob(&b, &d->log_z_len);
	d->src = r_str(&b);
	d->received_ms = (int64_t)r_u64(&b);
	d->stored_ms = (int64_t)r_u64(&b);
	d->sig_title = r_str(&b);
	d->sig_frames = r_str(&b);
	d->sig_hash = r_str(&b);
	d->authenticated = r_u8(&b);
	d->auth_key_id = r_u32(&b);
	if (version >= 2) {
		d->collectors = r_str(&b);
		d->pieces = r_blob(&b, &d->pieces_len);
	}
	if (b.bad || b.off != b.len) {
		nstore_dump_free(d);
		return -EBADMSG;
	}
	*ret = d;
	return 0;
nomem:
	nstore_dump_free(d);
	return -ENOMEM;
}

int nspool_decode(const void *buf, size_t len, struct nstore_dump **ret)
{
	return decode_v(buf, len, BATCH_VERSION, ret);
}

/* ---- files ----------------------------------------------------------- */

static int write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/* NAME.tmp, flushed, renamed to NAME, directory flushed; or nothing. */
static int write_file(struct nspool *sp, int dirfd, const char *name,
		      const void *buf, size_t len)
{
	bool sync = !(sp->flags & NSPOOL_NOSYNC);
	char tmp[NAME_MAX + 1];
	int fd, r;

	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0640);
	if (fd < 0)
		return -errno;
	r = write_all(fd, buf, len);
	if (!r && sync && fdatasync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r) {
		unlinkat(dirfd, tmp, 0);
		return r;
	}
	if (sync && fsync(dirfd) < 0) {
		r = -errno;
		unlinkat(dirfd, name, 0);
		return r;
	}
	return 0;
}

static int read_file(int dirfd, const char *name, uint8_t **ret,
		     size_t *ret_len)
{
	struct stat st;
	size_t len = 0;
	uint8_t *buf;
	ssize_t n;
	int fd, r = 0;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < (size_t)st.st_size) {
		n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EBADMSG;	/* it shrank */
			break;
		}
		len += n;
	}
	close(fd);
	if (r) {
		free(buf);
		return r;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* Calls @fn for each entry of directory @dirfd; stops at its error. */
static int each_entry(int dirfd, int (*fn)(void *arg, const char *name),
		      void *arg)
{
	struct dirent *e;
	DIR *dir;
	int fd, r = 0;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		r = -errno;
		close(fd);
		return r;
	}
	while (!r) {
		errno = 0;
		e = readdir(dir);
		if (!e) {
			r = -errno;
			break;
		}
		if (e->d_name[0] != '.')
			r = fn(arg, e->d_name);
	}
	closedir(dir);
	return r;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* "batch-<16 hex>.SUFFIX": its sequence number. */
static bool batch_name(const char *name, const char *suffix, uint64_t *seq)
{
	char hex[17];
	int i;

	if (strncmp(name, "batch-", 6) || strlen(name) != 6 + 16 +
	    strlen(suffix) || strcmp(name + 22, suffix))
		return false;
	for (i = 0; i < 16; i++) {
		hex[i] = name[6 + i];
		if (!strchr("0123456789abcdef", hex[i]))
			return false;
	}
	hex[16] = 0;
	*seq = strtoull(hex, NULL, 16);
	return true;
}

static void batch_file(char *buf, size_t len, uint64_t seq, const char *sfx)
{
	snprintf(buf, len, "batch-%016" PRIx64 "%s", seq, sfx);
}

struct open_scan {
	struct nspool *sp;
	int dirfd;
};

/* At open: remove what a crash left half written, find the next seq. */
static int open_scan_one(void *arg, const char *name)
{
	struct open_scan *s = arg;
	uint64_t seq;

	if (ends_with(name, ".tmp"))
		unlinkat(s->dirfd, name, 0);
	else if ((batch_name(name, ".nsp", &seq) ||
		  batch_name(name, ".bad", &seq)) && seq >= s->sp->next_seq)
		s->sp->next_seq = seq + 1;
	return 0;
}

void nspool_close(struct nspool *sp)
{
	if (!sp)
		return;
	if (sp->resfd >= 0)
		close(sp->resfd);
	if (sp->dirfd >= 0)
		close(sp->dirfd);
	if (sp->lockfd >= 0)
		close(sp->lockfd);	/* releases the flock */
	free(sp);
}

int nspool_open(const char *dir, unsigned int flags, struct nspool **ret)
{
	struct open_scan s;
	struct nspool *sp;
	int r;

	if (!dir || !*dir || !ret)
		return -EINVAL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	sp->dirfd = sp->resfd = sp->lockfd = -1;
	sp->flags = flags;
	sp->next_seq = 1;
	if (mkdir(dir, 0750) < 0 && errno != EEXIST)
		goto fail_errno;
	sp->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sp->dirfd < 0)
		goto fail_errno;
	sp->lockfd = openat(sp->dirfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC,
			    0640);
	if (sp->lockfd < 0)
		goto fail_errno;
	if (flock(sp->lockfd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto fail;
	}
	if (mkdirat(sp->dirfd, "resume", 0750) < 0 && errno != EEXIST)
		goto fail_errno;
	sp->resfd = openat(sp->dirfd, "resume",
			   O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sp->resfd < 0)
		goto fail_errno;
	s.sp = sp;
	s.dirfd = sp->dirfd;
	r = each_entry(sp->dirfd, open_scan_one, &s);
	if (!r) {
		s.dirfd = sp->resfd;
		r = each_entry(sp->resfd, open_scan_one, &s);
	}
	if (r)
		goto fail;
	*ret = sp;
	return 0;
fail_errno:
	r = -errno;
fail:
	nspool_close(sp);
	return r;
}

/* ---- batches --------------------------------------------------------- */

int nspool_batch_write(struct nspool *sp, struct nstore_dump *const *d,
		       size_t n, uint64_t *ret_seq, uint64_t *ret_size)
{
	struct wbuf b = { 0 };
	char name[64];
	size_t i, at;
	uint64_t seq;
	int r;

	if (!sp || !d || !n || n >= NIL)
		return -EINVAL;
	w_bytes(&b, BATCH_MAGIC, 8);
	w_u32(&b, BATCH_VERSION);
	w_u32(&b, n);
	for (i = 0; i < n && !b.err; i++) {
		at = b.len;
		w_u64(&b, 0);		/* length and CRC, set below */
		encode_into(&b, d[i]);
		if (b.err)
			break;
		if (b.len - at - REC_HDR >= NIL) {
			b.err = -EMSGSIZE;
			break;
		}
		le_put(b.p + at, b.len - at - REC_HDR, 4);
		le_put(b.p + at + 4, crc32(0, b.p + at + REC_HDR,
					   b.len - at - REC_HDR), 4);
	}
	if (b.err) {
		free(b.p);
		return b.err;
	}
	seq = sp->next_seq++;
	batch_file(name, sizeof(name), seq, ".nsp");
	r = write_file(sp, sp->dirfd, name, b.p, b.len);
	free(b.p);
	if (r)
		return r;
	if (ret_seq)
		*ret_seq = seq;
	if (ret_size)
		*ret_size = b.len;
	return 0;
}

static void free_recs(struct nstore_dump **recs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		nstore_dump_free(recs[i]);
	free(recs);
}

int nspool_batch_read(struct nspool *sp, uint64_t seq,
		      struct nstore_dump ***ret, size_t *ret_n)
{
	struct nstore_dump **recs = NULL;
	size_t len, off, i, n = 0;
	unsigned int version;
	uint32_t count, rlen;
	char name[64];
	uint8_t *buf;
	int r;

	if (!sp || !ret || !ret_n)
		return -EINVAL;
	batch_file(name, sizeof(name), seq, ".nsp");
	r = read_file(sp->dirfd, name, &buf, &len);
	if (r)
		return r;
	r = -EBADMSG;
	if (len < BATCH_HDR || memcmp(buf, BATCH_MAGIC, 8) ||
	    le_get(buf + 8, 4) < 1 || le_get(buf + 8, 4) > BATCH_VERSION)
		goto out;
	version = le_get(buf + 8, 4);
	count = le_get(buf + 12, 4);
	if (!count || count > (len - BATCH_HDR) / REC_HDR)
		goto out;
	recs = calloc(count, sizeof(*recs));
	if (!recs) {
		r = -ENOMEM;
		goto out;
	}
	for (off = BATCH_HDR, i = 0; i < count; i++) {
		if (len - off < REC_HDR)
			goto out;
		rlen = le_get(buf + off, 4);
		if (rlen > len - off - REC_HDR ||
		    crc32(0, buf + off + REC_HDR, rlen) !=
		    le_get(buf + off + 4, 4))
			goto out;
		r = decode_v(buf + off + REC_HDR, rlen, version, &recs[n]);
		if (r)
			goto out;
		n++;
		r = -EBADMSG;
		off += REC_HDR + rlen;
	}
	if (off != len)
		goto out;
	r = 0;
	*ret = recs;
	*ret_n = n;
	recs = NULL;
out:
	if (recs)
		free_recs(recs, n);
	free(buf);
	return r;
}

int nspool_batch_remove(struct nspool *sp, uint64_t seq)
{
	char name[64];

	batch_file(name, sizeof(name), seq, ".nsp");
	return unlinkat(sp->dirfd, name, 0) < 0 ? -errno : 0;
}

int nspool_batch_set_aside(struct nspool *sp, uint64_t seq)
{
	char from[64], to[64];

	batch_file(from, sizeof(from), seq, ".nsp");
	batch_file(to, sizeof(to), seq, ".bad");
	return renameat(sp->dirfd, from, sp->dirfd, to) < 0 ? -errno : 0;
}

struct list_ctx {
	int dirfd;
	bool resume;
	struct nspool_file *f;
	size_t n, cap;
};

static int list_one(void *arg, const char *name)
{
	struct list_ctx *c = arg;
	struct nspool_file e = { 0 };
	struct stat st;

	if (c->resume) {
		const char *p;
		char hex[33];
		char *end;

		if (strlen(name) < 34 || name[32] != '-' ||
		    !ends_with(name, ".dgrams"))
			return 0;
		p = name + 32;
		memcpy(hex, name, 32);
		hex[32] = 0;
		errno = 0;
		e.dump_id = strtoull(p + 1, &end, 10);
		if (nstore_boot_id_parse(hex, e.boot_id) || strchr(hex, '-') ||
		    errno || end == p + 1 || strcmp(end, ".dgrams"))
			return 0;
	} else if (!batch_name(name, ".nsp", &e.seq)) {
		return 0;
	}
	if (fstatat(c->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	e.size = st.st_size;
	e.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
		     st.st_mtim.tv_nsec;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct nspool_file *f = realloc(c->f, cap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		c->f = f;
		c->cap = cap;
	}
	c->f[c->n++] = e;
	return 0;
}

static int by_seq(const void *a, const void *b)
{
	const struct nspool_file *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_mtime(const void *a, const void *b)
{
	const struct nspool_file *x = a, *y = b;

	return x->mtime_ns < y->mtime_ns ? -1 : x->mtime_ns > y->mtime_ns;
}

static int list(int dirfd, bool resume, struct nspool_file **ret,
		size_t *ret_n)
{
	struct list_ctx c = { .dirfd = dirfd, .resume = resume };
	int r;

	r = each_entry(dirfd, list_one, &c);
	if (r) {
		free(c.f);
		return r;
	}
	if (c.n)
		qsort(c.f, c.n, sizeof(*c.f), resume ? by_mtime : by_seq);
	*ret = c.f;
	*ret_n = c.n;
	return 0;
}

int nspool_batch_list(struct nspool *sp, struct nspool_file **ret,
		      size_t *ret_n)
{
	if (!sp || !ret || !ret_n)
		return -EINVAL;
	return list(sp->dirfd, false, ret, ret_n);
}

/* ---- resume files ---------------------------------------------------- */

size_t nspool_dgram_len(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t n;

	if (len < NETOOPS_HDR_LEN_V1 || memcmp(p, "NOPS", 4))
		return 0;
	n = p[5] + (size_t)(p[36] | p[37] << 8);
	return n >= NETOOPS_HDR_LEN_V1 && n <= len ? n : 0;
}

static void resume_file(char *buf, size_t len, const uint8_t boot_id[16],
			uint64_t dump_id)
{
	char hex[33];

	nstore_boot_id_hex(boot_id, hex);
	snprintf(buf, len, "%s-%" PRIu64 ".dgrams", hex, dump_id);
}

struct dgram {
	const uint8_t *p;
	size_t len;
};

static int dgram_cmp(const void *a, const void *b)
{
	const struct dgram *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->p, y->p, x->len);
}

/* The datagrams of @buf, or -EINVAL if it is not made of whole ones. */
static int split(const uint8_t *buf, size_t len, struct dgram **ret,
		 size_t *ret_n)
{
	struct dgram *v;
	size_t off, n = 0, k;

	v = malloc((len / NETOOPS_HDR_LEN_V1 + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (off = 0; off < len; off += k) {
		k = nspool_dgram_len(buf + off, len - off);
		if (!k) {
			free(v);
			return -EINVAL;
		}
		v[n].p = buf + off;
		v[n++].len = k;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* @new, then the datagrams of @old that are not in it. */
static int merge(const uint8_t *new, size_t new_len, const uint8_t *old,
		 size_t old_len, struct wbuf *out)
{
	struct dgram *nv, *ov;
	size_t nn, on, i;
	int r;

	r = split(new, new_len, &nv, &nn);
	if (r)
		return r;
	r = split(old, old_len, &ov, &on);
	if (r) {		/* an unreadable old file is replaced */
		free(nv);
		w_bytes(out, new, new_len);
		return out->err;
	}
	w_bytes(out, new, new_len);
	qsort(nv, nn, sizeof(*nv), dgram_cmp);
	for (i = 0; i < on; i++)
		if (!bsearch(&ov[i], nv, nn, sizeof(*nv), dgram_cmp))
			w_bytes(out, ov[i].p, ov[i].len);
	free(nv);
	free(ov);
	return out->err;
}

int nspool_resume_write(struct nspool *sp, const uint8_t boot_id[16],
			uint64_t dump_id, const void *dgrams, size_t len,
			uint64_t *ret_size)
{
	struct wbuf b = { 0 };
	uint8_t *old = NULL;
	size_t old_len = 0;
	struct dgram *v;
	char name[80];
	size_t n;
	int r;

	if (!sp || !boot_id || !dgrams || !len)
		return -EINVAL;
	r = split(dgrams, len, &v, &n);
	if (r)
		return r;
	free(v);
	resume_file(name, sizeof(name), boot_id, dump_id);
	r = read_file(sp->resfd, name, &old, &old_len);
	if (r && r != -ENOENT)
		return r;
	if (old) {
		r = merge(dgrams, len, old, old_len, &b);
		free(old);
		if (r) {
			free(b.p);
			return r;
		}
		r = write_file(sp, sp->resfd, name, b.p, b.len);
		len = b.len;
		free(b.p);
	} else {
		r = write_file(sp, sp->resfd, name, dgrams, len);
	}
	if (!r && ret_size)
		*ret_size = len;
	return r;
}

int nspool_resume_read(struct nspool *sp, const uint8_t boot_id[16],
		       uint64_t dump_id, uint8_t **ret, size_t *ret_len)
{
	char name[80];

	if (!sp || !boot_id || !ret || !ret_len)
		return -EINVAL;
	resume_file(name, sizeof(name), boot_id, dump_id);
	return read_file(sp->resfd, name, ret, ret_len);
}

int nspool_resume_remove(struct nspool *sp, const uint8_t boot_id[16],
			 uint64_t dump_id)
{
	char name[80];

	if (!sp || !boot_id)
		return -EINVAL;
	resume_file(name, sizeof(name), boot_id, dump_id);
	return unlinkat(sp->resfd, name, 0) < 0 ? -errno : 0;
}

int nspool_resume_list(struct nspool *sp, struct nspool_file **ret,
		       size_t *ret_n)
{
	if (!sp || !ret || !ret_n)
		return -EINVAL;
	return list(sp->resfd, true, ret, ret_n);
}
