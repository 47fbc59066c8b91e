/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Version of the userspace tools (netoopsd, netoops), printed by their
 * --version with the wire protocol version they speak (NETOOPS_VERSION).
 */
#ifndef NETOOPS_VERSION_H
#define NETOOPS_VERSION_H

#define NETOOPS_TOOLS_VERSION	"0.1.0"

#endif
