/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netoops decoder library: packet validation and parsing, reassembly of
 * dumps from datagrams, and payload inflation.
 *
 * Pure library: no I/O, no logging, no global state.  Time is always passed
 * in (milliseconds on any monotonic clock the caller likes).  Functions
 * return 0 (or a documented non-negative value) on success and a negative
 * errno on failure; where a failure has several causes, a
 * &enum netoops_err reason says which, and netoops_err_str() names it.
 *
 * Linking: build/libnetoops.a (optimised), build-san/libnetoops.a (ASan +
 * UBSan) or build-fuzz/libnetoops.a (libFuzzer), plus -lz.  The archives also
 * hold the encoder (fs/pstore/netoops_enc.h).
 */
#ifndef NETOOPS_DECODE_H
#define NETOOPS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netoops.h>

/**
 * enum netoops_err - why a packet or a dump was refused
 * @NETOOPS_OK:			no error
 * @NETOOPS_ERR_SHORT:		shorter than the v1 header
 * @NETOOPS_ERR_MAGIC:		magic is not "NOPS"
 * @NETOOPS_ERR_VERSION:	version is not NETOOPS_VERSION
 * @NETOOPS_ERR_HDR_LEN:	hdr_len < 56, not a multiple of 4, or past the end
 * @NETOOPS_ERR_LENGTH:		datagram length != hdr_len + tlv_len
 * @NETOOPS_ERR_CHECKSUM:	CRC-32 mismatch
 * @NETOOPS_ERR_FLAGS:		unknown critical flag, or metadata TLVs in a
 *				packet without NETOOPS_F_META
 * @NETOOPS_ERR_INDEX:		pkt_count is 0 or pkt_index >= pkt_count
 * @NETOOPS_ERR_TLV_TRUNCATED:	a TLV (or its padding) runs past tlv_len
 * @NETOOPS_ERR_TLV_CRITICAL_UNKNOWN: unknown TLV type with the critical bit
 *				(type in &netoops_packet.err_tlv)
 * @NETOOPS_ERR_TLV_SHORT:	known TLV shorter than its defined layout
 * @NETOOPS_ERR_TLV_DUPLICATE:	a single-instance TLV appears twice
 * @NETOOPS_ERR_TLV_VALUE:	malformed value (bad user key, missing NUL,
 *				register count larger than the value...)
 * @NETOOPS_ERR_COMPRESSION:	unknown payload compression
 * @NETOOPS_ERR_PAYLOAD_RANGE:	payload chunk outside 0..payload_total, or
 *				payload_off set without a chunk
 * @NETOOPS_ERR_MISMATCH:	pkt_count or payload_total differs from the
 *				earlier packets of the same dump
 * @NETOOPS_ERR_CONFLICT:	same packet index (or same payload bytes) seen
 *				before with different content
 * @NETOOPS_ERR_LIMIT_PACKETS:	pkt_count above limits.max_pkts_per_dump
 * @NETOOPS_ERR_LIMIT_BYTES:	payload_total above limits.max_bytes_per_dump
 * @NETOOPS_ERR_LIMIT_SOURCE:	source has limits.max_dumps_per_source open
 * @NETOOPS_ERR_LIMIT_DUMPS:	limits.max_dumps open in all
 * @NETOOPS_ERR_LIMIT_MEMORY:	would buffer more than limits.max_bytes_total
 * @NETOOPS_ERR_NOMEM:		allocation failed
 * @NETOOPS_ERR_INVALID:	invalid argument from the caller
 * @NETOOPS_ERR_UNSIGNED:	no MAC, and the receiver requires one
 * @NETOOPS_ERR_BAD_MAC:	MAC does not verify (forged or altered), or
 *				NETOOPS_F_AUTH without a last MAC TLV
 * @NETOOPS_ERR_UNKNOWN_KEY:	the MAC names a key id the receiver lacks
 * @NETOOPS_ERR_REPLAY:		datagram of a dump already completed (the
 *				reassembler still remembers it)
 * @NETOOPS_ERR_PARITY:		malformed parity datagram or group, or a
 *				rebuilt datagram that does not check out
 * @NETOOPS_ERR_DOWNGRADE:	a data datagram not verified (or verified
 *				with another key) for a dump built from
 *				datagrams verified with a key
 * @NETOOPS_ERR__MAX:		number of values
 */
