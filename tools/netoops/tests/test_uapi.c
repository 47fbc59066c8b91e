// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-time test of the UAPI header: built with -Wpadded -Werror (no
 * implicit padding anywhere) and every size and offset of the wire format
 * pinned, so an accidental change to netoops.h fails the build.
 */
#include <assert.h>
#include <stddef.h>
#include <linux/netoops.h>

#define AT(type, field, off) \
	static_assert(offsetof(struct type, field) == (off), \
		      #type "." #field " must be at " #off)
#define SIZE(type, size) \
	static_assert(sizeof(struct type) == (size), \
		      "sizeof(struct " #type ") must be " #size)

SIZE(netoops_pkt_hdr, NETOOPS_HDR_LEN_V1);
AT(netoops_pkt_hdr, magic, 0);
AT(netoops_pkt_hdr, version, 4);
AT(netoops_pkt_hdr, hdr_len, 5);
AT(netoops_pkt_hdr, flags, 6);
AT(netoops_pkt_hdr, boot_id, 8);
AT(netoops_pkt_hdr, dump_id, 24);
AT(netoops_pkt_hdr, pkt_index, 32);
AT(netoops_pkt_hdr, pkt_count, 34);
AT(netoops_pkt_hdr, tlv_len, 36);
AT(netoops_pkt_hdr, reserved0, 38);
AT(netoops_pkt_hdr, payload_off, 40);
AT(netoops_pkt_hdr, payload_total, 44);
AT(netoops_pkt_hdr, checksum, 48);
AT(netoops_pkt_hdr, reserved1, 52);

SIZE(netoops_tlv, 4);
AT(netoops_tlv, type, 0);
AT(netoops_tlv, len, 2);

SIZE(netoops_dump_info, 16);
AT(netoops_dump_info, reason, 0);
AT(netoops_dump_info, oops_count, 4);
AT(netoops_dump_info, part, 8);
AT(netoops_dump_info, cpu, 12);

SIZE(netoops_time, 24);
AT(netoops_time, wall_sec, 0);
AT(netoops_time, wall_nsec, 8);
AT(netoops_time, reserved, 12);
AT(netoops_time, uptime_ns, 16);

SIZE(netoops_cpu_x86, 32);
AT(netoops_cpu_x86, vendor, 0);
AT(netoops_cpu_x86, family, 16);
AT(netoops_cpu_x86, model, 20);
AT(netoops_cpu_x86, stepping, 24);
AT(netoops_cpu_x86, microcode, 28);

SIZE(netoops_cpu_arm64, 8);

SIZE(netoops_regs, 8);
AT(netoops_regs, arch, 0);
AT(netoops_regs, nr, 2);
AT(netoops_regs, context, 4);
AT(netoops_regs, reserved, 5);

SIZE(netoops_payload_info, 8);
AT(netoops_payload_info, compression, 0);
AT(netoops_payload_info, orig_len, 4);

SIZE(netoops_mac, 20);
AT(netoops_mac, key_id, 0);
AT(netoops_mac, mac, 4);

SIZE(netoops_parity, 8);
AT(netoops_parity, first, 0);
AT(netoops_parity, k, 2);
AT(netoops_parity, m, 3);
AT(netoops_parity, row, 4);
AT(netoops_parity, reserved, 5);
AT(netoops_parity, coded_len, 6);
static_assert((NETOOPS_F_AUTH | NETOOPS_F_PARITY) & NETOOPS_F_CRITICAL_MASK &&
	      !((NETOOPS_F_AUTH | NETOOPS_F_PARITY) & NETOOPS_F_INFO_MASK),
	      "AUTH and PARITY must be critical flags");
static_assert(NETOOPS_F_FEC & NETOOPS_F_INFO_MASK, "FEC is informational");

/* Register orders are part of the format. */
static_assert(NETOOPS_X86_64_REG_RIP == 16, "x86_64 rip index");
static_assert(NETOOPS_X86_64_NR_REGS == 21, "x86_64 register count");
static_assert(NETOOPS_ARM64_REG_PC == 32, "arm64 pc index");
static_assert(NETOOPS_ARM64_NR_REGS == 34, "arm64 register count");

/* Constants that other implementations rely on. */
static_assert(NETOOPS_MAGIC == 0x53504f4eU, "magic");
static_assert(NETOOPS_HDR_LEN_V1 % NETOOPS_TLV_ALIGN == 0, "hdr align");
static_assert(NETOOPS_PKT_MAX <= 65507, "UDP payload limit");
static_assert((NETOOPS_F_INFO_MASK & NETOOPS_F_CRITICAL_MASK) == 0,
	      "flag classes disjoint");
static_assert(NETOOPS_TLV_PAYLOAD < NETOOPS_TLV_VENDOR_FIRST, "registry");

int netoops_uapi_pinned(void);
int netoops_uapi_pinned(void)
{
	return 0;
}
