// SPDX-License-Identifier: GPL-2.0
/*
 * netoops decode: datagrams from a file (raw, concatenated, as netoopsd
 * --archive writes them) or a packet capture (libpcap), read as a stream
 * (any size), decoded and reassembled with the collector's reassembler
 * (parity included: lost datagrams are rebuilt as netoopsd does), printed
 * as text or JSON.  No store.  Every datagram is counted once: accepted,
 * duplicate, or refused (by the decoder or the reassembler, by reason).
 * Exit status: 0 all accepted and every dump complete; 3 decoded, but a
 * datagram was refused or a dump is partial; 1 error (unreadable, or no
 * datagram accepted); 2 usage.
 * No MAC key either: signed datagrams are counted, never verified, so no
 * dump is reported as authenticated ("authenticated": null in JSON).
 */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "cli.h"
#include "store/record.h"

struct decode_ctx {
	struct netoops_reasm *reasm;
	bool show_packets;
	bool json;
	json_t *jpackets;		/* --json --packets */
	/* packets = accepted + duplicates + bad */
	unsigned long packets, accepted, duplicates, bad, skipped;
	unsigned long parity;		/* parity datagrams, in @packets */
	unsigned long rebuilt;		/* data datagrams rebuilt from them */
	unsigned long signed_pkts;	/* with a MAC, not verified */
	unsigned long bad_by[NETOOPS_ERR__MAX];	/* decoder and reassembler */
	uint64_t now;			/* fake clock: packets in order */
	unsigned long dumps;
	unsigned long partial;		/* of @dumps */
};

/*
 * --json: the dumps are printed as they complete, so that memory does not
 * grow with the input: "{ "dumps": [" first, each dump, then the summary
 * fields after the array (json_stream_end()).
 */
/* jansson's text of @o (stolen), hidden characters escaped (output.c). */
static char *dumps_hidden(json_t *o)
{
	char *t = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) :
		      NULL, *h = NULL;

	json_decref(o);
	if (t && netoops_json_hidden(t, &h) < 0)
		h = NULL;
	free(t);
	return h;
}

static void json_stream_dump(struct decode_ctx *x, json_t *o)
{
	char *text = dumps_hidden(o);
	const char *p;

	if (!text) {
		fprintf(stderr, "netoops decode: out of memory\n");
		return;
	}
	fputs(x->dumps > 1 ? ",\n    " : "{\n  \"dumps\": [\n    ", stdout);
	for (p = text; *p; p++) {
		putchar(*p);
		if (*p == '\n')
			fputs("    ", stdout);
	}
	free(text);
}

/* The summary object @o2 (stolen) after the dumps. */
static void json_stream_end(struct decode_ctx *x, json_t *o2)
{
	char *text = dumps_hidden(o2);

	fputs(x->dumps ? "\n  ],\n" : "{\n  \"dumps\": [],\n", stdout);
	/* the object's members, without its opening "{\n" */
	if (text && !strncmp(text, "{\n", 2))
		fputs(text + 2, stdout);
	else
		fputs("  \"error\": \"out of memory\"\n}", stdout);
	putchar('\n');
	free(text);
}

static void emit_dump(struct decode_ctx *x, struct netoops_dump *nd)
{
	uint32_t rebuilt = nd->pkts_rebuilt;
	struct nstore_dump *d;
	int perr = 0;

	if (nstore_record_from_dump(nd, 0, &d, &perr) < 0) {
		fprintf(stderr, "netoops decode: out of memory\n");
		netoops_dump_free(nd);
		return;
	}
	netoops_dump_free(nd);
	x->rebuilt += rebuilt;
	d->id = ++x->dumps;
	x->partial += !d->complete;
	if (x->json) {
		json_t *o = dump_to_json(d, true);

		json_object_del(o, "received");
		json_object_del(o, "received_ms");
		json_object_del(o, "src");
		/* not "false": nothing here can verify a MAC */
		json_object_set_new(o, "authenticated", json_null());
		json_object_set_new(o, "fec_rebuilt", json_integer(rebuilt));
		if (perr)
			json_object_set_new(o, "payload_error",
					    json_string(strerror(-perr)));
		json_stream_dump(x, o);
	} else {
		if (x->dumps > 1)
			putchar('\n');
		dump_print_text(stdout, d, false);
		if (rebuilt)
			printf("(%u datagrams rebuilt from parity)\n", rebuilt);
		if (perr)
			printf("(payload error: %s)\n", strerror(-perr));
	}
	nstore_dump_free(d);
}

