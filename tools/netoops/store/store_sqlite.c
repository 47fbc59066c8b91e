// SPDX-License-Identifier: GPL-2.0
/*
 * netoops store in SQLite.
 *
 * One table, dumps, one row per (boot_id, dump_id).  The log is the last
 * column so that listing rows never walks a log's overflow pages.  WAL mode:
 * the CLI reads while the daemon writes; the daemon batches many dumps into
 * one transaction (nstore_put() with n > 1).
 *
 * Schema versions (meta.schema_version), each opener for writing migrates
 * an older database in one transaction (migrate()):
 *   1  the first
 *   2  dumps.auth_key: id of the key that verified every datagram of the
 *      dump, NULL when it was not authenticated.  Added by ALTER TABLE to
 *      an old database, so there it comes after the log; in a new one it
 *      comes before it.  Rows stored before the migration read as NULL.
 *   3  covering indexes for the grouped reads (buckets, nstore_count(), the
 *      dashboard): by signature, time, host and release, each with the
 *      columns those queries read, so that they never touch the rows
 *      (whose first page holds part of the log).  dumps_sig and dumps_host
 *      are their prefixes and go.
 *   4  dumps.collectors (names of the collectors whose copies the row was
 *      built from), dumps.conflicts (datagrams of other copies left out)
 *      and dumps.pieces (the datagrams of a partial dump, to merge another
 *      copy with: store/merge.c; NULL once complete).  pieces comes after
 *      the log, in a new database too: only a put reads it.
 * A read-only opener of a version 1 database (not yet migrated: netoopsd
 * not restarted) reads NULL for the columns it lacks.
 *
 * dumps.id is AUTOINCREMENT in a store created since retention: an id is
 * never given twice, even after a prune that emptied the table.  Older
 * stores keep their table (SQLite cannot add it by ALTER TABLE).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"
#include "store_enc.h"

#define SCHEMA_VERSION 4
#define STR(x)		#x
#define XSTR(x)		STR(x)

struct sqlite_store {
	struct nstore base;	/* must be first */
	sqlite3 *db;
	sqlite3_stmt *put;	/* the upsert, prepared once */
	char *path;
	const char *auth_col;	/* "auth_key", or "NULL" before version 2 */
	const char *more_cols;	/* collectors and conflicts, or NULL and 0
				 * before version 4 */
	bool rdonly;		/* opened NSTORE_RDONLY */
};

/* Version 3's indexes: in a new database, and added to an older one. */
#define INDEXES_V3 \
	"CREATE INDEX IF NOT EXISTS dumps_sig3 ON dumps(sig_hash, hostname," \
	" release, received_ms);" \
	"CREATE INDEX IF NOT EXISTS dumps_time3 ON dumps(received_ms," \
	" sig_hash, hostname, release);" \
	"CREATE INDEX IF NOT EXISTS dumps_host3 ON dumps(hostname, sig_hash," \
	" received_ms);" \
	"CREATE INDEX IF NOT EXISTS dumps_release3 ON dumps(release," \
	" sig_hash, received_ms);"

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value);"
	"CREATE TABLE IF NOT EXISTS dumps("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" boot_id TEXT NOT NULL, dump_id INTEGER NOT NULL,"
	" hostname TEXT, release TEXT, version TEXT, arch TEXT,"
	" reason INTEGER NOT NULL, oops_count INTEGER, part INTEGER,"
	" cpu INTEGER, wall_sec INTEGER, wall_nsec INTEGER,"
	" uptime_ns INTEGER, taint INTEGER, cpu_desc TEXT,"
	" regs_arch INTEGER, regs_context INTEGER, regs BLOB, user TEXT,"
	" complete INTEGER NOT NULL, pkt_count INTEGER, pkt_received INTEGER,"
	" compression INTEGER, payload_total INTEGER, gaps TEXT,"
	" src TEXT, received_ms INTEGER NOT NULL, stored_ms INTEGER,"
	" sig_title TEXT, sig_frames TEXT, sig_hash TEXT, auth_key INTEGER,"
	" collectors TEXT, conflicts INTEGER NOT NULL DEFAULT 0,"
	" log_len INTEGER NOT NULL, log_enc INTEGER NOT NULL, log BLOB,"
	" pieces BLOB, UNIQUE(boot_id, dump_id));"
	"CREATE INDEX IF NOT EXISTS dumps_received ON dumps(received_ms);"
	INDEXES_V3
	"INSERT OR IGNORE INTO meta VALUES('schema_version', "
	XSTR(SCHEMA_VERSION) ");";

/* Statements of each migration from version i + 1 to i + 2. */
static const char *const migrations[SCHEMA_VERSION - 1] = {
	"ALTER TABLE dumps ADD COLUMN auth_key INTEGER;",
	"DROP INDEX IF EXISTS dumps_sig; DROP INDEX IF EXISTS dumps_host;"
	INDEXES_V3,
	"ALTER TABLE dumps ADD COLUMN collectors TEXT;"
	"ALTER TABLE dumps ADD COLUMN conflicts INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE dumps ADD COLUMN pieces BLOB;",
};

/*
 * Columns 0..33 of every query; then the auth column (34), collectors (35),
 * conflicts (36), log (37).
 */
#define COLS \
	"id, boot_id, dump_id, hostname, release, version, arch, reason," \
	" oops_count, part, cpu, wall_sec, wall_nsec, uptime_ns, taint," \
	" cpu_desc, regs_arch, regs_context, regs, user, complete, pkt_count," \
	" pkt_received, compression, payload_total, gaps, src, received_ms," \
	" stored_ms, sig_title, sig_frames, sig_hash, log_len, log_enc"

