/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_OPCODE_H
#define RTE_ROCE_OPCODE_H

#endif /* RTE_ROCE_OPCODE_H */