/*
 * One datagram: @len bytes decoded; @span is its length in the input
 * (longer for a run of garbage), @where its offset (frame number in a
 * capture).
 */
static void one_packet(struct decode_ctx *x, const uint8_t *buf, size_t len,
		       uint64_t span, uint64_t where)
{
	struct netoops_packet p;
	struct netoops_dump *done = NULL;
	enum netoops_err why = NETOOPS_OK;
	int r;

	x->packets++;
	r = netoops_decode_packet(buf, len, &p);
	if (r >= 0) {
		x->signed_pkts += p.has_mac;
		x->parity += p.is_parity;
		/* the collector's reassembler, parity included */
		r = netoops_reasm_add(x->reasm, NULL, 0, &p, x->now++, &done,
				      &why);
		if (r == NETOOPS_REASM_COMPLETE)
			emit_dump(x, done);
		else if (r < 0)
			p.err = why != NETOOPS_OK && why < NETOOPS_ERR__MAX ?
				why : NETOOPS_ERR_INVALID;
	}
	if (r < 0) {
		/* refused by the decoder or by the reassembler */
		x->bad++;
		x->bad_by[p.err < NETOOPS_ERR__MAX ? p.err :
			  NETOOPS_ERR_INVALID]++;
	} else if (r == NETOOPS_REASM_DUPLICATE) {
		x->duplicates++;
	} else {
		x->accepted++;
	}
	if (!x->show_packets)
		return;
	if (x->json) {
		json_t *o = json_object();
		char boot[33];

		json_object_set_new(o, "offset", json_integer(where));
		json_object_set_new(o, "len", json_integer(span));
		json_object_set_new(o, "ok", json_boolean(r >= 0));
		if (r < 0) {
			json_object_set_new(o, "error",
					    json_string(netoops_err_str(p.err)));
		} else {
			nstore_boot_id_hex(p.boot_id, boot);
			json_object_set_new(o, "boot_id", json_string(boot));
			json_object_set_new(o, "dump_id",
					    json_integer((json_int_t)p.dump_id));
			json_object_set_new(o, "pkt_index",
					    json_integer(p.pkt_index));
			json_object_set_new(o, "pkt_count",
					    json_integer(p.pkt_count));
			json_object_set_new(o, "duplicate", json_boolean(r ==
					    NETOOPS_REASM_DUPLICATE));
			json_object_set_new(o, "parity",
					    json_boolean(p.is_parity));
			if (p.is_parity) {
				json_object_set_new(o, "parity_k",
						    json_integer(p.par_k));
				json_object_set_new(o, "parity_m",
						    json_integer(p.par_m));
				json_object_set_new(o, "parity_row",
						    json_integer(p.par_row));
			} else {
				json_object_set_new(o, "payload_off",
					json_integer(p.payload_off));
				json_object_set_new(o, "chunk_len",
					json_integer(p.chunk_len));
			}
			json_object_set_new(o, "meta", json_boolean(p.has_meta));
			json_object_set_new(o, "mac_key_id", p.has_mac ?
					    json_integer(p.key_id) :
					    json_null());
		}
		json_array_append_new(x->jpackets, o);
	} else if (r < 0) {
		printf("packet @%llu len %llu: refused (%s)\n",
		       (unsigned long long)where, (unsigned long long)span,
		       netoops_err_str(p.err));
	} else {
		char boot[33];

		nstore_boot_id_hex(p.boot_id, boot);
		printf("packet @%llu len %llu: %s/%llu %u/%u ",
		       (unsigned long long)where, (unsigned long long)span,
		       boot, (unsigned long long)p.dump_id,
		       p.pkt_index, p.pkt_count);
		/* a parity datagram: row of the group of k data datagrams
		 * from pkt_index, m rows
		 */
		if (p.is_parity)
			printf("parity %u/%u of %u data", p.par_row + 1,
			       p.par_m, p.par_k);
		else
			printf("payload %u+%zu%s", p.payload_off, p.chunk_len,
			       p.has_meta ? " meta" : "");
		if (r == NETOOPS_REASM_DUPLICATE)
			printf(" duplicate");
		if (p.has_mac)
			printf(" mac key %u (not verified)", p.key_id);
		putchar('\n');
	}
}

/*
 * Concatenated raw datagrams, each saying its length (hdr + tlv), read
 * through a window of RAW_BUF bytes: a file of any size, in bounded
 * memory.  The window always holds RAW_NEED bytes past the read position
 * (or the rest of the file), the longest datagram a header can declare.
 */
