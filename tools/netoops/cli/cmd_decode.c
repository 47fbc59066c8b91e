// SPDX-License-Identifier: GPL-2.0
/*
 * netoops decode: datagrams from a file (raw, concatenated, as netoopsd
 * --archive writes them) or a packet capture (libpcap), decoded and
 * reassembled with the decoder library, printed as text or JSON.  No store.
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
	unsigned long packets, bad, skipped;
	unsigned long signed_pkts;	/* with a MAC, not verified */
	unsigned long bad_by[NETOOPS_ERR__MAX];
	uint64_t now;			/* fake clock: packets in order */
	json_t *jdumps;
	unsigned long dumps;
};

static void emit_dump(struct decode_ctx *x, struct netoops_dump *nd)
{
	struct nstore_dump *d;
	int perr = 0;

	if (nstore_record_from_dump(nd, 0, &d, &perr) < 0) {
		fprintf(stderr, "netoops decode: out of memory\n");
		netoops_dump_free(nd);
		return;
	}
	netoops_dump_free(nd);
	d->id = ++x->dumps;
	if (x->json) {
		json_t *o = dump_to_json(d, true);

		json_object_del(o, "received");
		json_object_del(o, "received_ms");
		json_object_del(o, "src");
		/* not "false": nothing here can verify a MAC */
		json_object_set_new(o, "authenticated", json_null());
		if (perr)
			json_object_set_new(o, "payload_error",
					    json_string(strerror(-perr)));
		json_array_append_new(x->jdumps, o);
	} else {
		if (x->dumps > 1)
			putchar('\n');
		dump_print_text(stdout, d, false);
		if (perr)
			printf("(payload error: %s)\n", strerror(-perr));
	}
	nstore_dump_free(d);
}

static void one_packet(struct decode_ctx *x, const uint8_t *buf, size_t len,
		       size_t where)
{
	struct netoops_packet p;
	struct netoops_dump *done = NULL;
	enum netoops_err why = NETOOPS_OK;
	int r;

	x->packets++;
	r = netoops_decode_packet(buf, len, &p);
	if (r < 0) {
		x->bad++;
		if (p.err < NETOOPS_ERR__MAX)
			x->bad_by[p.err]++;
	} else {
		x->signed_pkts += p.has_mac;
		r = netoops_reasm_add(x->reasm, NULL, 0, &p, x->now++, &done,
				      &why);
		if (r == NETOOPS_REASM_COMPLETE)
			emit_dump(x, done);
		else if (r < 0)
			p.err = why;
	}
	if (!x->show_packets)
		return;
	if (x->json) {
		json_t *o = json_object();
		char boot[33];

		json_object_set_new(o, "offset", json_integer(where));
		json_object_set_new(o, "len", json_integer(len));
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
			json_object_set_new(o, "payload_off",
					    json_integer(p.payload_off));
			json_object_set_new(o, "chunk_len",
					    json_integer(p.chunk_len));
			json_object_set_new(o, "meta", json_boolean(p.has_meta));
			json_object_set_new(o, "mac_key_id", p.has_mac ?
					    json_integer(p.key_id) :
					    json_null());
		}
		json_array_append_new(x->jpackets, o);
	} else if (r < 0) {
		printf("packet @%zu len %zu: refused (%s)\n", where, len,
		       netoops_err_str(p.err));
	} else {
		char boot[33];

		nstore_boot_id_hex(p.boot_id, boot);
		printf("packet @%zu len %zu: %s/%llu %u/%u payload %u+%zu%s",
		       where, len, boot, (unsigned long long)p.dump_id,
		       p.pkt_index, p.pkt_count, p.payload_off, p.chunk_len,
		       p.has_meta ? " meta" : "");
		if (p.has_mac)
			printf(" mac key %u (not verified)", p.key_id);
		putchar('\n');
	}
}