static const char put_sql[] =
	"INSERT INTO dumps(boot_id, dump_id, hostname, release, version, arch,"
	" reason, oops_count, part, cpu, wall_sec, wall_nsec, uptime_ns, taint,"
	" cpu_desc, regs_arch, regs_context, regs, user, complete, pkt_count,"
	" pkt_received, compression, payload_total, gaps, src, received_ms,"
	" stored_ms, sig_title, sig_frames, sig_hash, log_len, log, log_enc,"
	" auth_key, collectors, conflicts, pieces)"
	" VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,"
	"?18,?19,?20,?21,?22,?23,?24,?25,?26,?27,?28,?29,?30,?31,?32,?33,?34,"
	"?35,?36,?37,?38)"
	" ON CONFLICT(boot_id, dump_id) DO UPDATE SET"
	" hostname=excluded.hostname, release=excluded.release,"
	" version=excluded.version, arch=excluded.arch,"
	" reason=excluded.reason, oops_count=excluded.oops_count,"
	" part=excluded.part, cpu=excluded.cpu, wall_sec=excluded.wall_sec,"
	" wall_nsec=excluded.wall_nsec, uptime_ns=excluded.uptime_ns,"
	" taint=excluded.taint, cpu_desc=excluded.cpu_desc,"
	" regs_arch=excluded.regs_arch, regs_context=excluded.regs_context,"
	" regs=excluded.regs, user=excluded.user, complete=excluded.complete,"
	" pkt_count=excluded.pkt_count, pkt_received=excluded.pkt_received,"
	" compression=excluded.compression,"
	" payload_total=excluded.payload_total, gaps=excluded.gaps,"
	" src=excluded.src, stored_ms=excluded.stored_ms,"
	" sig_title=excluded.sig_title, sig_frames=excluded.sig_frames,"
	" sig_hash=excluded.sig_hash, log_len=excluded.log_len,"
	" log=excluded.log, log_enc=excluded.log_enc,"
	" auth_key=excluded.auth_key, collectors=excluded.collectors,"
	" conflicts=excluded.conflicts, pieces=excluded.pieces"
	/* authenticated beats unauthenticated; never the reverse, nor a copy
	 * verified with another key; else the more complete copy wins
	 */
	" WHERE (excluded.auth_key IS NOT NULL AND dumps.auth_key IS NULL) OR"
	" (excluded.auth_key IS dumps.auth_key AND"
	"  (excluded.complete > dumps.complete OR"
	"   (excluded.complete = dumps.complete AND"
	"    excluded.pkt_received > dumps.pkt_received)))"
	" RETURNING id";

static int sq_err(int rc)
{
	switch (rc) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_NOTADB:
		return -EBADMSG;	/* nstore_open_strerror() says what */
	case SQLITE_CORRUPT:
		return -EUCLEAN;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
		return -EINVAL;
	default:
		return -EIO;
	}
}

/* meta.schema_version into *@ret. */
static int read_version(sqlite3 *db, int *ret)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db, "SELECT value FROM meta"
				" WHERE key = 'schema_version'", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	rc = sqlite3_step(st);
	*ret = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	rc = rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -EBADMSG : sq_err(rc);
	sqlite3_finalize(st);
	if (!rc && *ret < 1)
		rc = -EBADMSG;
	return rc;
}

/*
 * Bring an older database to SCHEMA_VERSION, all or nothing (a newer one is
 * left as it is: columns are named in every statement).  BEGIN IMMEDIATE:
 * two writers opening the same old database at once migrate it once.
 */
static int migrate(sqlite3 *db, int *ret_version)
{
	char sql[96];
	int rc, v = 0, err;

	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	err = read_version(db, &v);
	if (!err && v < SCHEMA_VERSION) {
		for (; !err && v < SCHEMA_VERSION; v++)
			err = sq_err(sqlite3_exec(db, migrations[v - 1], NULL,
						  NULL, NULL));
		snprintf(sql, sizeof(sql), "UPDATE meta SET value = %d"
			 " WHERE key = 'schema_version'", v);
		if (!err)
			err = sq_err(sqlite3_exec(db, sql, NULL, NULL, NULL));
	}
	if (!err)
		err = sq_err(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL));
	if (err) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	*ret_version = v;
	return 0;
}

/*
 * An open or first read that failed: the system's reason when there is
 * one (ENOENT, EACCES, EISDIR...), else SQLite's.  SQLite retries a
 * read-write open that failed read-only, so for a database it could not
 * create its errno is the retry's ENOENT: then the directory says why.
 */
static int open_err(sqlite3 *db, int rc, const char *path, bool create)
{
	int e = 0;

	if (rc == SQLITE_CANTOPEN || rc == SQLITE_IOERR ||
	    rc == SQLITE_READONLY || rc == SQLITE_PERM)
		e = sqlite3_system_errno(db);
	if (create && e == ENOENT) {
		char *dir = strdup(path);

		if (!dir)
			return -ENOMEM;
		if (faccessat(AT_FDCWD, dirname(dir), W_OK | X_OK,
			      AT_EACCESS) < 0)
			e = errno;
		free(dir);
	}
	return e ? -e : sq_err(rc) ?: -EIO;
}

