/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * netoops wire format, version 1.
 *
 * The single definition of the packets that the netoops pstore backend sends
 * and that the collector (tools/netoops/) receives.  The full specification,
 * with an annotated hexdump of a real packet, is
 * Documentation/networking/netoops-format.rst.
 *
 * A dump (one pstore record) travels as pkt_count UDP datagrams.  Every
 * datagram is a fixed header followed by 4-byte-aligned TLV records:
 *
 *    0               1               2               3
 *   +---------------+---------------+---------------+---------------+
 *   |                     magic "NOPS" (le32)                       |  0
 *   +---------------+---------------+---------------+---------------+
 *   |    version    |    hdr_len    |           flags (le16)        |  4
 *   +---------------+---------------+---------------+---------------+
 *   |                                                               |  8
 *   |                     boot_id (16 bytes)                        |
 *   |                                                               |
 *   +---------------+---------------+---------------+---------------+
 *   |                       dump_id (le64)                          | 24
 *   +---------------+---------------+---------------+---------------+
 *   |        pkt_index (le16)       |       pkt_count (le16)        | 32
 *   +---------------+---------------+---------------+---------------+
 *   |        tlv_len (le16)         |       reserved0 (zero)        | 36
 *   +---------------+---------------+---------------+---------------+
 *   |                     payload_off (le32)                        | 40
 *   +---------------+---------------+---------------+---------------+
 *   |                    payload_total (le32)                       | 44
 *   +---------------+---------------+---------------+---------------+
 *   |                  checksum (le32, CRC-32)                      | 48
 *   +---------------+---------------+---------------+---------------+
 *   |                     reserved1 (zero)                          | 52
 *   +---------------+---------------+---------------+---------------+
 *   |  TLV type (le16, bit 15 =     |   TLV len (le16, value bytes) | 56
 *   |  critical)                    |                               |
 *   +---------------+---------------+---------------+---------------+
 *   |  value ..., zero-padded to a multiple of 4 bytes              |
 *   +---------------+---------------+---------------+---------------+
 *   |  next TLV ...                                                 |
 *
 * All multi-byte integers are little-endian.  TLV values are only 4-byte
 * aligned: readers must not assume natural alignment of 64-bit fields inside
 * a value (copy them out).
 *
 * Compatibility rules:
 *  - A receiver uses hdr_len to find the first TLV, so later versions may
 *    grow the header; it refuses hdr_len < NETOOPS_HDR_LEN_V1.
 *  - An unknown TLV type without NETOOPS_TLV_CRITICAL is skipped.  An unknown
 *    type with NETOOPS_TLV_CRITICAL makes the receiver refuse the whole dump
 *    and say which type it did not understand.
 *  - Unknown flags in NETOOPS_F_INFO_MASK are ignored; an unknown flag in
 *    NETOOPS_F_CRITICAL_MASK makes the receiver refuse the packet.
 *  - A known TLV whose value is longer than this version defines is read up to
 *    the length it knows; the rest is ignored.  Shorter than defined is an
 *    error.
 *  - Types NETOOPS_TLV_VENDOR_FIRST..NETOOPS_TLV_VENDOR_LAST are for vendor
 *    and site use and are never assigned by this project.
 */
#ifndef _UAPI_LINUX_NETOOPS_H
#define _UAPI_LINUX_NETOOPS_H

#include <linux/types.h>

#define NETOOPS_MAGIC		0x53504f4eU	/* "NOPS" as bytes on the wire */
#define NETOOPS_VERSION		1
#define NETOOPS_HDR_LEN_V1	56

/* UDP payload sizes.  The default fits a 1500-byte MTU over IPv4. */
#define NETOOPS_PKT_DEFAULT	1472	/* 1500 - 20 (IPv4) - 8 (UDP) */
#define NETOOPS_PKT_DEFAULT_V6	1452	/* 1500 - 40 (IPv6) - 8 (UDP) */
#define NETOOPS_PKT_MIN		256
#define NETOOPS_PKT_MAX		65507

/* Default UDP port of the collector. */
#define NETOOPS_DEFAULT_PORT	6667

/* Header flags.  Bits 0-7 are informational, bits 8-15 critical. */
#define NETOOPS_F_META		0x0001	/* packet carries the metadata TLVs */
#define NETOOPS_F_FEC		0x0002	/* parity packets follow for this dump */
#define NETOOPS_F_AUTH		0x0100	/* last TLV is NETOOPS_TLV_MAC */
#define NETOOPS_F_PARITY	0x0200	/* parity packet, not data */
#define NETOOPS_F_INFO_MASK	0x00ff
#define NETOOPS_F_CRITICAL_MASK	0xff00

