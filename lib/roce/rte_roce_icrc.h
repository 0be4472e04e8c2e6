/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_ICRC_H
#define RTE_ROCE_ICRC_H

#endif /* RTE_ROCE_ICRC_H */