static void sqlite_close(struct nstore *base)
{
	struct sqlite_store *s = (struct sqlite_store *)base;

	sqlite3_finalize(s->put);
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

static int sqlite_open(const char *path, unsigned int flags,
		       struct nstore **ret)
{
	struct sqlite_store *s;
	int rc, oflags, version;
	char sql[160];

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->base.ops = &nstore_sqlite_ops;
	s->path = strdup(path);
	if (!s->path) {
		free(s);
		return -ENOMEM;
	}
	oflags = SQLITE_OPEN_NOMUTEX;
	oflags |= flags & NSTORE_RDONLY ? SQLITE_OPEN_READONLY :
		  SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(path, &s->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		rc = open_err(s->db, rc, path, !(flags & NSTORE_RDONLY));
		sqlite_close(&s->base);
		return rc;
	}
	sqlite3_busy_timeout(s->db, 5000);
	if (!(flags & NSTORE_RDONLY)) {
		/* auto_vacuum takes effect on a new database only (before
		 * its first table): nstore_prune() converts an older one.
		 */
		snprintf(sql, sizeof(sql),
			 "PRAGMA auto_vacuum=INCREMENTAL;"
			 " PRAGMA journal_mode=WAL; PRAGMA synchronous=%s;",
			 flags & NSTORE_SYNC_NORMAL ? "NORMAL" : "FULL");
		rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			goto fail;
		rc = sqlite3_exec(s->db, schema, NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			goto fail;
		rc = migrate(s->db, &version);
		if (rc < 0) {
			sqlite_close(&s->base);
			return rc;
		}
		rc = sqlite3_prepare_v3(s->db, put_sql, -1,
					SQLITE_PREPARE_PERSISTENT, &s->put,
					NULL);
		if (rc != SQLITE_OK)
			goto fail;
	} else {
		/* A reader does not create: a file without the dumps table
		 * (empty, another program's database) is not a store.
		 */
		rc = sqlite3_exec(s->db, "SELECT 1 FROM dumps LIMIT 0", NULL,
				  NULL, NULL);
		if (rc != SQLITE_OK) {
			rc = rc == SQLITE_ERROR ? -EBADMSG :
			     open_err(s->db, rc, path, false);
			sqlite_close(&s->base);
			return rc;
		}
		rc = read_version(s->db, &version);
		if (rc < 0) {
			sqlite_close(&s->base);
			return rc;
		}
	}
	s->auth_col = version >= 2 ? "auth_key" : "NULL";
	s->more_cols = version >= 4 ? "collectors, conflicts" : "NULL, 0";
	s->rdonly = flags & NSTORE_RDONLY;
	*ret = &s->base;
	return 0;
fail:
	rc = open_err(s->db, rc, path, true);
	sqlite_close(&s->base);
	return rc;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* Row id of (@boot, @dump_id) into *@ret. */
static int find_id(struct sqlite_store *s, const char *boot, uint64_t dump_id,
		   int64_t *ret)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "SELECT id FROM dumps WHERE boot_id = ?"
				" AND dump_id = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	sqlite3_bind_text(st, 1, boot, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)dump_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret = sqlite3_column_int64(st, 0);
	rc = rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT : sq_err(rc);
	sqlite3_finalize(st);
	return rc;
}

/* The upsert of @d as @p planned it. */
static int upsert(struct sqlite_store *s, struct nstore_dump *d,
		  const struct nstore_plan *p, bool *dup)
{
	sqlite3_stmt *st = s->put;
	struct nstore_blobs e;
	char boot[33];
	int rc;

	*dup = false;
	rc = nstore_blobs_make(d, &e);
	if (rc)
		goto out;
	nstore_boot_id_hex(d->boot_id, boot);
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, boot, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)d->dump_id);
	bind_text(st, 3, d->hostname);
	bind_text(st, 4, d->release);
	bind_text(st, 5, d->version);
	bind_text(st, 6, d->arch);
	sqlite3_bind_int64(st, 7, d->reason);
	sqlite3_bind_int64(st, 8, d->oops_count);
	sqlite3_bind_int64(st, 9, d->part);
	sqlite3_bind_int64(st, 10, d->cpu);
	if (d->have_time) {
		sqlite3_bind_int64(st, 11, d->wall_sec);
		sqlite3_bind_int64(st, 12, d->wall_nsec);
		sqlite3_bind_int64(st, 13, (int64_t)d->uptime_ns);
	} else {
		sqlite3_bind_null(st, 11);
		sqlite3_bind_null(st, 12);
		sqlite3_bind_null(st, 13);
	}
	if (d->have_taint)
		sqlite3_bind_int64(st, 14, (int64_t)d->taint);
	else
		sqlite3_bind_null(st, 14);
	bind_text(st, 15, d->cpu_desc);
	sqlite3_bind_int(st, 16, d->regs_arch);
	sqlite3_bind_int(st, 17, d->regs_context);
	if (e.regs)
		sqlite3_bind_blob(st, 18, e.regs, e.regs_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 18);
	sqlite3_bind_text(st, 19, e.user, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 20, d->complete);
	sqlite3_bind_int64(st, 21, d->pkt_count);
	sqlite3_bind_int64(st, 22, d->pkt_received);
	sqlite3_bind_int64(st, 23, d->compression);
	sqlite3_bind_int64(st, 24, d->payload_total);
	sqlite3_bind_text(st, 25, e.gaps, -1, SQLITE_STATIC);
	bind_text(st, 26, d->src);
	sqlite3_bind_int64(st, 27, d->received_ms);
	sqlite3_bind_int64(st, 28, d->stored_ms);
	bind_text(st, 29, d->sig_title);
	bind_text(st, 30, d->sig_frames);
	bind_text(st, 31, d->sig_hash);
	sqlite3_bind_int64(st, 32, (int64_t)d->log_len);
	if (d->log_z) {
		sqlite3_bind_blob64(st, 33, d->log_z, d->log_z_len,
				    SQLITE_STATIC);
		sqlite3_bind_int(st, 34, LOG_ENC_DEFLATE);
	} else {
		sqlite3_bind_blob64(st, 33, d->log ? d->log : "", d->log_len,
				    SQLITE_STATIC);
		sqlite3_bind_int(st, 34, LOG_ENC_PLAIN);
	}
	if (d->authenticated)
		sqlite3_bind_int64(st, 35, d->auth_key_id);
	else
		sqlite3_bind_null(st, 35);
	bind_text(st, 36, p->collectors);
	sqlite3_bind_int64(st, 37, p->conflicts);
	if (!d->complete && d->pieces)
		sqlite3_bind_blob64(st, 38, d->pieces, d->pieces_len,
				    SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 38);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		d->id = sqlite3_column_int64(st, 0);
		*dup = false;
		rc = sqlite3_step(st);
	} else {
		*dup = true;
	}
	rc = rc == SQLITE_DONE ? 0 : sq_err(rc);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (!rc && *dup)
		rc = find_id(s, boot, d->dump_id, &d->dup_of);
