/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_PORT_H
#define RTE_ROCE_PORT_H

#endif /* RTE_ROCE_PORT_H */
