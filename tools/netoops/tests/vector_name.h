/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File name of one golden-vector datagram (tests/vectors/README.rst), the
 * one rule gen_vectors writes by and test_vectors reads by:
 *
 *   data datagram     <vector>-<pkt_index>.bin
 *   parity datagram   <vector>-<pkt_index>-p<row>.bin
 *
 * A parity datagram's pkt_index is the first index of its group and <row>
 * is the row of its PARITY TLV, which the encoder writes first after the
 * header.
 */
#ifndef VECTOR_NAME_H
#define VECTOR_NAME_H

#include <stdint.h>
#include <stdio.h>

#include <linux/netoops.h>

/* Write DIR/<vector>-... for datagram @pkt of @len bytes into @buf. */
static inline int tu_vector_path(char *buf, size_t cap, const char *dir,
				 const char *vector, const uint8_t *pkt,
				 size_t len)
{
	unsigned int flags = pkt[6] | pkt[7] << 8;
	unsigned int idx = pkt[32] | pkt[33] << 8;
	size_t row_at = (size_t)pkt[5] + sizeof(struct netoops_tlv) + 4;

	if (!(flags & NETOOPS_F_PARITY))
		return snprintf(buf, cap, "%s/%s-%u.bin", dir, vector, idx);
	if (row_at >= len)
		return -1;
	return snprintf(buf, cap, "%s/%s-%u-p%u.bin", dir, vector, idx,
			pkt[row_at]);
}

#endif /* VECTOR_NAME_H */
