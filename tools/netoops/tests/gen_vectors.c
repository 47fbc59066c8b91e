// SPDX-License-Identifier: GPL-2.0
/*
 * gen_vectors: write the golden packets of tests/vectors/, the framed seeds
 * of fuzz/corpus/, or an annotated hexdump of a packet (for the spec).
 *
 *   gen_vectors DIR              write DIR/<name>-<pkt_index>[-p<row>].bin
 *   gen_vectors --corpus DIR     write DIR/<name>.framed (fuzzer seeds)
 *   gen_vectors --hexdump FILE   annotated hexdump of one datagram
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib_test_util.h"
#include "vector_name.h"

static uint16_t g16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t g32(const uint8_t *p)
{
	return (uint32_t)g16(p) | (uint32_t)g16(p + 2) << 16;
}

static void hexline(const uint8_t *p, size_t off, size_t n, const char *what)
{
	size_t i;

	printf("  %04zx: ", off);
	for (i = 0; i < n; i++)
		printf("%02x%s", p[off + i], (i % 4 == 3 && i + 1 < n) ? " " : "");
	printf("%*s  %s\n", (int)(16 - n) * 2 + (int)(16 - n) / 4 + 1, "",
	       what);
}

static void hexrange(const uint8_t *p, size_t off, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i += 16)
		hexline(p, off + i, n - i < 16 ? n - i : 16,
			i ? "" : what);
}

static const char *tlv_name(uint16_t t)
{
	static const char *const names[] = {
		"PAD", "DUMP_INFO", "TIME", "RELEASE", "VERSION", "ARCH",
		"HOSTNAME", "CPU_X86", "CPU_ARM64", "REGS", "TAINT", "USER",
		"PAYLOAD_INFO", "PAYLOAD",
	};

	t &= NETOOPS_TLV_TYPE_MASK;
	if (t < sizeof(names) / sizeof(names[0]))
		return names[t];
	if (t >= NETOOPS_TLV_VENDOR_FIRST)
		return "vendor";
	return "unknown";
}

static int hexdump(const char *path)
{
	uint8_t *p;
	size_t len, off;
	char what[128];
	int err = tu_read_file(path, &p, &len);

	if (err) {
		fprintf(stderr, "gen_vectors: %s: %s\n", path, strerror(-err));
		return 1;
	}
	if (len < NETOOPS_HDR_LEN_V1) {
		fprintf(stderr, "gen_vectors: %s: too short\n", path);
		free(p);
		return 1;
	}
	printf("  %s: %zu bytes\n", path, len);
	hexline(p, 0, 4, "magic \"NOPS\"");
	snprintf(what, sizeof(what), "version %u, hdr_len %u, flags 0x%04x",
		 p[4], p[5], g16(p + 6));
	hexline(p, 4, 4, what);
	hexline(p, 8, 16, "boot_id");
	snprintf(what, sizeof(what), "dump_id %u", g32(p + 24));
	hexline(p, 24, 8, what);
	snprintf(what, sizeof(what), "pkt_index %u, pkt_count %u",
		 g16(p + 32), g16(p + 34));
	hexline(p, 32, 4, what);
	snprintf(what, sizeof(what), "tlv_len %u, reserved0", g16(p + 36));
	hexline(p, 36, 4, what);
	snprintf(what, sizeof(what), "payload_off %u", g32(p + 40));
	hexline(p, 40, 4, what);
	snprintf(what, sizeof(what), "payload_total %u", g32(p + 44));
	hexline(p, 44, 4, what);
	snprintf(what, sizeof(what), "checksum 0x%08x", g32(p + 48));
	hexline(p, 48, 4, what);
	hexline(p, 52, 4, "reserved1");
	for (off = p[5]; off + 4 <= len;) {
		uint16_t type = g16(p + off), vlen = g16(p + off + 2);
		size_t space = NETOOPS_TLV_SPACE(vlen);

		snprintf(what, sizeof(what), "TLV type 0x%04x %s, len %u",
			 type, tlv_name(type), vlen);
		hexline(p, off, 4, what);
		if (off + space > len)
			break;
		hexrange(p, off + 4, space - 4, "  value (+ padding)");
		off += space;
	}
	free(p);
	return 0;
}

static int write_all(const char *dir, int framed)
{
	char path[4096];
	size_t v, i;
	int err;

	for (v = 0; v < tu_nr_vectors; v++) {
		struct tu_dump d;
		uint8_t *buf = NULL;
		size_t blen = 0;

		err = tu_vectors[v].build(&d);
		if (err) {
			fprintf(stderr, "gen_vectors: %s: %s\n",
				tu_vectors[v].name, strerror(-err));
			return 1;
		}
		for (i = 0; i < d.n; i++) {
			if (framed) {
				uint8_t *nb = realloc(buf, blen + 2 + d.len[i]);

				if (!nb) {
					free(buf);
					tu_dump_clear(&d);
					return 1;
				}
				buf = nb;
				buf[blen] = (uint8_t)d.len[i];
				buf[blen + 1] = (uint8_t)(d.len[i] >> 8);
				memcpy(buf + blen + 2, d.pkt[i], d.len[i]);
				blen += 2 + d.len[i];
				continue;
			}
			if (tu_vector_path(path, sizeof(path), dir,
					   tu_vectors[v].name, d.pkt[i],
					   d.len[i]) < 0) {
				fprintf(stderr, "gen_vectors: %s: datagram %zu "
					"has no parity row\n",
					tu_vectors[v].name, i);
				tu_dump_clear(&d);
				return 1;
			}
			err = tu_write_file(path, d.pkt[i], d.len[i]);
			if (err) {
				fprintf(stderr, "gen_vectors: %s: %s\n", path,
					strerror(-err));
				tu_dump_clear(&d);
				return 1;
			}
			printf("%s (%zu bytes): %s\n", path, d.len[i],
			       tu_vectors[v].what);
		}
		if (framed) {
			snprintf(path, sizeof(path), "%s/%s.framed", dir,
				 tu_vectors[v].name);
			err = tu_write_file(path, buf, blen);
			free(buf);
			if (err) {
				fprintf(stderr, "gen_vectors: %s: %s\n", path,
					strerror(-err));
				tu_dump_clear(&d);
				return 1;
			}
			printf("%s (%zu bytes)\n", path, blen);
		}
		tu_dump_clear(&d);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--hexdump"))
		return hexdump(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--corpus"))
		return write_all(argv[2], 1);
	if (argc == 2 && argv[1][0] != '-')
		return write_all(argv[1], 0);
	fprintf(stderr,
		"usage: gen_vectors DIR | --corpus DIR | --hexdump FILE\n");
	return 2;
}