/* Concatenated raw datagrams: each one says its length (hdr + tlv). */
static void decode_raw(struct decode_ctx *x, const uint8_t *buf, size_t len)
{
	size_t off = 0, n;

	while (off < len) {
		const uint8_t *p = buf + off;
		size_t left = len - off;

		if (left < NETOOPS_HDR_LEN_V1 || memcmp(p, "NOPS", 4)) {
			/* Garbage: hand it to the decoder once (it says why),
			 * then look for the next magic.
			 */
			const uint8_t *next = memmem(p + 1, left - 1, "NOPS", 4);

			n = next ? (size_t)(next - p) : left;
		} else {
			n = p[5] + (p[36] | p[37] << 8);
			if (n < NETOOPS_HDR_LEN_V1 || n > left)
				n = left < NETOOPS_PKT_MAX ? left :
							     NETOOPS_PKT_MAX;
		}
		one_packet(x, p, n, off);
		off += n;
	}
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

static int decode_pcap(struct decode_ctx *x, char *buf, size_t len)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *data, *pl;
	size_t pl_len, frame = 0;
	FILE *f;
	pcap_t *p;
	int dlt, r;

	f = fmemopen(buf, len, "rb");
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
		one_packet(x, pl, pl_len, frame);
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
	uint32_t magic;
	size_t len;
	char *buf;
	int o, r, i;

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
	r = read_file(argv[optind], &buf, &len);
	if (r < 0) {
		fprintf(stderr, "netoops decode: %s: %s\n", argv[optind],
			strerror(-r));
		return 1;
	}
	r = netoops_reasm_new(&lim, &x.reasm);
	if (r < 0) {
		fprintf(stderr, "netoops decode: %s\n", strerror(-r));
		free(buf);
		return 1;
	}
	x.jdumps = json_array();
	x.jpackets = json_array();
	magic = len >= 4 ? (uint32_t)(uint8_t)buf[0] |
		(uint32_t)(uint8_t)buf[1] << 8 |
		(uint32_t)(uint8_t)buf[2] << 16 |
		(uint32_t)(uint8_t)buf[3] << 24 : 0;
	if (magic == 0xa1b2c3d4 || magic == 0xd4c3b2a1 ||
	    magic == 0xa1b23c4d || magic == 0x4d3cb2a1 ||
	    magic == 0x0a0d0d0a)
		r = decode_pcap(&x, buf, len);
	else
		decode_raw(&x, (const uint8_t *)buf, len);
	/* What never completed is shown as partial, with its gaps. */
	while (netoops_reasm_flush(x.reasm, &nd) == 1)
		emit_dump(&x, nd);
	netoops_reasm_free(x.reasm);
	free(buf);
	if (x.json) {
		json_t *o2 = json_object(), *bad = json_object();

		json_object_set_new(o2, "packets", json_integer(x.packets));
		json_object_set_new(o2, "refused", json_integer(x.bad));
		for (i = 1; i < NETOOPS_ERR__MAX; i++)
			if (x.bad_by[i])
				json_object_set_new(bad, netoops_err_str(i),
						    json_integer(x.bad_by[i]));
		json_object_set_new(o2, "refused_by_reason", bad);
		json_object_set_new(o2, "skipped_frames",
				    json_integer(x.skipped));
		json_object_set_new(o2, "signed_packets",
				    json_integer(x.signed_pkts));
		json_object_set_new(o2, "macs_verified", json_false());
		if (x.show_packets)
			json_object_set_new(o2, "packet_list", x.jpackets);
		else
			json_decref(x.jpackets);
		json_object_set_new(o2, "dumps", x.jdumps);
		print_json(o2, true);
	} else {
		json_decref(x.jdumps);
		json_decref(x.jpackets);
		printf("%s%lu packets, %lu refused", x.dumps ? "\n" : "",
		       x.packets, x.bad);
		for (i = 1; i < NETOOPS_ERR__MAX; i++)
			if (x.bad_by[i])
				printf(", %s %lu", netoops_err_str(i),
				       x.bad_by[i]);
		printf("; %lu dumps\n", x.dumps);
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
			" (%lu refused)\n", strcmp(argv[optind], "-") ?
			argv[optind] : "standard input", x.bad);
		return 1;
	}
	return 0;
}
