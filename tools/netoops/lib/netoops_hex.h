/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hex digits as the collector reads them: the keys of netoopsd's
 * configuration and the boot ids of the store.
 */
#ifndef NETOOPS_HEX_H
#define NETOOPS_HEX_H

/* The value of hex digit @c (either case), or -1 if it is not one. */
int netoops_hexval(char c);

#endif /* NETOOPS_HEX_H */
