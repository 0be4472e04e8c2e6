/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_OPCODE_H
#define ROCE_OPCODE_H

/*
 * The opcode tables of roce_opcode.c for the packet paths: the parser and
 * the builder look an opcode up once a packet, the responder checks the
 * sequence of every request, inline here rather than by calls to the
 * exported rte_roce_opcode_info() and rte_roce_opcode_may_follow() (through
 * the PLT, ~10 instructions a lookup under callgrind).
 */

#include <stdbool.h>
#include <stdint.h>

#include "rte_roce_opcode.h"

extern const struct rte_roce_opcode_info roce_opcodes[UINT8_MAX + 1];

/* What rte_roce_opcode_info() returns: the entry, NULL for an opcode not in the table. */
static inline const struct rte_roce_opcode_info *
roce_opcode_info(uint8_t opcode)
{
	const struct rte_roce_opcode_info *info = &roce_opcodes[opcode];

	return info->name != NULL ? info : NULL;
}

/* rte_roce_opcode_may_follow()'s answers, one bit per pair, tabulated at load. */
#define ROCE_FOLLOW_WORD_BITS 64
extern uint64_t roce_follow[UINT8_MAX + 1][(UINT8_MAX + 1) / ROCE_FOLLOW_WORD_BITS];

/* What rte_roce_opcode_may_follow() returns, for the responder's check of every request. */
static inline bool
roce_opcode_may_follow(uint8_t prev, uint8_t next)
{
	return (roce_follow[prev][next / ROCE_FOLLOW_WORD_BITS] >> (next % ROCE_FOLLOW_WORD_BITS)) & 1;
}

#endif /* ROCE_OPCODE_H */