out:
	nstore_blobs_free(&e);
	return rc;
}

/* What is stored of @d's (boot_id, dump_id), into @h; -ENOENT if none. */
static int held_read(struct sqlite_store *s, const char *boot,
		     uint64_t dump_id, bool want_pieces, sqlite3_stmt **ret_st,
		     struct nstore_held *h)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "SELECT id, complete, pkt_received,"
				" auth_key, pieces, collectors, conflicts,"
				" received_ms, src FROM dumps WHERE"
				" boot_id = ? AND dump_id = ?", -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	sqlite3_bind_text(st, 1, boot, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)dump_id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? -ENOENT : sq_err(rc);
	}
	memset(h, 0, sizeof(*h));
	h->id = sqlite3_column_int64(st, 0);
	h->complete = sqlite3_column_int(st, 1);
	h->pkt_received = sqlite3_column_int64(st, 2);
	h->authenticated = sqlite3_column_type(st, 3) != SQLITE_NULL;
	h->auth_key_id = (uint32_t)sqlite3_column_int64(st, 3);
	/* only read when there is something to merge it with */
	if (want_pieces) {
		h->pieces = sqlite3_column_blob(st, 4);
		h->pieces_len = sqlite3_column_bytes(st, 4);
	}
	h->collectors = (const char *)sqlite3_column_text(st, 5);
	h->conflicts = sqlite3_column_int64(st, 6);
	h->received_ms = sqlite3_column_int64(st, 7);
	h->src = (const char *)sqlite3_column_text(st, 8);
	*ret_st = st;		/* @h points into it until finalized */
	return 0;
}

/*
 * One dump: the stored copy read, the plan made (merge.c), then the
 * upsert, or for a duplicate the conflicts it found.  Under BEGIN
 * IMMEDIATE: nothing changes the row in between.
 */
static int put_one(struct sqlite_store *s, struct nstore_dump *d, bool *dup)
{
	struct nstore_plan p;
	struct nstore_held h = { 0 };
	sqlite3_stmt *st = NULL, *up;
	char boot[33];
	int rc;

	*dup = false;
	nstore_boot_id_hex(d->boot_id, boot);
	rc = held_read(s, boot, d->dump_id, !d->complete && d->pieces, &st,
		       &h);
	if (rc && rc != -ENOENT)
		return rc;
	rc = nstore_plan_put(rc ? NULL : &h, d, &p);
	/* done with what @h points to: no read open while the row changes */
	sqlite3_finalize(st);
	h.pieces = NULL;
	h.collectors = h.src = NULL;
	if (!rc && p.wins) {
		rc = upsert(s, p.w, &p, dup);
		d->id = p.w->id;
		d->dup_of = p.w->dup_of;
	} else if (!rc) {
		*dup = true;
		d->dup_of = h.id;
		if (p.conflicts != h.conflicts) {
			rc = sqlite3_prepare_v2(s->db, "UPDATE dumps SET"
						" conflicts = ? WHERE id = ?",
						-1, &up, NULL);
			if (rc == SQLITE_OK) {
				sqlite3_bind_int64(up, 1, p.conflicts);
				sqlite3_bind_int64(up, 2, h.id);
				rc = sqlite3_step(up);
				sqlite3_finalize(up);
			}
			rc = rc == SQLITE_DONE ? 0 : sq_err(rc);
		}
	}
	nstore_plan_free(&p);
	return rc;
}

static int sqlite_put(struct nstore *base, struct nstore_dump *const *d,
		      size_t n, size_t *ret_dups)
{
	struct sqlite_store *s = (struct sqlite_store *)base;
	size_t i, dups = 0;
	bool dup;
	int rc;

	rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	for (i = 0; i < n; i++) {
		rc = put_one(s, d[i], &dup);
		if (rc < 0) {
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
		dups += dup;
	}
	rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return sq_err(rc);
	}
	if (ret_dups)
		*ret_dups = dups;
	return 0;
}

static char *col_strdup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? strdup((const char *)t) : NULL;
}

