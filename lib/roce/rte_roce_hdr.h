/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_HDR_H
#define RTE_ROCE_HDR_H

#endif /* RTE_ROCE_HDR_H */