/**
 * struct netoops_pkt_hdr - fixed header at the start of every datagram
 * @magic:	NETOOPS_MAGIC
 * @version:	NETOOPS_VERSION
 * @hdr_len:	bytes from the start of the header to the first TLV; a
 *		multiple of 4, at least NETOOPS_HDR_LEN_V1
 * @flags:	NETOOPS_F_*
 * @boot_id:	random 128-bit identifier of the sending boot (or set by
 *		userspace); with @dump_id it names the dump
 * @dump_id:	identifier of the dump, unique within @boot_id
 * @pkt_index:	index of this datagram in the dump, 0 .. @pkt_count - 1
 * @pkt_count:	number of datagrams in the dump, at least 1
 * @tlv_len:	bytes of TLVs after the header; the datagram is exactly
 *		@hdr_len + @tlv_len bytes long
 * @reserved0:	zero
 * @payload_off: offset in the dump's payload of the NETOOPS_TLV_PAYLOAD chunk
 *		this datagram carries, or 0 when it carries none
 * @payload_total: length in bytes of the whole payload of the dump (as sent,
 *		i.e. compressed when NETOOPS_TLV_PAYLOAD_INFO says so)
 * @checksum:	CRC-32 (IEEE 802.3, as zlib's crc32()) of the whole datagram
 *		computed with this field set to zero
 * @reserved1:	zero
 */
struct netoops_pkt_hdr {
	__le32	magic;
	__u8	version;
	__u8	hdr_len;
	__le16	flags;
	__u8	boot_id[16];
	__le64	dump_id;
	__le16	pkt_index;
	__le16	pkt_count;
	__le16	tlv_len;
	__le16	reserved0;
	__le32	payload_off;
	__le32	payload_total;
	__le32	checksum;
	__le32	reserved1;
};

/**
 * struct netoops_tlv - header of a TLV record
 * @type:	NETOOPS_TLV_* , possibly or-ed with NETOOPS_TLV_CRITICAL
 * @len:	length of the value in bytes, excluding this header and the
 *		zero padding that follows the value up to a multiple of 4
 */
struct netoops_tlv {
	__le16	type;
	__le16	len;
};

#define NETOOPS_TLV_ALIGN	4
#define NETOOPS_TLV_CRITICAL	0x8000
#define NETOOPS_TLV_TYPE_MASK	0x7fff

/*
 * TLV registry.  Metadata types (DUMP_INFO to PAYLOAD_INFO, 0x0001 to
 * 0x000c) appear in the first datagram of a dump and are repeated in the
 * last one (NETOOPS_F_META set on both), so a dump that lost packets in
 * the middle is still identified.
 */
#define NETOOPS_TLV_PAD		0x0000	/* ignored; any length */
#define NETOOPS_TLV_DUMP_INFO	0x0001	/* struct netoops_dump_info */
#define NETOOPS_TLV_TIME	0x0002	/* struct netoops_time */
#define NETOOPS_TLV_RELEASE	0x0003	/* string: utsname release (uname -r) */
#define NETOOPS_TLV_VERSION	0x0004	/* string: utsname version (uname -v) */
#define NETOOPS_TLV_ARCH	0x0005	/* string: utsname machine (uname -m) */
#define NETOOPS_TLV_HOSTNAME	0x0006	/* string: utsname nodename */
#define NETOOPS_TLV_CPU_X86	0x0007	/* struct netoops_cpu_x86 */
#define NETOOPS_TLV_CPU_ARM64	0x0008	/* struct netoops_cpu_arm64 */
#define NETOOPS_TLV_REGS	0x0009	/* struct netoops_regs + __le64[] */
#define NETOOPS_TLV_TAINT	0x000a	/* __le64: taint flag bits */
#define NETOOPS_TLV_USER	0x000b	/* "key" NUL "value"; any number */
#define NETOOPS_TLV_PAYLOAD_INFO 0x000c	/* struct netoops_payload_info */
#define NETOOPS_TLV_PAYLOAD	0x000d	/* a chunk of the payload */
#define NETOOPS_TLV_MAC		0x000e	/* struct netoops_mac; sent critical */
#define NETOOPS_TLV_PARITY	0x000f	/* netoops_parity + data; critical */
#define NETOOPS_TLV_VENDOR_FIRST 0x7000	/* vendor and site types */
#define NETOOPS_TLV_VENDOR_LAST	0x7fff