/*
 * Fills @d from a row selected with COLS, the auth column (34), the
 * collectors and conflicts (35, 36) and, if @log, the log (37).
 */
static int row_to_dump(sqlite3_stmt *st, struct nstore_dump *d, bool log)
{
	int r;

	d->id = sqlite3_column_int64(st, 0);
	if (nstore_boot_id_parse((const char *)sqlite3_column_text(st, 1),
				 d->boot_id) < 0)
		return -EBADMSG;
	d->dump_id = sqlite3_column_int64(st, 2);
	d->hostname = col_strdup(st, 3);
	d->release = col_strdup(st, 4);
	d->version = col_strdup(st, 5);
	d->arch = col_strdup(st, 6);
	d->reason = sqlite3_column_int64(st, 7);
	d->oops_count = sqlite3_column_int64(st, 8);
	d->part = sqlite3_column_int64(st, 9);
	d->cpu = sqlite3_column_int64(st, 10);
	d->have_time = sqlite3_column_type(st, 11) != SQLITE_NULL;
	d->wall_sec = sqlite3_column_int64(st, 11);
	d->wall_nsec = sqlite3_column_int64(st, 12);
	d->uptime_ns = sqlite3_column_int64(st, 13);
	d->have_taint = sqlite3_column_type(st, 14) != SQLITE_NULL;
	d->taint = sqlite3_column_int64(st, 14);
	d->cpu_desc = col_strdup(st, 15);
	d->regs_arch = sqlite3_column_int(st, 16);
	d->regs_context = sqlite3_column_int(st, 17);
	r = nstore_dec_regs(d, sqlite3_column_blob(st, 18),
			    sqlite3_column_bytes(st, 18));
	if (r < 0)
		return r;
	r = nstore_dec_user(d, (const char *)sqlite3_column_text(st, 19));
	if (r < 0)
		return r;
	d->complete = sqlite3_column_int(st, 20);
	d->pkt_count = sqlite3_column_int64(st, 21);
	d->pkt_received = sqlite3_column_int64(st, 22);
	d->compression = sqlite3_column_int64(st, 23);
	d->payload_total = sqlite3_column_int64(st, 24);
	r = nstore_dec_gaps(d, (const char *)sqlite3_column_text(st, 25));
	if (r < 0)
		return r;
	d->src = col_strdup(st, 26);
	d->received_ms = sqlite3_column_int64(st, 27);
	d->stored_ms = sqlite3_column_int64(st, 28);
	d->sig_title = col_strdup(st, 29);
	d->sig_frames = col_strdup(st, 30);
	d->sig_hash = col_strdup(st, 31);
	d->log_len = sqlite3_column_int64(st, 32);
	d->authenticated = sqlite3_column_type(st, 34) != SQLITE_NULL;
	d->auth_key_id = (uint32_t)sqlite3_column_int64(st, 34);
	d->collectors = col_strdup(st, 35);
	d->conflicts = sqlite3_column_int64(st, 36);
	if (log)
		return nstore_dec_log(d, sqlite3_column_int(st, 33),
				      sqlite3_column_blob(st, 37),
				      sqlite3_column_bytes(st, 37));
	return 0;
}

static int sqlite_get(struct nstore *base, int64_t id,
		      struct nstore_dump **ret)
{
	struct sqlite_store *s = (struct sqlite_store *)base;
	struct nstore_dump *d;
	sqlite3_stmt *st;
	char sql[640];
	int rc;

	snprintf(sql, sizeof(sql), "SELECT " COLS ", %s, %s, log FROM dumps"
		 " WHERE id = ?", s->auth_col, s->more_cols);
	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = rc == SQLITE_DONE ? -ENOENT : sq_err(rc);
		goto out;
	}
	d = nstore_dump_new();
	if (!d) {
		rc = -ENOMEM;
		goto out;
	}
	rc = row_to_dump(st, d, true);
	if (rc < 0)
		nstore_dump_free(d);
	else
		*ret = d;
out:
	sqlite3_finalize(st);
	return rc;
}

static bool bucket_globs(const char *b)
{
	return strpbrk(b, "*?[") != NULL;
}

/* WHERE clause for @f; parameters are bound by bind_filter() in order. */
static void filter_sql(const struct sqlite_store *s,
		       const struct nstore_filter *f, char *buf, size_t len)
{
	size_t n;

	n = snprintf(buf, len, " WHERE 1");
	if (f->host)
		n += snprintf(buf + n, len - n, " AND hostname GLOB ?");
	if (f->kernel)
		n += snprintf(buf + n, len - n, " AND release GLOB ?");
	if (f->reason >= 0)
		n += snprintf(buf + n, len - n, " AND reason = ?");
	if (f->since_ms)
		n += snprintf(buf + n, len - n, " AND received_ms >= ?");
	if (f->until_ms)
		n += snprintf(buf + n, len - n, " AND received_ms < ?");
	/* A prefix without GLOB's special characters: GLOB 'P*' is the same
	 * test, and SQLite can answer it from an index.
	 */
	if (f->bucket && !bucket_globs(f->bucket))
		n += snprintf(buf + n, len - n, " AND sig_hash GLOB ?");
	else if (f->bucket)
		n += snprintf(buf + n, len - n,
			      " AND substr(sig_hash, 1, length(?)) = ?");
	if (f->complete >= 0)
		n += snprintf(buf + n, len - n, " AND complete = ?");
	if (f->after_id)
		n += snprintf(buf + n, len - n, " AND id > ?");
	if (f->authenticated >= 0)
		snprintf(buf + n, len - n, " AND %s IS %s", s->auth_col,
			 f->authenticated ? "NOT NULL" : "NULL");
}

