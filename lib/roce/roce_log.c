/* SPDX-License-Identifier: BSD-3-Clause */

#include "roce_log.h"

RTE_LOG_REGISTER_DEFAULT(roce_logtype, NOTICE);
RTE_LOG_REGISTER_SUFFIX(roce_logtype_port, port, NOTICE);
RTE_LOG_REGISTER_SUFFIX(roce_logtype_qp, qp, NOTICE);
RTE_LOG_REGISTER_SUFFIX(roce_logtype_mr, mr, NOTICE);
RTE_LOG_REGISTER_SUFFIX(roce_logtype_cq, cq, NOTICE);
RTE_LOG_REGISTER_SUFFIX(roce_logtype_event, event, NOTICE);