enum netoops_err {
	NETOOPS_OK = 0,
	NETOOPS_ERR_SHORT,
	NETOOPS_ERR_MAGIC,
	NETOOPS_ERR_VERSION,
	NETOOPS_ERR_HDR_LEN,
	NETOOPS_ERR_LENGTH,
	NETOOPS_ERR_CHECKSUM,
	NETOOPS_ERR_FLAGS,
	NETOOPS_ERR_INDEX,
	NETOOPS_ERR_TLV_TRUNCATED,
	NETOOPS_ERR_TLV_CRITICAL_UNKNOWN,
	NETOOPS_ERR_TLV_SHORT,
	NETOOPS_ERR_TLV_DUPLICATE,
	NETOOPS_ERR_TLV_VALUE,
	NETOOPS_ERR_COMPRESSION,
	NETOOPS_ERR_PAYLOAD_RANGE,
	NETOOPS_ERR_MISMATCH,
	NETOOPS_ERR_CONFLICT,
	NETOOPS_ERR_LIMIT_PACKETS,
	NETOOPS_ERR_LIMIT_BYTES,
	NETOOPS_ERR_LIMIT_SOURCE,
	NETOOPS_ERR_LIMIT_DUMPS,
	NETOOPS_ERR_LIMIT_MEMORY,
	NETOOPS_ERR_NOMEM,
	NETOOPS_ERR_INVALID,
	NETOOPS_ERR_UNSIGNED,
	NETOOPS_ERR_BAD_MAC,
	NETOOPS_ERR_UNKNOWN_KEY,
	NETOOPS_ERR_REPLAY,
	NETOOPS_ERR_PARITY,
	NETOOPS_ERR_DOWNGRADE,
	NETOOPS_ERR__MAX
};

/**
 * netoops_err_str() - short stable name of a reason, e.g. "checksum"
 * @err: the reason
 *
 * Return: a static string; "unknown" for out-of-range values.
 */
const char *netoops_err_str(enum netoops_err err);

/* Longest string kept from RELEASE/VERSION/ARCH/HOSTNAME (longer: cut). */
#define NETOOPS_META_STR_MAX	64
/* Most user fields kept per dump; more are counted in user_dropped. */
#define NETOOPS_META_USER_MAX	32
/* Most registers kept from a REGS TLV; more are counted, not stored. */
#define NETOOPS_META_REGS_MAX	64

/* netoops_meta.present bits: one per TLV type. */
#define NETOOPS_META_HAS(type)	(1u << (type))

/**
 * struct netoops_user_field - one NETOOPS_TLV_USER
 * @key:	NUL-terminated key, 1..NETOOPS_USER_KEY_MAX of [A-Za-z0-9_.-]
 * @value:	NUL-terminated value, 0..NETOOPS_USER_VALUE_MAX bytes
 */
struct netoops_user_field {
	char	key[NETOOPS_USER_KEY_MAX + 1];
	char	value[NETOOPS_USER_VALUE_MAX + 1];
};

/**
 * struct netoops_meta - metadata of a dump, in host byte order
 * @present:	NETOOPS_META_HAS(NETOOPS_TLV_x) for each TLV type seen;
 *		fields of absent TLVs are zero
 * @reason:	&netoops_dump_info.reason (NETOOPS_REASON_*)
 * @oops_count:	&netoops_dump_info.oops_count
 * @part:	&netoops_dump_info.part
 * @cpu:	&netoops_dump_info.cpu
 * @wall_sec:	&netoops_time.wall_sec
 * @wall_nsec:	&netoops_time.wall_nsec
 * @uptime_ns:	&netoops_time.uptime_ns
 * @release:	NETOOPS_TLV_RELEASE, NUL-terminated (cut at an embedded NUL
 *		or at NETOOPS_META_STR_MAX bytes)
 * @version:	NETOOPS_TLV_VERSION, same rules
 * @arch:	NETOOPS_TLV_ARCH, same rules
 * @hostname:	NETOOPS_TLV_HOSTNAME, same rules
 * @x86_vendor:	&netoops_cpu_x86.vendor, NUL-terminated
 * @x86_family:	&netoops_cpu_x86.family
 * @x86_model:	&netoops_cpu_x86.model
 * @x86_stepping: &netoops_cpu_x86.stepping
 * @x86_microcode: &netoops_cpu_x86.microcode
 * @arm64_midr:	&netoops_cpu_arm64.midr
 * @regs_arch:	&netoops_regs.arch (NETOOPS_ARCH_*)
 * @regs_context: &netoops_regs.context (NETOOPS_REGS_*)
 * @regs_nr:	&netoops_regs.nr as sent
 * @regs_kept:	registers stored in @regs: min(@regs_nr, NETOOPS_META_REGS_MAX)
 * @regs:	the registers, in the arch's wire order
 * @taint:	NETOOPS_TLV_TAINT
 * @compression: &netoops_payload_info.compression (NONE or DEFLATE; an
 *		unknown value is refused with NETOOPS_ERR_COMPRESSION)
 * @orig_len:	&netoops_payload_info.orig_len
 * @nr_user:	entries used in @user
 * @user_dropped: user fields received beyond NETOOPS_META_USER_MAX
 * @user:	user fields in the order received
 */
struct netoops_meta {
	uint32_t	present;
	uint32_t	reason;
	uint32_t	oops_count;
	uint32_t	part;
	uint32_t	cpu;
	int64_t		wall_sec;
	uint32_t	wall_nsec;
	uint64_t	uptime_ns;
	char		release[NETOOPS_META_STR_MAX + 1];
	char		version[NETOOPS_META_STR_MAX + 1];
	char		arch[NETOOPS_META_STR_MAX + 1];
	char		hostname[NETOOPS_META_STR_MAX + 1];
	char		x86_vendor[17];
	uint32_t	x86_family;
	uint32_t	x86_model;
	uint32_t	x86_stepping;
	uint32_t	x86_microcode;
	uint64_t	arm64_midr;
	uint16_t	regs_arch;
	uint8_t		regs_context;
	uint16_t	regs_nr;
	uint16_t	regs_kept;
	uint64_t	regs[NETOOPS_META_REGS_MAX];
	uint64_t	taint;
	uint32_t	compression;
	uint32_t	orig_len;
	unsigned int	nr_user;
	unsigned int	user_dropped;
	struct netoops_user_field user[NETOOPS_META_USER_MAX];
};