/* Binds @f's parameters from number @i on. */
static void bind_filter(sqlite3_stmt *st, const struct nstore_filter *f, int i)
{
	if (f->host)
		sqlite3_bind_text(st, i++, f->host, -1, SQLITE_STATIC);
	if (f->kernel)
		sqlite3_bind_text(st, i++, f->kernel, -1, SQLITE_STATIC);
	if (f->reason >= 0)
		sqlite3_bind_int(st, i++, f->reason);
	if (f->since_ms)
		sqlite3_bind_int64(st, i++, f->since_ms);
	if (f->until_ms)
		sqlite3_bind_int64(st, i++, f->until_ms);
	if (f->bucket && !bucket_globs(f->bucket)) {
		sqlite3_bind_text(st, i++, sqlite3_mprintf("%s*", f->bucket),
				  -1, sqlite3_free);
	} else if (f->bucket) {
		sqlite3_bind_text(st, i++, f->bucket, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, i++, f->bucket, -1, SQLITE_STATIC);
	}
	if (f->complete >= 0)
		sqlite3_bind_int(st, i++, f->complete);
	if (f->after_id)
		sqlite3_bind_int64(st, i++, f->after_id);
}

static int sqlite_list(struct nstore *base, const struct nstore_filter *f,
		       unsigned int flags, nstore_dump_cb cb, void *arg)
{
	struct sqlite_store *s = (struct sqlite_store *)base;
	struct nstore_filter any;
	char sql[1024], where[512];
	sqlite3_stmt *st;
	int rc;

	if (!f) {
		nstore_filter_init(&any);
		f = &any;
	}
	rc = nstore_filter_check(f, NULL);
	if (rc)
		return rc;
	filter_sql(s, f, where, sizeof(where));
	snprintf(sql, sizeof(sql), "SELECT " COLS ", %s, %s%s FROM dumps%s"
		 " ORDER BY %s LIMIT %ld", s->auth_col, s->more_cols,
		 flags & NSTORE_WITH_LOG ? ", log" : "", where,
		 f->newest_first ? "received_ms DESC, id DESC" : "id",
		 f->limit > 0 ? f->limit : -1L);
	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	bind_filter(st, f, 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct nstore_dump *d = nstore_dump_new();

		if (!d) {
			rc = -ENOMEM;
			goto out;
		}
		rc = row_to_dump(st, d, flags & NSTORE_WITH_LOG);
		if (!rc)
			rc = cb(d, arg);
		nstore_dump_free(d);
		if (rc)
			goto out;
	}
	rc = sq_err(rc);
out:
	sqlite3_finalize(st);
	return rc;
}

static int sqlite_buckets(struct nstore *base, const struct nstore_filter *f,
			  nstore_bucket_cb cb, void *arg)
{
	struct sqlite_store *s = (struct sqlite_store *)base;
	struct nstore_filter any;
	char sql[1024], where[512];
	struct nstore_bucket b;
	sqlite3_stmt *st;
	int rc;

	if (!f) {
		nstore_filter_init(&any);
		f = &any;
	}
	rc = nstore_filter_check(f, NULL);
	if (rc)
		return rc;
	filter_sql(s, f, where, sizeof(where));
	/*
	 * Dumps without a signature fall in one bucket named "-".  The groups
	 * come from the signature index alone; title and frames, which the
	 * hash is computed from, from each bucket's example row: reading them
	 * from every row made this 10 times slower on 100,000 dumps.
	 */
	snprintf(sql, sizeof(sql),
		 "SELECT g.h, d.sig_title, d.sig_frames, g.n, g.hosts, g.rels,"
		 " g.first, g.last, g.ex FROM (SELECT ifnull(sig_hash, '-') h,"
		 " count(*) n, count(DISTINCT hostname) hosts,"
		 " group_concat(DISTINCT release) rels,"
		 " min(received_ms) first, max(received_ms) last, min(id) ex"
		 " FROM dumps%s GROUP BY sig_hash"
		 " ORDER BY n DESC, ex LIMIT %ld) g"
		 " JOIN dumps d ON d.id = g.ex ORDER BY g.n DESC, g.ex",
		 where, f->limit > 0 ? f->limit : -1L);
	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	bind_filter(st, f, 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		b.sig_hash = (const char *)sqlite3_column_text(st, 0);
		b.sig_title = (const char *)sqlite3_column_text(st, 1);
		b.sig_frames = (const char *)sqlite3_column_text(st, 2);
		b.count = sqlite3_column_int64(st, 3);
		b.hosts = sqlite3_column_int64(st, 4);
		b.kernels = (const char *)sqlite3_column_text(st, 5);
		b.first_ms = sqlite3_column_int64(st, 6);
		b.last_ms = sqlite3_column_int64(st, 7);
		b.example_id = sqlite3_column_int64(st, 8);
		rc = cb(&b, arg);
		if (rc)
			goto out;
	}
	rc = sq_err(rc);
out:
	sqlite3_finalize(st);
	return rc;
}

/*
 * Slots are floor(received_ms / step) * step, also before 1970 (SQLite's
 * '/' and '%' truncate toward zero), computed without overflow for any
 * step: received_ms - m where m is received_ms modulo step in [0, step)
 * (the remainder, plus step when negative: neither can overflow); a slot
 * below INT64_MIN is INT64_MIN (store.h).  An integer overflow would turn
 * SQLite's result into a REAL, one slot per dump.  NULL keys sort last.
 */
