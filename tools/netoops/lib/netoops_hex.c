// SPDX-License-Identifier: GPL-2.0
/* Hex digits (netoops_hex.h). */
#include "netoops_hex.h"

int netoops_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