/* Strings are UTF-8 (in practice ASCII), not NUL-terminated. */

/* Dump reasons (struct netoops_dump_info.reason). */
#define NETOOPS_REASON_UNKNOWN	0
#define NETOOPS_REASON_PANIC	1
#define NETOOPS_REASON_OOPS	2
#define NETOOPS_REASON_EMERG	3	/* emergency restart */
#define NETOOPS_REASON_RESTART	4
#define NETOOPS_REASON_HALT	5
#define NETOOPS_REASON_POWEROFF	6
#define NETOOPS_REASON_SOFT	7	/* requested by an operator */

/**
 * struct netoops_dump_info - NETOOPS_TLV_DUMP_INFO
 * @reason:	NETOOPS_REASON_*
 * @oops_count:	the pstore oops counter of this record (record->count)
 * @part:	the pstore part number of this record (record->part)
 * @cpu:	the CPU that produced the dump
 */
struct netoops_dump_info {
	__le32	reason;
	__le32	oops_count;
	__le32	part;
	__le32	cpu;
};

/**
 * struct netoops_time - NETOOPS_TLV_TIME
 * @wall_sec:	CLOCK_REALTIME seconds at the dump (signed)
 * @wall_nsec:	CLOCK_REALTIME nanoseconds, 0..999999999
 * @reserved:	zero
 * @uptime_ns:	CLOCK_MONOTONIC (boot-relative, excluding suspend) at the dump
 */
struct netoops_time {
	__le64	wall_sec;
	__le32	wall_nsec;
	__le32	reserved;
	__le64	uptime_ns;
};

/**
 * struct netoops_cpu_x86 - NETOOPS_TLV_CPU_X86
 * @vendor:	CPUID vendor string ("GenuineIntel"), NUL-padded
 * @family:	display family
 * @model:	display model
 * @stepping:	stepping
 * @microcode:	microcode revision
 */
struct netoops_cpu_x86 {
	char	vendor[16];
	__le32	family;
	__le32	model;
	__le32	stepping;
	__le32	microcode;
};

/**
 * struct netoops_cpu_arm64 - NETOOPS_TLV_CPU_ARM64
 * @midr:	MIDR_EL1 of the dumping CPU
 */
struct netoops_cpu_arm64 {
	__le64	midr;
};

/* Register set architectures (struct netoops_regs.arch). */
#define NETOOPS_ARCH_X86_64	1
#define NETOOPS_ARCH_ARM64	2

/* Where the registers come from (struct netoops_regs.context). */
#define NETOOPS_REGS_OOPS	1	/* the oopsing context (die notifier) */
#define NETOOPS_REGS_DUMPER	2	/* the context that ran the dump */

/**
 * struct netoops_regs - NETOOPS_TLV_REGS header
 * @arch:	NETOOPS_ARCH_*
 * @nr:		number of __le64 registers that follow, in the order the
 *		arch's NETOOPS_<ARCH>_REG_* indices give
 * @context:	NETOOPS_REGS_*
 * @reserved:	zero
 *
 * A receiver must accept more registers than it knows (newer senders may
 * append) and fewer (it shows only those present).
 */
struct netoops_regs {
	__le16	arch;
	__le16	nr;
	__u8	context;
	__u8	reserved[3];
	/* __le64 regs[nr] follow */
};

/* x86_64 register order on the wire. */
enum netoops_x86_64_reg {
	NETOOPS_X86_64_REG_R15,
	NETOOPS_X86_64_REG_R14,
	NETOOPS_X86_64_REG_R13,
	NETOOPS_X86_64_REG_R12,
	NETOOPS_X86_64_REG_RBP,
	NETOOPS_X86_64_REG_RBX,
	NETOOPS_X86_64_REG_R11,
	NETOOPS_X86_64_REG_R10,
	NETOOPS_X86_64_REG_R9,
	NETOOPS_X86_64_REG_R8,
	NETOOPS_X86_64_REG_RAX,
	NETOOPS_X86_64_REG_RCX,
	NETOOPS_X86_64_REG_RDX,
	NETOOPS_X86_64_REG_RSI,
	NETOOPS_X86_64_REG_RDI,
	NETOOPS_X86_64_REG_ORIG_RAX,
	NETOOPS_X86_64_REG_RIP,
	NETOOPS_X86_64_REG_CS,
	NETOOPS_X86_64_REG_EFLAGS,
	NETOOPS_X86_64_REG_RSP,
	NETOOPS_X86_64_REG_SS,
	NETOOPS_X86_64_NR_REGS
};

