/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Force-included (Kbuild: -include) into every object of the module.
 *
 * include/uwind/env.h takes the core's types from <linux/types.h> in the
 * kernel, which has the fixed-width types but none of <stdint.h>'s limit
 * macros.  The kernel names them U64_MAX etc. (<linux/limits.h>); map the
 * <stdint.h> names the core uses onto them.  Harmless if env.h grows the
 * same definitions.
 */
#ifndef UWIND_KERNEL_KENV_H
#define UWIND_KERNEL_KENV_H

#include <linux/limits.h>

#ifndef UINT8_MAX
#define UINT8_MAX	U8_MAX
#endif
#ifndef UINT16_MAX
#define UINT16_MAX	U16_MAX
#endif
#ifndef UINT32_MAX
#define UINT32_MAX	U32_MAX
#endif
#ifndef UINT64_MAX
#define UINT64_MAX	U64_MAX
#endif
#ifndef INT8_MAX
#define INT8_MAX	S8_MAX
#define INT8_MIN	S8_MIN
#endif
#ifndef INT16_MAX
#define INT16_MAX	S16_MAX
#define INT16_MIN	S16_MIN
#endif
#ifndef INT32_MAX
#define INT32_MAX	S32_MAX
#define INT32_MIN	S32_MIN
#endif
#ifndef INT64_MAX
#define INT64_MAX	S64_MAX
#define INT64_MIN	S64_MIN
#endif

#endif /* UWIND_KERNEL_KENV_H */
