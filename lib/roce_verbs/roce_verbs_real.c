/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The real libibverbs behind us: every call on an object that is not ours
 * goes to the function of the same name and version that the dynamic
 * linker would have bound without the preload.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>

#include "roce_verbs.h"

RTE_LOG_REGISTER_DEFAULT(roce_verbs_logtype, NOTICE);

void *
roce_verbs_real_lookup(const char *name, const char *version)
{
	void *fn = dlvsym(RTLD_NEXT, name, version);

	if (fn == NULL)
		RV_LOG(DEBUG, "no real %s@%s in the process", name, version);
	return fn;
}