/**
 * struct netoops_packet - a validated datagram, fields in host byte order
 * @version:	header version (always NETOOPS_VERSION once accepted)
 * @hdr_len:	header length
 * @flags:	NETOOPS_F_* (unknown informational bits kept)
 * @boot_id:	boot identifier
 * @dump_id:	dump identifier
 * @pkt_index:	index of this datagram, < @pkt_count
 * @pkt_count:	datagrams in the dump, >= 1
 * @payload_off: payload offset of @chunk (0 when there is none)
 * @payload_total: payload length of the whole dump
 * @checksum:	the CRC-32 carried (already verified)
 * @chunk:	payload bytes of this datagram, pointing INTO the buffer given
 *		to netoops_decode_packet() (NULL when @chunk_len is 0)
 * @chunk_len:	bytes at @chunk
 * @has_meta:	NETOOPS_F_META was set; @meta is valid
 * @meta:	parsed metadata TLVs; without @has_meta left as it was (not
 *		even cleared: it is most of the struct)
 * @raw:	the whole datagram (the buffer given to netoops_decode_packet())
 * @raw_len:	its length
 * @has_mac:	NETOOPS_F_AUTH was set and the MAC TLV parsed (NOT yet
 *		verified: see netoops_auth_check())
 * @key_id:	&netoops_mac.key_id
 * @verified:	the MAC was checked against a configured key (@key_id) and
 *		matched.  netoops_decode_packet() always clears it (decoding
 *		is not verifying); netoops_auth_verify() sets it.  The
 *		reassembler only reads it: a dump is authenticated when every
 *		data datagram it was built from had it, with one @key_id.
 * @mac:	&netoops_mac.mac
 * @mac_off:	offset of the MAC TLV: the MAC covers bytes 0 .. @mac_off - 1
 * @is_parity:	NETOOPS_F_PARITY: a parity datagram (@chunk is NULL)
 * @par_first:	&netoops_parity.first (equal to @pkt_index)
 * @par_k:	&netoops_parity.k
 * @par_m:	&netoops_parity.m
 * @par_row:	&netoops_parity.row
 * @par_len:	&netoops_parity.coded_len
 * @par_data:	the coded bytes, pointing into the buffer
 * @skipped_tlvs: unknown non-critical TLVs (and PAD) skipped
 * @err:	reason when netoops_decode_packet() failed, else NETOOPS_OK
 * @err_tlv:	type (with critical bit) of the TLV that caused @err, if any
 * @err_offset:	byte offset in the datagram where @err was found
 */
struct netoops_packet {
	uint8_t		version;
	uint8_t		hdr_len;
	uint16_t	flags;
	uint8_t		boot_id[16];
	uint64_t	dump_id;
	uint16_t	pkt_index;
	uint16_t	pkt_count;
	uint32_t	payload_off;
	uint32_t	payload_total;
	uint32_t	checksum;
	const uint8_t	*chunk;
	size_t		chunk_len;
	bool		has_meta;
	struct netoops_meta meta;
	const uint8_t	*raw;
	size_t		raw_len;
	bool		has_mac;
	uint32_t	key_id;
	bool		verified;
	uint8_t		mac[NETOOPS_MAC_LEN];
	size_t		mac_off;
	bool		is_parity;
	uint16_t	par_first;
	uint8_t		par_k;
	uint8_t		par_m;
	uint8_t		par_row;
	uint16_t	par_len;
	const uint8_t	*par_data;
	unsigned int	skipped_tlvs;
	enum netoops_err err;
	uint16_t	err_tlv;
	size_t		err_offset;
};

/**
 * netoops_decode_packet() - validate and parse one datagram
 * @buf:	the datagram (any alignment)
 * @len:	its length
 * @ret:	filled in; on failure only @ret->err, @ret->err_tlv and
 *		@ret->err_offset are meaningful
 *
 * Checks, in order: length >= 56 (SHORT), magic, version, hdr_len, exact
 * length, checksum, critical flags, index, then every TLV (bounds, critical
 * unknown types, value layouts, duplicates, compression, payload range).
 *
 * Return: 0 on success; -EBADMSG for a malformed or corrupt packet,
 * -EPROTONOSUPPORT for another version, -EOPNOTSUPP for an unknown critical
 * TLV, critical flag or compression; -EINVAL if @buf or @ret is NULL.
 */
int netoops_decode_packet(const void *buf, size_t len,
			  struct netoops_packet *ret);

/* ---------------------------------------------------------------------- */
/* Authentication (lib/netoops_auth.c: link -lcrypto)                     */

/**
 * struct netoops_key - a MAC key
 * @key:	key bytes (any length; 32 random bytes recommended)
 * @key_len:	their number, >= 1
 */
struct netoops_key {
	const uint8_t	*key;
	size_t		key_len;
};

