// SPDX-License-Identifier: GPL-2.0
/*
 * netoops forward error correction, receive side: rebuild lost data
 * datagrams of a parity group with Intel ISA-L, whose Cauchy generator
 * (gf_gen_cauchy1_matrix) the encoder in fs/pstore/netoops_enc.c follows.
 * See netoops_decode.h for the contract.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <isa-l/erasure_code.h>

#include "netoops_decode.h"

int netoops_fec_rebuild(unsigned int k, unsigned int m, size_t len,
			const uint8_t *const *blocks, uint8_t **out)
{
	unsigned char *gen = NULL, *sub = NULL, *inv = NULL, *dec = NULL;
	unsigned char *tbls = NULL;
	unsigned char *src[NETOOPS_FEC_MAX], *dst[NETOOPS_FEC_MAX];
	unsigned int rows[NETOOPS_FEC_MAX];
	unsigned int i, j, have = 0, nerr = 0;
	int err;

	if (!k || !m || k + m > NETOOPS_FEC_MAX || !len || len > INT_MAX ||
	    !blocks || !out)
		return -EINVAL;
	for (i = 0; i < k + m && have < k; i++)
		if (blocks[i])
			rows[have++] = i;
	if (have < k)
		return -ENODATA;
	for (j = 0; j < k; j++) {
		if (blocks[j])
			continue;
		if (!out[j])
			return -EINVAL;
		nerr++;
	}
	if (!nerr)
		return 0;

	gen = malloc((size_t)(k + m) * k);
	sub = malloc((size_t)k * k);
	inv = malloc((size_t)k * k);
	dec = malloc((size_t)nerr * k);
	tbls = malloc((size_t)32 * k * nerr);
	err = -ENOMEM;
	if (!gen || !sub || !inv || !dec || !tbls)
		goto out;
	gf_gen_cauchy1_matrix(gen, (int)(k + m), (int)k);
	/* survivors = sub * data, so data = inv(sub) * survivors */
	for (i = 0; i < k; i++) {
		memcpy(sub + (size_t)i * k, gen + (size_t)rows[i] * k, k);
		src[i] = (unsigned char *)blocks[rows[i]];
	}
	err = -EIO;
	if (gf_invert_matrix(sub, inv, (int)k))
		goto out;
	nerr = 0;
	for (j = 0; j < k; j++) {
		if (blocks[j])
			continue;
		memcpy(dec + (size_t)nerr * k, inv + (size_t)j * k, k);
		dst[nerr++] = out[j];
	}
	ec_init_tables((int)k, (int)nerr, dec, tbls);
	ec_encode_data((int)len, (int)k, (int)nerr, tbls, src, dst);
	err = (int)nerr;
out:
	free(gen);
	free(sub);
	free(inv);
	free(dec);
	free(tbls);
	return err;
}

int netoops_reasm_enable_fec(struct netoops_reasm *r)
{
	return netoops_reasm_set_rebuild(r, netoops_fec_rebuild);
}