/* arm64 register order on the wire: x0..x30, then sp, pc, pstate. */
#define NETOOPS_ARM64_REG_X(n)	(n)
#define NETOOPS_ARM64_REG_SP	31
#define NETOOPS_ARM64_REG_PC	32
#define NETOOPS_ARM64_REG_PSTATE 33
#define NETOOPS_ARM64_NR_REGS	34

/* User fields: "key" NUL "value", key of [A-Za-z0-9_.-]. */
#define NETOOPS_USER_KEY_MAX	63
#define NETOOPS_USER_VALUE_MAX	255

/* Payload compression (struct netoops_payload_info.compression). */
#define NETOOPS_COMPRESS_NONE	0
#define NETOOPS_COMPRESS_DEFLATE 1	/* raw deflate (zlib windowBits -15) */

/**
 * struct netoops_payload_info - NETOOPS_TLV_PAYLOAD_INFO
 * @compression: NETOOPS_COMPRESS_*; a receiver that does not know the value
 *		must refuse the dump
 * @orig_len:	length of the payload once decompressed, or 0 if unknown
 */
struct netoops_payload_info {
	__le32	compression;
	__le32	orig_len;
};

/*
 * Authentication (NETOOPS_F_AUTH).  The MAC is HMAC-SHA256 truncated to its
 * first NETOOPS_MAC_LEN bytes, keyed by the key that @key_id names, computed
 * over the datagram from its first byte up to (not including) the
 * NETOOPS_TLV_MAC record, with the checksum field taken as zero.  The MAC
 * TLV is the last TLV of the datagram, present if and only if the header has
 * NETOOPS_F_AUTH; the checksum is computed last, over the whole datagram
 * including the MAC.  Parity packets are authenticated the same way.
 */
#define NETOOPS_MAC_LEN		16

/**
 * struct netoops_mac - NETOOPS_TLV_MAC
 * @key_id:	which key the receiver must use (per fleet or per host; the
 *		numbering is the site's)
 * @mac:	truncated HMAC-SHA256
 */
struct netoops_mac {
	__le32	key_id;
	__u8	mac[NETOOPS_MAC_LEN];
};

/*
 * Forward error correction (NETOOPS_F_FEC, NETOOPS_F_PARITY).  The data
 * datagrams of a dump are cut in groups of consecutive indices; a group of k
 * data datagrams is followed by m parity datagrams so that any k of the
 * k + m rebuild the group.  The code is systematic Reed-Solomon over
 * GF(2^8) (polynomial 0x11d) with the Cauchy generator of ISA-L's
 * gf_gen_cauchy1_matrix(): parity row r (0 <= r < m) is the sum over data
 * j (0 <= j < k) of inv((k + r) ^ j) times data datagram first + j, where
 * each data datagram is taken as a whole (header, TLVs, MAC, checksum as
 * sent), zero-padded to @coded_len bytes.
 *
 * A parity datagram has NETOOPS_F_PARITY (never NETOOPS_F_META), the dump's
 * boot_id, dump_id, pkt_count and payload_total, pkt_index = @first,
 * payload_off = 0, and carries one NETOOPS_TLV_PARITY (critical) whose value
 * is this header followed by @coded_len coded bytes (then the MAC TLV when
 * authenticated).  Data datagrams of such a dump carry NETOOPS_F_FEC.
 */
#define NETOOPS_FEC_MAX		255	/* k + m at most */

/**
 * struct netoops_parity - start of the NETOOPS_TLV_PARITY value
 * @first:	pkt_index of the first data datagram of the group
 * @k:		data datagrams in the group, >= 1; first + k <= pkt_count
 * @m:		parity datagrams of the group, >= 1; k + m <= NETOOPS_FEC_MAX
 * @row:	which parity row this is, 0 .. m - 1
 * @reserved:	zero
 * @coded_len:	bytes of coded data that follow; at least the longest data
 *		datagram of the group and at least NETOOPS_HDR_LEN_V1
 */
struct netoops_parity {
	__le16	first;
	__u8	k;
	__u8	m;
	__u8	row;
	__u8	reserved;
	__le16	coded_len;
};

#endif /* _UAPI_LINUX_NETOOPS_H */
