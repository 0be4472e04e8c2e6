/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_ICRC_H
#define ROCE_ICRC_H

#include <stdint.h>

/*
 * The ICRC of a flat packet of len bytes from its IP header that the caller
 * may write, such as a frame being built: its variant bits are set to ones
 * in place for one plain CRC, then put back, so the packet reads as before.
 * Equal to rte_roce_icrc_calc(), without its correction for the masking
 * (a carry-less multiplication per variant word and a reduction).
 */
uint32_t roce_icrc_calc_writable(uint8_t *l3, uint32_t len);

/*
 * rte_roce_icrc_check() of a packet the caller may write (the same in-place
 * masking): 0 if the ICRC stored after its len bytes matches, else -EBADMSG.
 */
int roce_icrc_check_writable(uint8_t *l3, uint32_t len);

#endif /* ROCE_ICRC_H */
