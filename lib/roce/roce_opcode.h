/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_OPCODE_H
#define ROCE_OPCODE_H

/*
 * The opcode table of roce_opcode.c for the packet paths: the parser and
 * the builder look an opcode up once a packet, inline here rather than by
 * a call to the exported rte_roce_opcode_info() (through the PLT, ~10
 * instructions a lookup under callgrind).
 */

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

#endif /* ROCE_OPCODE_H */