#define RAW_BUF		(1u << 20)
#define RAW_NEED	(255 + 65535 + 4)
#define GARBAGE_HEAD	256	/* bytes of a garbage run the decoder sees */

struct raw_reader {
	FILE *f;
	uint8_t *buf;		/* RAW_BUF bytes */
	size_t have;		/* bytes in buf */
	size_t pos;		/* next byte to parse */
	uint64_t base;		/* file offset of buf[0] */
	bool eof;
};

/* Bytes that are no datagram, up to the next "NOPS": refused once. */
struct garbage {
	uint64_t off;		/* where the run starts */
	uint64_t len;		/* 0: no run open */
	uint8_t head[GARBAGE_HEAD];
	size_t head_len;
};

static int raw_fill(struct raw_reader *rd)
{
	size_t n;

	memmove(rd->buf, rd->buf + rd->pos, rd->have - rd->pos);
	rd->base += rd->pos;
	rd->have -= rd->pos;
	rd->pos = 0;
	while (!rd->eof && rd->have < RAW_BUF) {
		n = fread(rd->buf + rd->have, 1, RAW_BUF - rd->have, rd->f);
		rd->have += n;
		if (!n) {
			if (ferror(rd->f))
				return -(errno ? errno : EIO);
			rd->eof = true;
		}
	}
	return 0;
}

static void garbage_add(struct garbage *g, const uint8_t *p, size_t n,
			uint64_t off)
{
	size_t k;

	if (!g->len)
		g->off = off;
	k = GARBAGE_HEAD - g->head_len;
	if (k > n)
		k = n;
	memcpy(g->head + g->head_len, p, k);
	g->head_len += k;
	g->len += n;
}

static void garbage_flush(struct decode_ctx *x, struct garbage *g)
{
	if (!g->len)
		return;
	one_packet(x, g->head, g->head_len, g->len, g->off);
	g->len = 0;
	g->head_len = 0;
}

/* @head: the @head_len bytes already read from @f to tell its format. */
static int decode_raw(struct decode_ctx *x, FILE *f, const uint8_t *head,
		      size_t head_len)
{
	struct raw_reader rd = { .f = f };
	struct netoops_packet probe;
	struct garbage g = { 0 };
	const uint8_t *p, *next;
	size_t left, n;
	int r = 0;

	rd.buf = malloc(RAW_BUF);
	if (!rd.buf)
		return -ENOMEM;
	memcpy(rd.buf, head, head_len);
	rd.have = head_len;
	for (;;) {
		if (!rd.eof && rd.have - rd.pos < RAW_NEED) {
			r = raw_fill(&rd);
			if (r < 0)
				break;
		}
		left = rd.have - rd.pos;
		if (!left)
			break;
		p = rd.buf + rd.pos;
		if (left < NETOOPS_HDR_LEN_V1 || memcmp(p, "NOPS", 4)) {
			/* Garbage: to the next magic, handed to the decoder
			 * once (it says why).  Without a magic in the window,
			 * the run goes on in the next one (its last 3 bytes
			 * may start a magic).
			 */
			next = left > 1 ? memmem(p + 1, left - 1, "NOPS", 4) :
					  NULL;
			n = next ? (size_t)(next - p) : rd.eof ? left :
							       left - 3;
			garbage_add(&g, p, n, rd.base + rd.pos);
			rd.pos += n;
			if (next || rd.eof)
				garbage_flush(x, &g);
			continue;
		}
		garbage_flush(x, &g);
		n = p[5] + (p[36] | p[37] << 8);
		if (n < NETOOPS_HDR_LEN_V1 || n > left)
			n = left < NETOOPS_PKT_MAX ? left : NETOOPS_PKT_MAX;
		/* A datagram cut short (a write(2) stopped by SIGKILL
		 * between pages) is followed by the next one: if what its
		 * length covers does not decode and holds a magic, the next
		 * datagram starts there, not after the length.
		 */
		next = memmem(p + 4, n - 4, "NOPS", 4);
		if (next && netoops_decode_packet(p, n, &probe) < 0)
			n = (size_t)(next - p);
		one_packet(x, p, n, n, rd.base + rd.pos);
		rd.pos += n;
	}
	garbage_flush(x, &g);
	free(rd.buf);
	return r;
}