/**
 * typedef netoops_key_lookup_fn - find the key a datagram names
 * @ctx:	the caller's context
 * @key_id:	&netoops_packet.key_id
 * @pkt:	the decoded datagram (boot_id, hostname in metadata...), for
 *		per-host policies
 * @ret:	set to the key; it must stay valid until the call returns
 *
 * Return: 0 when found, a negative errno (-ENOKEY) when not.
 */
typedef int (*netoops_key_lookup_fn)(void *ctx, uint32_t key_id,
				     const struct netoops_packet *pkt,
				     struct netoops_key *ret);

/**
 * netoops_hmac() - MAC callback of the encoder, for userspace senders
 * @ctx:	a struct netoops_key
 * @buf:	bytes to authenticate
 * @len:	their number
 * @mac:	HMAC-SHA256(key, @buf) truncated to NETOOPS_MAC_LEN bytes
 *
 * Matches &netoops_mac_fn: pass it with its key in struct netoops_enc_opts.
 *
 * Return: 0, -EINVAL, -ENOMEM or -EIO.
 */
int netoops_hmac(void *ctx, const void *buf, size_t len,
		 uint8_t mac[NETOOPS_MAC_LEN]);

/**
 * netoops_auth_check() - verify the MAC of a decoded datagram
 * @pkt:	accepted by netoops_decode_packet(); its @raw buffer must
 *		still be valid
 * @required:	refuse datagrams without a MAC (a key is configured)
 * @lookup:	key lookup; NULL only when @required is false (then signed
 *		datagrams pass unverified)
 * @ctx:	passed to @lookup
 * @reason:	if not NULL, NETOOPS_OK or NETOOPS_ERR_UNSIGNED, _BAD_MAC,
 *		_UNKNOWN_KEY
 *
 * Call it between netoops_decode_packet() and netoops_reasm_add(); store
 * nothing of a datagram it refuses.  When @lookup is given, every signed
 * datagram must verify, required or not.  Constant-time comparison.
 *
 * Return: 0 if the datagram may be used; -EACCES (unsigned, bad MAC),
 * -ENOKEY (unknown key id), -EINVAL, -ENOMEM, -EIO.
 */
int netoops_auth_check(const struct netoops_packet *pkt, bool required,
		       netoops_key_lookup_fn lookup, void *ctx,
		       enum netoops_err *reason);

/**
 * netoops_auth_verify() - netoops_auth_check(), recording the outcome
 * @pkt:	as for netoops_auth_check()
 * @required:	as for netoops_auth_check()
 * @lookup:	as for netoops_auth_check()
 * @ctx:	as for netoops_auth_check()
 * @reason:	as for netoops_auth_check()
 *
 * Sets &netoops_packet.verified when the datagram was accepted because its
 * MAC matched a key @lookup found (and clears it otherwise: an unsigned
 * datagram let through because nothing is @required, or a signed one when
 * there is no @lookup, is accepted but not verified).
 *
 * Return: as netoops_auth_check().
 */
int netoops_auth_verify(struct netoops_packet *pkt, bool required,
			netoops_key_lookup_fn lookup, void *ctx,
			enum netoops_err *reason);

/* ---------------------------------------------------------------------- */
/* Forward error correction (lib/netoops_fec.c: link -lisal)              */

/**
 * netoops_fec_rebuild() - rebuild lost data blocks of one parity group
 * @k:		data blocks, >= 1
 * @m:		parity blocks, >= 1, @k + @m <= NETOOPS_FEC_MAX
 * @len:	bytes per block
 * @blocks:	@k + @m pointers: data 0..k-1 then parity rows 0..m-1;
 *		NULL for a lost block
 * @out:	@k pointers: for each lost data block j, @out[j] is a buffer of
 *		@len bytes that receives it (others are ignored)
 *
 * Uses ISA-L (gf_gen_cauchy1_matrix, gf_invert_matrix, ec_encode_data),
 * whose generator the encoder uses too.
 *
 * Return: the number of blocks rebuilt; -ENODATA if fewer than @k blocks
 * are present; -EINVAL; -ENOMEM.
 */
int netoops_fec_rebuild(unsigned int k, unsigned int m, size_t len,
			const uint8_t *const *blocks, uint8_t **out);

/* ---------------------------------------------------------------------- */
/* Reassembly                                                             */

/* Longest opaque source key (e.g. a struct sockaddr_in6 fits). */
#define NETOOPS_SRC_KEY_MAX	64