static int sqlite_count(struct nstore *base, const struct nstore_filter *f,
			enum nstore_group by, int64_t step_ms,
			nstore_count_cb cb, void *arg)
{
	struct sqlite_store *s = (struct sqlite_store *)base;
	struct nstore_count_row row;
	struct nstore_filter any;
	char sql[1024], where[512];
	const char *key, *order;
	sqlite3_stmt *st;
	int rc;

	switch (by) {
	case NSTORE_BY_TIME:
		if (step_ms <= 0)
			return -EINVAL;
		key = "CASE WHEN received_ms % ?1 >= 0 THEN received_ms"
		      " - received_ms % ?1 WHEN received_ms <"
		      " -9223372036854775807 - 1 + (received_ms % ?1 + ?1)"
		      " THEN -9223372036854775807 - 1"
		      " ELSE received_ms - (received_ms % ?1 + ?1) END";
		order = "1";
		break;
	case NSTORE_BY_HOST:
		key = "hostname";
		order = "2 DESC, hostname IS NULL, 1";
		break;
	case NSTORE_BY_KERNEL:
		key = "release";
		order = "2 DESC, release IS NULL, 1";
		break;
	default:
		return -EINVAL;
	}
	if (!f) {
		nstore_filter_init(&any);
		f = &any;
	}
	rc = nstore_filter_check(f, NULL);
	if (rc)
		return rc;
	filter_sql(s, f, where, sizeof(where));
	/* ?1 is the step; the filter's parameters follow (renumbered). */
	snprintf(sql, sizeof(sql),
		 "SELECT %s, count(*), count(DISTINCT sig_hash),"
		 " max(received_ms) FROM dumps%s GROUP BY 1 ORDER BY %s"
		 " LIMIT %ld", key, where, order,
		 f->limit > 0 ? f->limit : -1L);
	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	bind_filter(st, f, by == NSTORE_BY_TIME ? 2 : 1);
	if (by == NSTORE_BY_TIME)
		sqlite3_bind_int64(st, 1, step_ms);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&row, 0, sizeof(row));
		if (by == NSTORE_BY_TIME)
			row.slot_ms = sqlite3_column_int64(st, 0);
		else
			row.key = (const char *)sqlite3_column_text(st, 0);
		row.count = sqlite3_column_int64(st, 1);
		row.buckets = sqlite3_column_int64(st, 2);
		row.last_ms = sqlite3_column_int64(st, 3);
		rc = cb(&row, arg);
		if (rc)
			goto out;
	}
	rc = sq_err(rc);
out:
	sqlite3_finalize(st);
	return rc;
}

int64_t nstore_file_bytes(const char *path)
{
	static const char *const sfx[] = { "-wal", "-shm" };
	char side[PATH_MAX];
	struct stat sb;
	int64_t n;
	size_t i;

	if (stat(path, &sb))
		return -1;
	n = sb.st_size;
	for (i = 0; i < 2; i++) {
		if (snprintf(side, sizeof(side), "%s%s", path, sfx[i]) <
		    (int)sizeof(side) && !stat(side, &sb))
			n += sb.st_size;
	}
	return n;
}

/* What the store takes on disk, see nstore_file_bytes(). */
static int64_t files_bytes(const struct sqlite_store *s)
{
	return nstore_file_bytes(s->path);
}

static int sqlite_stats(struct nstore *base, struct nstore_stats *ret)
{
	struct sqlite_store *s = (struct sqlite_store *)base;
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db,
		"SELECT count(*), total(complete), count(DISTINCT sig_hash),"
		" count(DISTINCT hostname), total(log_len) FROM dumps",
		-1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		ret->dumps = sqlite3_column_int64(st, 0);
		ret->complete = sqlite3_column_int64(st, 1);
		ret->partial = ret->dumps - ret->complete;
		ret->buckets = sqlite3_column_int64(st, 2);
		ret->hosts = sqlite3_column_int64(st, 3);
		ret->log_bytes = sqlite3_column_int64(st, 4);
		rc = 0;
	} else {
		rc = sq_err(rc);
		if (!rc)
			rc = -EIO;
	}
	sqlite3_finalize(st);
	ret->file_bytes = files_bytes(s);
	return rc;
}

/* ---- retention ------------------------------------------------------ */

/* Dumps deleted per transaction: what a concurrent writer may wait for. */
#define PRUNE_CHUNK	256

/* The integer a one-value statement (PRAGMA, count) returns. */
static int query_int(sqlite3 *db, const char *sql, int64_t *ret)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret = sqlite3_column_int64(st, 0);
	rc = rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -EIO : sq_err(rc);
	sqlite3_finalize(st);
	return rc;
}

/* Bytes of the pages in use (not on the free list). */
static int used_bytes(sqlite3 *db, int64_t *ret)
{
	int64_t size, count, nfree;
	int r;

	r = query_int(db, "PRAGMA page_size", &size);
	if (!r)
		r = query_int(db, "PRAGMA page_count", &count);
	if (!r)
		r = query_int(db, "PRAGMA freelist_count", &nfree);
	if (!r)
		*ret = (count - nfree) * size;
	return r;
}

/*
 * Deletes the @n oldest dumps received before @before_ms in one
 * transaction, @cb told of each; *@ret_n: how many went.
 */