/* UDP payload of a captured frame, or NULL. */
static const uint8_t *udp_payload(int dlt, const uint8_t *f, size_t caplen,
				  size_t *ret_len)
{
	size_t l2 = 0, ip, udp;
	unsigned int et = 0, proto;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return NULL;
		et = f[12] << 8 | f[13];
		l2 = 14;
		while ((et == 0x8100 || et == 0x88a8) && caplen >= l2 + 4) {
			et = f[l2 + 2] << 8 | f[l2 + 3];
			l2 += 4;
		}
		break;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return NULL;
		et = f[14] << 8 | f[15];
		l2 = 16;
		break;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		if (!caplen)
			return NULL;
		et = (f[0] >> 4) == 6 ? 0x86dd : 0x0800;
		break;
	case DLT_NULL:
		if (caplen < 4)
			return NULL;
		l2 = 4;
		et = (f[4] >> 4) == 6 ? 0x86dd : 0x0800;
		break;
	default:
		return NULL;
	}
	ip = l2;
	if (et == 0x0800) {
		if (caplen < ip + 20 || (f[ip] >> 4) != 4)
			return NULL;
		/* A fragment's payload is not a whole datagram. */
		if ((f[ip + 6] & 0x3f) || f[ip + 7])
			return NULL;
		proto = f[ip + 9];
		udp = ip + (f[ip] & 15) * 4;
	} else if (et == 0x86dd) {
		if (caplen < ip + 40)
			return NULL;
		proto = f[ip + 6];
		udp = ip + 40;
	} else {
		return NULL;
	}
	if (proto != IPPROTO_UDP || caplen < udp + 8)
		return NULL;
	*ret_len = (f[udp + 4] << 8 | f[udp + 5]);
	if (*ret_len < 8)
		return NULL;
	*ret_len -= 8;
	if (*ret_len > caplen - udp - 8)
		*ret_len = caplen - udp - 8;	/* snaplen cut it */
	return f + udp + 8;
}

/*
 * libpcap reads a FILE from its start: @f with the @head_len bytes already
 * taken from it to tell its format put back in front (no seek, so standard
 * input works too).
 */
struct prefixed {
	FILE *f;
	uint8_t head[4];
	size_t head_len, head_pos;
};

static ssize_t prefixed_read(void *cookie, char *buf, size_t size)
{
	struct prefixed *pf = cookie;
	size_t n = 0;

	while (n < size && pf->head_pos < pf->head_len)
		buf[n++] = (char)pf->head[pf->head_pos++];
	if (n < size)
		n += fread(buf + n, 1, size - n, pf->f);
	return n || !ferror(pf->f) ? (ssize_t)n : -1;
}

static int decode_pcap(struct decode_ctx *x, FILE *in, const uint8_t *head,
		       size_t head_len)
{
	cookie_io_functions_t io = { .read = prefixed_read };
	struct prefixed pf = { .f = in, .head_len = head_len };
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *data, *pl;
	size_t pl_len, frame = 0;
	FILE *f;
	pcap_t *p;
	int dlt, r;

	memcpy(pf.head, head, head_len);
	f = fopencookie(&pf, "rb", io);
	if (!f)
		return -errno;
	p = pcap_fopen_offline(f, err);
	if (!p) {
		fclose(f);
		fprintf(stderr, "netoops decode: %s\n", err);
		return -EBADMSG;
	}
	dlt = pcap_datalink(p);
	while ((r = pcap_next_ex(p, &h, &data)) == 1) {
		frame++;
		pl = udp_payload(dlt, data, h->caplen, &pl_len);
		if (!pl || pl_len < 4 || memcmp(pl, "NOPS", 4)) {
			x->skipped++;
			continue;
		}
		one_packet(x, pl, pl_len, pl_len, frame);
	}
	pcap_close(p);	/* closes f */
	return 0;
}