/**
 * struct netoops_reasm_limits - bounds on everything a sender controls
 * @max_pkts_per_dump:	largest pkt_count accepted (default 8192: a 1 MiB
 *			payload in 256-byte datagrams takes 5350)
 * @max_bytes_per_dump:	largest payload_total accepted (default 1 MiB)
 * @max_dumps_per_source: open (incomplete) dumps per source key (default 8)
 * @max_dumps:		open dumps in all (default 1024)
 * @max_bytes_total:	bytes buffered in all open dumps, each counted as
 *			netoops_reasm_cost(), and in the checksums kept of
 *			recently completed ones (default 64 MiB)
 * @timeout_ms:		an open dump with no new packet for this long is
 *			expired and handed out as partial (default 10000)
 * @max_dumps_per_addr:	open dumps per sending address (&netoops_src) and
 *			per class, authenticated or not (default
 *			@max_dumps / 4, at least 1, at most @max_dumps)
 * @partial_min_pct:	0 (the default): every expired dump is handed out.
 *			1..100: an expired dump is discarded instead (counted
 *			in &netoops_reasm_stats.over_budget or .scant) when
 *			its address was over budget in its class within the
 *			last @timeout_ms, when no data datagram of it
 *			arrived, or, unauthenticated, when it has no
 *			metadata or fewer than this percentage of its
 *			pkt_count datagrams
 *
 * A zero field means "use the default".  See netoops_reasm_add_src() for
 * how the budgets are enforced.
 */
struct netoops_reasm_limits {
	uint32_t	max_pkts_per_dump;
	uint32_t	max_bytes_per_dump;
	uint32_t	max_dumps_per_source;
	uint32_t	max_dumps;
	uint64_t	max_bytes_total;
	uint64_t	timeout_ms;
	uint32_t	max_dumps_per_addr;
	uint32_t	partial_min_pct;
};

#define NETOOPS_REASM_DEF_PKTS		8192
#define NETOOPS_REASM_DEF_BYTES		(1u << 20)
#define NETOOPS_REASM_DEF_PER_SOURCE	8
#define NETOOPS_REASM_DEF_DUMPS		1024
#define NETOOPS_REASM_DEF_TOTAL		(64ull << 20)
#define NETOOPS_REASM_DEF_TIMEOUT_MS	10000

/*
 * Copies of one datagram a sender may send: the kernel's repeat parameter
 * goes up to 16.  A further copy of a datagram of a completed dump is a
 * replay (NETOOPS_ERR_REPLAY).
 */
#define NETOOPS_REASM_MAX_COPIES	16

/**
 * struct netoops_gap - a byte range of the payload that never arrived
 * @off:	first missing byte
 * @len:	number of missing bytes
 */
struct netoops_gap {
	uint32_t	off;
	uint32_t	len;
};

/**
 * struct netoops_dump - a finished dump, owned by the caller
 * @src_key:	source key given to netoops_reasm_add()
 * @src_key_len: bytes in @src_key
 * @boot_id:	boot identifier
 * @dump_id:	dump identifier
 * @complete:	every packet arrived (then @nr_gaps is 0 for a well-formed
 *		sender)
 * @has_meta:	a packet with metadata arrived; @meta is valid
 * @meta:	metadata from the first metadata packet received
 * @payload:	@payload_len bytes (missing ranges are zero); NULL if 0
 * @payload_len: payload_total of the dump
 * @gaps:	missing byte ranges in increasing order, none overlapping
 * @nr_gaps:	entries in @gaps
 * @missing_bytes: sum of the gap lengths
 * @pkt_count:	datagrams the dump was sent as
 * @pkts_received: distinct datagrams received
 * @duplicates:	identical datagrams received again
 * @pkts_rebuilt: datagrams (counted in @pkts_received) rebuilt from parity
 * @first_ms:	time the first packet arrived
 * @last_ms:	time the last new packet arrived
 * @authenticated: every data datagram the dump was built from (rebuilt ones
 *		included) had &netoops_packet.verified set, all with the
 *		same key id; false if none had, or if no data datagram
 *		arrived.  The reassembler never mixes the two: a dump is
 *		built from verified data datagrams of one key, or from
 *		unverified ones (see netoops_reasm_add_src()).  Parity
 *		datagrams do not count either way: they add no data of
 *		their own, and what they rebuild is a whole data datagram
 *		whose own MAC is checked by the verify callback
 *		(netoops_reasm_set_verify()).  Duplicates do not count
 *		either: the data came from the copy that arrived first.
 * @auth_key_id: that key id (0 when not @authenticated)
 *
 * Free with netoops_dump_free().
 */
struct netoops_dump {
	uint8_t		src_key[NETOOPS_SRC_KEY_MAX];
	size_t		src_key_len;
	uint8_t		boot_id[16];
	uint64_t	dump_id;
	bool		complete;
	bool		has_meta;
	struct netoops_meta meta;
	uint8_t		*payload;
	size_t		payload_len;
	struct netoops_gap *gaps;
	size_t		nr_gaps;
	size_t		missing_bytes;
	uint32_t	pkt_count;
	uint32_t	pkts_received;
	uint32_t	duplicates;
	uint32_t	pkts_rebuilt;
	uint64_t	first_ms;
	uint64_t	last_ms;
	bool		authenticated;
	uint32_t	auth_key_id;
};

/**
 * netoops_dump_free() - free a dump handed out by the reassembler
 * @d:	the dump, or NULL
 */
void netoops_dump_free(struct netoops_dump *d);

