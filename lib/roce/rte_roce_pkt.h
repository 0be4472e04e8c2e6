/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_PKT_H
#define RTE_ROCE_PKT_H

#endif /* RTE_ROCE_PKT_H */
