// SPDX-License-Identifier: GPL-2.0
/*
 * netoops authentication: HMAC-SHA256 truncated to 128 bits over a datagram
 * (see NETOOPS_F_AUTH in include/uapi/linux/netoops.h), with OpenSSL's
 * EVP_MAC.  See netoops_decode.h for the contract.
 */
#include <errno.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "netoops_decode.h"

struct mac_part {
	const void	*buf;
	size_t		len;
};

static int hmac_parts(const uint8_t *key, size_t key_len,
		      const struct mac_part *parts, int nparts,
		      uint8_t out[NETOOPS_MAC_LEN])
{
	uint8_t md[EVP_MAX_MD_SIZE];
	char digest[] = "SHA256";
	OSSL_PARAM params[2];
	EVP_MAC_CTX *ctx = NULL;
	EVP_MAC *mac;
	size_t md_len = 0;
	int i, err = -EIO;

	if (!key_len)
		return -EINVAL;
	mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (!mac)
		return -ENOMEM;
	ctx = EVP_MAC_CTX_new(mac);
	if (!ctx) {
		err = -ENOMEM;
		goto out;
	}
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						     digest, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (!EVP_MAC_init(ctx, key, key_len, params))
		goto out;
	for (i = 0; i < nparts; i++)
		if (parts[i].len &&
		    !EVP_MAC_update(ctx, parts[i].buf, parts[i].len))
			goto out;
	if (!EVP_MAC_final(ctx, md, &md_len, sizeof(md)) ||
	    md_len < NETOOPS_MAC_LEN)
		goto out;
	memcpy(out, md, NETOOPS_MAC_LEN);
	err = 0;
out:
	OPENSSL_cleanse(md, sizeof(md));
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return err;
}

int netoops_hmac(void *ctx, const void *buf, size_t len,
		 uint8_t mac[NETOOPS_MAC_LEN])
{
	const struct netoops_key *k = ctx;
	struct mac_part part = { buf, len };

	if (!k || !k->key || (len && !buf) || !mac)
		return -EINVAL;
	return hmac_parts(k->key, k->key_len, &part, 1, mac);
}

int netoops_auth_check(const struct netoops_packet *pkt, bool required,
		       netoops_key_lookup_fn lookup, void *ctx,
		       enum netoops_err *reason)
{
	static const uint8_t zero[4];
	struct netoops_key key = { 0 };
	uint8_t mac[NETOOPS_MAC_LEN];
	struct mac_part parts[3];
	int err;

	if (reason)
		*reason = NETOOPS_OK;
	if (!pkt)
		return -EINVAL;
	if (!pkt->has_mac) {
		if (!required)
			return 0;
		if (reason)
			*reason = NETOOPS_ERR_UNSIGNED;
		return -EACCES;
	}
	if (!lookup)
		return required ? -EINVAL : 0;
	if (!pkt->raw || pkt->mac_off < NETOOPS_HDR_LEN_V1 ||
	    pkt->mac_off > pkt->raw_len) {
		if (reason)
			*reason = NETOOPS_ERR_INVALID;
		return -EINVAL;
	}
	if (lookup(ctx, pkt->key_id, pkt, &key) || !key.key ||
	    !key.key_len) {
		if (reason)
			*reason = NETOOPS_ERR_UNKNOWN_KEY;
		return -ENOKEY;
	}
	parts[0].buf = pkt->raw;
	parts[0].len = 48;
	parts[1].buf = zero;
	parts[1].len = sizeof(zero);
	parts[2].buf = pkt->raw + 52;
	parts[2].len = pkt->mac_off - 52;
	err = hmac_parts(key.key, key.key_len, parts, 3, mac);
	if (err)
		return err;
	if (CRYPTO_memcmp(mac, pkt->mac, NETOOPS_MAC_LEN)) {
		if (reason)
			*reason = NETOOPS_ERR_BAD_MAC;
		return -EACCES;
	}
	return 0;
}

int netoops_auth_verify(struct netoops_packet *pkt, bool required,
			netoops_key_lookup_fn lookup, void *ctx,
			enum netoops_err *reason)
{
	int err;

	if (!pkt)
		return netoops_auth_check(pkt, required, lookup, ctx, reason);
	pkt->verified = false;
	err = netoops_auth_check(pkt, required, lookup, ctx, reason);
	/* 0 with a MAC and a key ring means the MAC matched a key */
	if (!err && pkt->has_mac && lookup)
		pkt->verified = true;
	return err;
}