/**
 * struct netoops_reasm_stats - counters of a reassembler
 * @packets:	packets given to netoops_reasm_add()
 * @accepted:	packets that brought new data
 * @duplicates:	identical packets seen again (including after completion)
 * @conflicts:	refused with NETOOPS_ERR_CONFLICT or NETOOPS_ERR_MISMATCH
 * @refused_limit: refused by any limit
 * @refused_nomem: refused for lack of memory
 * @completed:	dumps handed out complete
 * @expired:	dumps handed out partial by netoops_reasm_expire()
 * @open_dumps:	dumps currently being reassembled
 * @bytes_buffered: bytes currently accounted against max_bytes_total
 * @replays:	copies beyond NETOOPS_REASM_MAX_COPIES of a data datagram
 *		of a dump already completed (also counted in @duplicates;
 *		the reason given is NETOOPS_ERR_REPLAY)
 * @parity:	parity datagrams stored
 * @late_parity: parity datagrams of a dump already completed (dropped)
 * @parity_ignored: parity datagrams dropped because FEC is not enabled
 * @fec_rebuilt: data datagrams rebuilt from parity
 * @fec_failed:	rebuilt datagrams that failed their checks (dropped)
 * @downgrades:	data datagrams refused with NETOOPS_ERR_DOWNGRADE
 * @evicted:	open dumps discarded to make room for another (not handed
 *		out)
 * @over_budget: open dumps discarded because their address reached its
 *		budget (evicted by its own newer dump), or expired while it
 *		was over budget
 * @scant:	expired dumps discarded for too little data
 *		(&netoops_reasm_limits.partial_min_pct)
 * @displaced:	unauthenticated dumps (open or remembered) discarded because
 *		a verified data datagram of the same identity arrived
 */
struct netoops_reasm_stats {
	uint64_t	packets;
	uint64_t	accepted;
	uint64_t	duplicates;
	uint64_t	conflicts;
	uint64_t	refused_limit;
	uint64_t	refused_nomem;
	uint64_t	completed;
	uint64_t	expired;
	uint64_t	open_dumps;
	uint64_t	bytes_buffered;
	uint64_t	replays;
	uint64_t	parity;
	uint64_t	late_parity;
	uint64_t	parity_ignored;
	uint64_t	fec_rebuilt;
	uint64_t	fec_failed;
	uint64_t	downgrades;
	uint64_t	evicted;
	uint64_t	over_budget;
	uint64_t	scant;
	uint64_t	displaced;
};

struct netoops_reasm;

/**
 * netoops_reasm_cost() - bytes an open dump is accounted for
 * @pkt_count:		its pkt_count
 * @payload_total:	its payload_total
 *
 * The payload, a bitmap of received bytes, a checksum, a copy count and a
 * bit per packet, and a fixed overhead for the bookkeeping and metadata.
 *
 * Return: the cost charged against &netoops_reasm_limits.max_bytes_total.
 */
uint64_t netoops_reasm_cost(uint32_t pkt_count, uint32_t payload_total);

/**
 * netoops_dump_hash() - hash of a dump's identity (64 bit, not stable
 *	across versions or hosts: for tables in memory)
 * @key:	the sender's key (struct netoops_src), or NULL
 * @key_len:	its length, 0 with NULL
 * @boot_id:	the dump's boot_id
 * @dump_id:	the dump's dump_id
 *
 * For hash tables of dumps: the reassembler's, and netoopsd's of the
 * datagrams it keeps to resume them.
 *
 * Return: the hash.
 */
uint64_t netoops_dump_hash(const void *key, size_t key_len,
			   const uint8_t boot_id[16], uint64_t dump_id);

/**
 * netoops_reasm_new() - create a reassembler
 * @limits:	limits to enforce, or NULL for the defaults
 * @ret:	the new reassembler
 *
 * Return: 0 or -ENOMEM / -EINVAL.
 */
int netoops_reasm_new(const struct netoops_reasm_limits *limits,
		      struct netoops_reasm **ret);

/**
 * netoops_reasm_free() - free a reassembler and every dump it still holds
 * @r:	the reassembler, or NULL
 */
void netoops_reasm_free(struct netoops_reasm *r);

/**
 * typedef netoops_rebuild_fn - erasure decoder, as netoops_fec_rebuild()
 */
typedef int (*netoops_rebuild_fn)(unsigned int k, unsigned int m, size_t len,
				  const uint8_t *const *blocks, uint8_t **out);

/**
 * netoops_reasm_set_rebuild() - let the reassembler use parity datagrams
 * @r:	the reassembler
 * @fn:	the erasure decoder, or NULL to ignore parity (the default)
 *
 * With a decoder, data datagrams of dumps flagged NETOOPS_F_FEC are kept
 * whole (charged to max_bytes_total) and parity datagrams are stored; as
 * soon as a group has k of its k + m datagrams, its lost data datagrams are
 * rebuilt, decoded (checksum included), checked against the dump's identity
 * and the verify callback, and added as if received.
 *
 * Return: 0 or -EINVAL.
 */
int netoops_reasm_set_rebuild(struct netoops_reasm *r, netoops_rebuild_fn fn);

/**
 * netoops_reasm_enable_fec() - netoops_reasm_set_rebuild() with ISA-L
 * @r:	the reassembler
 *
 * In lib/netoops_fec.c: linking it needs -lisal.
 *
 * Return: 0 or -EINVAL.
 */
int netoops_reasm_enable_fec(struct netoops_reasm *r);