int cmd_decode(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "packets", no_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	struct netoops_reasm_limits lim = {
		.max_dumps_per_source = 1u << 20,
		.max_dumps = 1u << 20,
		.max_bytes_total = 1ull << 34,
		.timeout_ms = 1ull << 40,
	};
	struct decode_ctx x = { 0 };
	struct netoops_dump *nd;
	const char *path;
	uint8_t head[4];
	uint32_t magic;
	size_t len;
	FILE *in;
	int o, r, i, k;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'p')
			x.show_packets = true;
		else if (o == 'j')
			c->json = true;
		else
			return 2;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "Usage: netoops decode [--packets] [--json]"
			" FILE|-\n");
		return 2;
	}
	x.json = c->json;
	path = argv[optind];
	in = strcmp(path, "-") ? fopen(path, "rbe") : stdin;
	if (!in) {
		fprintf(stderr, "netoops decode: %s: %m\n", path);
		return 1;
	}
	r = netoops_reasm_new(&lim, &x.reasm);
	/* as netoopsd: lost datagrams rebuilt from parity */
	if (!r)
		r = netoops_reasm_enable_fec(x.reasm);
	if (r < 0) {
		fprintf(stderr, "netoops decode: %s\n", strerror(-r));
		if (in != stdin)
			fclose(in);
		return 1;
	}
	x.jpackets = json_array();
	/* Streamed: the first bytes say which format, then the rest. */
	len = fread(head, 1, sizeof(head), in);
	magic = len == 4 ? (uint32_t)head[0] | (uint32_t)head[1] << 8 |
		(uint32_t)head[2] << 16 | (uint32_t)head[3] << 24 : 0;
	if (ferror(in))
		r = -(errno ? errno : EIO);
	else if (magic == 0xa1b2c3d4 || magic == 0xd4c3b2a1 ||
		 magic == 0xa1b23c4d || magic == 0x4d3cb2a1 ||
		 magic == 0x0a0d0d0a)
		r = decode_pcap(&x, in, head, len);
	else
		r = decode_raw(&x, in, head, len);
	if (r < 0 && r != -EBADMSG)
		fprintf(stderr, "netoops decode: %s: %s\n", path,
			strerror(-r));
	if (in != stdin)
		fclose(in);
	/* What never completed is shown as partial, with its gaps. */
	while (netoops_reasm_flush(x.reasm, &nd) == 1)
		emit_dump(&x, nd);
	netoops_reasm_free(x.reasm);
	if (x.json) {
		json_t *o2 = json_object(), *bad = json_object();

		json_object_set_new(o2, "packets", json_integer(x.packets));
		json_object_set_new(o2, "accepted", json_integer(x.accepted));
		json_object_set_new(o2, "duplicates",
				    json_integer(x.duplicates));
		json_object_set_new(o2, "refused", json_integer(x.bad));
		for (i = 1; i < NETOOPS_ERR__MAX; i++)
			if (x.bad_by[i])
				json_object_set_new(bad, netoops_err_str(i),
						    json_integer(x.bad_by[i]));
		json_object_set_new(o2, "refused_by_reason", bad);
		json_object_set_new(o2, "skipped_frames",
				    json_integer(x.skipped));
		json_object_set_new(o2, "parity_packets",
				    json_integer(x.parity));
		json_object_set_new(o2, "fec_rebuilt", json_integer(x.rebuilt));
		json_object_set_new(o2, "partial_dumps",
				    json_integer(x.partial));
		json_object_set_new(o2, "signed_packets",
				    json_integer(x.signed_pkts));
		json_object_set_new(o2, "macs_verified", json_false());
		if (x.show_packets)
			json_object_set_new(o2, "packet_list", x.jpackets);
		else
			json_decref(x.jpackets);
		json_stream_end(&x, o2);
	} else {
		json_decref(x.jpackets);
		printf("%s%lu packets: %lu accepted, %lu duplicate, %lu"
		       " refused", x.dumps ? "\n" : "", x.packets, x.accepted,
		       x.duplicates, x.bad);
		for (i = 1, k = 0; i < NETOOPS_ERR__MAX; i++)
			if (x.bad_by[i])
				printf("%s%s %lu", k++ ? ", " : " (",
				       netoops_err_str(i), x.bad_by[i]);
		printf("%s; %lu dumps (%lu complete", k ? ")" : "", x.dumps,
		       x.dumps - x.partial);
		if (x.partial)
			printf(", %lu partial", x.partial);
		printf(")\n");
		if (x.parity)
			printf("%lu parity datagrams, %lu data datagrams rebuilt"
			       " from them\n", x.parity, x.rebuilt);
		if (x.signed_pkts)
			printf("%lu packets carried a MAC, not verified"
			       " (netoops decode takes no keys)\n",
			       x.signed_pkts);
		if (x.skipped)
			printf("%lu captured frames were not netoops\n",
			       x.skipped);
	}
	if (r < 0)
		return 1;
	/* A file that is not a capture of netoops at all is an error. */
	if (x.packets == x.bad) {
		fprintf(stderr, "netoops decode: %s: no valid netoops datagram"
			" (%lu refused)\n", strcmp(path, "-") ?
			path : "standard input", x.bad);
		return 1;
	}
	/* decoded, but not all of it: a datagram refused, a dump partial */
	return x.bad || x.partial ? 3 : 0;
}