static int delete_oldest(struct sqlite_store *s, int64_t before_ms, long n,
			 nstore_dump_cb cb, void *arg, long *ret_n)
{
	sqlite3_stmt *st;
	long done = 0;
	int rc, r = 0;

	*ret_n = 0;
	rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return sq_err(rc);
	rc = sqlite3_prepare_v2(s->db,
		"DELETE FROM dumps WHERE id IN (SELECT id FROM dumps"
		" WHERE received_ms < ?1 ORDER BY received_ms, id LIMIT ?2)"
		" RETURNING id, boot_id, dump_id, hostname, release,"
		" received_ms, log_len, sig_hash, sig_title", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		r = sq_err(rc);
		goto rollback;
	}
	sqlite3_bind_int64(st, 1, before_ms);
	sqlite3_bind_int64(st, 2, n);
	while (!r && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct nstore_dump *d;

		done++;
		if (!cb)
			continue;
		d = nstore_dump_new();
		if (!d) {
			r = -ENOMEM;
			break;
		}
		d->id = sqlite3_column_int64(st, 0);
		nstore_boot_id_parse((const char *)sqlite3_column_text(st, 1),
				     d->boot_id);
		d->dump_id = sqlite3_column_int64(st, 2);
		d->hostname = col_strdup(st, 3);
		d->release = col_strdup(st, 4);
		d->received_ms = sqlite3_column_int64(st, 5);
		d->log_len = sqlite3_column_int64(st, 6);
		d->sig_hash = col_strdup(st, 7);
		d->sig_title = col_strdup(st, 8);
		r = cb(d, arg);
		nstore_dump_free(d);
	}
	if (!r && rc != SQLITE_DONE)
		r = sq_err(rc) ?: -EIO;
	sqlite3_finalize(st);
	if (r)
		goto rollback;
	rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		r = sq_err(rc);
		goto rollback;
	}
	*ret_n = done;
	return 0;
rollback:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

/*
 * Gives the free pages back to the file system and empties the WAL.  A
 * database made before auto_vacuum=INCREMENTAL is rewritten once (VACUUM,
 * which needs as much free disk as the database takes).  A checkpoint that
 * a reader holds back is left for the next time.
 */
static int shrink(struct sqlite_store *s)
{
	int64_t mode;
	int r;

	r = query_int(s->db, "PRAGMA auto_vacuum", &mode);
	if (r)
		return r;
	if (mode != 2) {
		r = sq_err(sqlite3_exec(s->db, "PRAGMA auto_vacuum=INCREMENTAL;"
					" VACUUM", NULL, NULL, NULL));
	} else {
		r = sq_err(sqlite3_exec(s->db, "PRAGMA incremental_vacuum",
					NULL, NULL, NULL));
	}
	if (r)
		return r;
	sqlite3_exec(s->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL,
		     NULL);
	return 0;
}

static int sqlite_prune(struct nstore *base, const struct nstore_prune *p,
			nstore_dump_cb cb, void *arg,
			struct nstore_prune_result *ret)
{
	struct sqlite_store *s = (struct sqlite_store *)base;
	int64_t used, rows, target, other;
	long n;
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	if (s->rdonly)
		return -EROFS;
	ret->bytes_before = files_bytes(s);
	/* By age: chunk after chunk until one comes back short. */
	if (p->before_ms) {
		do {
			r = delete_oldest(s, p->before_ms, PRUNE_CHUNK, cb,
					  arg, &n);
			ret->by_age += n;
		} while (!r && n == PRUNE_CHUNK);
	}
	/*
	 * By size: the WAL is emptied at the end, the -shm file stays; the
	 * pages in use must fit in the rest.  Each round removes the share
	 * of the dumps that the excess is of the pages in use, then looks
	 * again (dumps differ in size).
	 */
	if (!r && p->max_bytes > 0) {
		struct stat sb;
		char shm[PATH_MAX];

		snprintf(shm, sizeof(shm), "%s-shm", s->path);
		other = stat(shm, &sb) ? 0 : sb.st_size;
		target = p->max_bytes - other;
		while (!(r = used_bytes(s->db, &used)) && used > target) {
			r = query_int(s->db, "SELECT count(*) FROM dumps",
				      &rows);
			if (r || !rows)
				break;
			n = (long)((rows * (used - target) + used - 1) / used);
			if (n > PRUNE_CHUNK)
				n = PRUNE_CHUNK;
			r = delete_oldest(s, INT64_MAX, n ?: 1, cb, arg, &n);
			ret->by_size += n;
			if (!r && !n)
				break;
		}
	}
	if (!r && (ret->by_age || ret->by_size ||
		   (p->max_bytes > 0 && ret->bytes_before > p->max_bytes)))
		r = shrink(s);
	ret->bytes_after = files_bytes(s);
	if (!r && !query_int(s->db, "SELECT count(*) FROM dumps", &rows))
		ret->dumps_left = rows;
	return r;
}

static int sqlite_last_id(struct nstore *base, int64_t *ret)
{
	struct sqlite_store *s = (struct sqlite_store *)base;

	return query_int(s->db, "SELECT ifnull(max(id), 0) FROM dumps", ret);
}

const struct nstore_ops nstore_sqlite_ops = {
	.name = "sqlite",
	.open = sqlite_open,
	.close = sqlite_close,
	.put = sqlite_put,
	.get = sqlite_get,
	.list = sqlite_list,
	.buckets = sqlite_buckets,
	.stats = sqlite_stats,
	.prune = sqlite_prune,
	.last_id = sqlite_last_id,
	.count = sqlite_count,
};