/**
 * typedef netoops_verify_fn - check a datagram rebuilt from parity
 * @ctx:	the caller's context
 * @pkt:	the decoded rebuilt datagram (@raw valid during the call);
 *		&netoops_packet.verified is clear on entry: set it (e.g. with
 *		netoops_auth_verify()) if the MAC was verified with a key,
 *		or the rebuilt datagram makes its dump unauthenticated
 *
 * Return: 0 to accept it, non-zero to drop it (counted in fec_failed).
 */
typedef int (*netoops_verify_fn)(void *ctx, struct netoops_packet *pkt);

/**
 * netoops_reasm_set_verify() - check rebuilt datagrams, e.g. their MAC
 * @r:		the reassembler
 * @fn:		callback (e.g. calling netoops_auth_check()), or NULL
 * @ctx:	passed to @fn
 *
 * Rebuilt datagrams come from datagrams the caller already verified, so
 * with a MAC this is defence in depth, not a requirement for accepting
 * them; it is what makes them count as verified for
 * &netoops_dump.authenticated (without a callback, a rebuilt datagram
 * counts as unverified).
 */
void netoops_reasm_set_verify(struct netoops_reasm *r, netoops_verify_fn fn,
			      void *ctx);

/* Return values of netoops_reasm_add(). */
#define NETOOPS_REASM_ACCEPTED	0	/* new data, dump still open */
#define NETOOPS_REASM_DUPLICATE	1	/* identical packet seen before */
#define NETOOPS_REASM_COMPLETE	2	/* this packet completed the dump */

/**
 * netoops_reasm_add() - feed one decoded packet
 * @r:		the reassembler
 * @src_key:	opaque bytes naming the sender (e.g. its address), may be
 *		empty; dumps are keyed by (@src_key, boot_id, dump_id)
 * @src_key_len: bytes at @src_key, at most NETOOPS_SRC_KEY_MAX
 * @pkt:	a packet accepted by netoops_decode_packet() (its @chunk must
 *		still point into valid memory)
 * @now_ms:	current time
 * @ret_done:	set to the completed dump when the return value is
 *		NETOOPS_REASM_COMPLETE (caller frees it), else to NULL
 * @ret_reason:	if not NULL, set to the reason of a refusal (NETOOPS_OK
 *		otherwise)
 *
 * Packets may come in any order.  A dump that was completed recently (within
 * timeout_ms; at most max_dumps of them, oldest forgotten first) is
 * remembered with the checksum of each datagram, so late copies of it
 * return NETOOPS_REASM_DUPLICATE instead of opening a new dump, and a
 * datagram that differs from the one received is refused as a conflict.
 * A sender may repeat each datagram (the kernel's repeat parameter): up to
 * NETOOPS_REASM_MAX_COPIES copies of one are duplicates; a further copy of
 * a data datagram of a completed dump gives @ret_reason NETOOPS_ERR_REPLAY
 * (counted in replays).  A parity datagram
 * (&netoops_packet.is_parity) without netoops_reasm_set_rebuild() returns
 * NETOOPS_REASM_DUPLICATE, reason NETOOPS_ERR_PARITY, and opens nothing.
 * @now_ms must not go backwards.
 *
 * Return: NETOOPS_REASM_ACCEPTED, _DUPLICATE or _COMPLETE; -EINVAL for bad
 * arguments, -EEXIST for a conflicting duplicate or mismatching header,
 * -EMSGSIZE when the dump is larger than the per-dump limits, -ENOSPC when a
 * count limit (per source, total) is reached, -ENOBUFS when the byte budget
 * is exhausted, -EACCES (NETOOPS_ERR_DOWNGRADE), -ENOMEM.
 *
 * Same as netoops_reasm_add_src() with the whole @src_key as the address.
 */
int netoops_reasm_add(struct netoops_reasm *r, const void *src_key,
		      size_t src_key_len, const struct netoops_packet *pkt,
		      uint64_t now_ms, struct netoops_dump **ret_done,
		      enum netoops_err *ret_reason);

/**
 * struct netoops_src - who sent a datagram
 * @key:	opaque bytes naming the sender; dumps are keyed by (@key,
 *		boot_id, dump_id) and @key is the unit of
 *		&netoops_reasm_limits.max_dumps_per_source
 * @key_len:	bytes at @key, at most NETOOPS_SRC_KEY_MAX
 * @addr_len:	the first @addr_len bytes of @key name the sending address
 *		(e.g. an IP address without the port), the unit of
 *		&netoops_reasm_limits.max_dumps_per_addr; at most @key_len
 */
struct netoops_src {
	const void	*key;
	size_t		key_len;
	size_t		addr_len;
};

