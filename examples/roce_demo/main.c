/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_roce.h>
int main(void) { return 0; }