/**
 * netoops_reasm_add_src() - feed one decoded packet, with its address
 * @r:		the reassembler
 * @src:	the sender
 * @pkt:	as for netoops_reasm_add()
 * @now_ms:	current time
 * @ret_done:	as for netoops_reasm_add()
 * @ret_reason:	as for netoops_reasm_add()
 *
 * Admission.  A dump is *authenticated* when its data datagrams were
 * verified (&netoops_packet.verified) with one key, *unauthenticated*
 * when they were not; the class is set by the datagram that opens it.
 * The two never mix: an unverified data datagram, or one verified with
 * another key, for an authenticated dump (open or remembered) is refused
 * with NETOOPS_ERR_DOWNGRADE; a verified data datagram for an
 * unauthenticated dump (or one that holds only parity) discards that dump
 * (counted in displaced) and opens a new one.
 *
 * Budgets, per class: an address holds at most max_dumps_per_addr open
 * dumps; at that budget, its new dump evicts its own least recently active
 * one (over_budget).  When max_dumps or max_bytes_total is reached (by a
 * new dump, or by one that grows: parity, datagrams kept for FEC), open
 * dumps are evicted (evicted): unauthenticated ones first; then, for
 * bytes, the checksums kept of completed dumps, oldest first; then, for an
 * authenticated dump only, authenticated ones.  The victim is always a
 * dump of an address that holds the most open dumps of its class, one
 * that only has its opening datagram first, else the least recently
 * active.  So an authenticated datagram is never refused for room held by
 * unauthenticated dumps, and a sender that opens many dumps loses its own
 * before those of an address with fewer.  An evicted dump is never handed
 * out; its address is over budget in its class for timeout_ms (see
 * &netoops_reasm_limits.partial_min_pct).  Limits are refused (-ENOSPC,
 * -ENOBUFS) only when evicting every dump the newcomer may evict would not
 * make room.
 *
 * Return: as netoops_reasm_add().
 */
int netoops_reasm_add_src(struct netoops_reasm *r,
			  const struct netoops_src *src,
			  const struct netoops_packet *pkt, uint64_t now_ms,
			  struct netoops_dump **ret_done,
			  enum netoops_err *ret_reason);

/**
 * netoops_reasm_expire() - hand out one dump whose time is up
 * @r:		the reassembler
 * @now_ms:	current time
 * @ret:	set to an expired (partial) dump, or NULL
 *
 * Call in a loop until it returns 0.  Also forgets completed dumps older
 * than timeout_ms.  With &netoops_reasm_limits.partial_min_pct, expired
 * dumps that do not pass it are discarded and counted, not handed out.
 *
 * Return: 1 if *@ret is set, 0 if nothing (more) expired, -ENOMEM if the
 * dump could not be handed out (it stays; call again later).
 */
int netoops_reasm_expire(struct netoops_reasm *r, uint64_t now_ms,
			 struct netoops_dump **ret);

/**
 * netoops_reasm_next_deadline() - when to call netoops_reasm_expire() again
 * @r:	the reassembler
 *
 * Return: the earliest time at which something expires, or UINT64_MAX if
 * nothing is pending.
 */
uint64_t netoops_reasm_next_deadline(const struct netoops_reasm *r);

/**
 * netoops_reasm_flush() - hand out any open dump, expired or not
 * @r:		the reassembler
 * @ret:	set to a partial dump, or NULL
 *
 * For shutdown.  Call in a loop until it returns 0.  The same dumps as for
 * netoops_reasm_expire() are discarded.
 *
 * Return: 1 if *@ret is set, 0 if no open dump is left, -ENOMEM.
 */
int netoops_reasm_flush(struct netoops_reasm *r, struct netoops_dump **ret);

/**
 * netoops_reasm_get_stats() - read the counters
 * @r:		the reassembler
 * @ret:	filled in
 */
void netoops_reasm_get_stats(const struct netoops_reasm *r,
			     struct netoops_reasm_stats *ret);

/* ---------------------------------------------------------------------- */
/* Payload                                                                */

/* Suggested bound on an inflated payload (pstore records are far smaller). */
#define NETOOPS_INFLATE_MAX	(16u << 20)

/**
 * netoops_inflate() - inflate raw deflate data (zlib windowBits -15)
 * @in:		compressed bytes
 * @in_len:	bytes at @in
 * @out:	output buffer
 * @out_cap:	size of @out: inflation never writes past it
 * @ret_len:	set to the bytes written to @out, also on error (what could
 *		be inflated before the problem)
 *
 * Return: 0 when the deflate stream ended; -ENODATA when the input ended
 * before the end of the stream (truncated, e.g. a partial dump);
 * -EMSGSIZE when the output does not fit in @out_cap; -EBADMSG for corrupt
 * data; -ENOMEM; -EINVAL for bad arguments.
 */
int netoops_inflate(const void *in, size_t in_len, void *out, size_t out_cap,
		    size_t *ret_len);

/**
 * netoops_dump_text() - the plain-text payload of a dump
 * @d:		a dump
 * @out:	output buffer
 * @out_cap:	its size
 * @ret_len:	set to the bytes written
 *
 * Copies (NETOOPS_COMPRESS_NONE or no metadata) or inflates
 * (NETOOPS_COMPRESS_DEFLATE) the payload up to the first gap.
 *
 * Return: 0 if the whole payload was converted; -ENODATA if only a prefix
 * could be (gaps, or truncated stream), *@ret_len saying how much; other
 * errors as netoops_inflate(); -EOPNOTSUPP for an unknown compression.
 */
int netoops_dump_text(const struct netoops_dump *d, void *out, size_t out_cap,
		      size_t *ret_len);

#endif /* NETOOPS_DECODE_H */
