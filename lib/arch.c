// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Per-architecture register roles (DWARF numbering) and word sizes. */
#include <uwind/uwind.h>
#include "walk.h"

static const struct uw_arch_info arch_infos[UW_ARCH_COUNT] = {
	[UW_ARCH_X86_64] = { .pc = UW_X86_64_RIP, .sp = UW_X86_64_RSP,
			     .fp = UW_X86_64_RBP, .ra = UW_X86_64_RIP,
			     .ptr_size = 8, .has_lr = 0 },
	[UW_ARCH_AARCH64] = { .pc = UW_AARCH64_PC, .sp = UW_AARCH64_SP,
			      .fp = UW_AARCH64_X29, .ra = UW_AARCH64_X30,
			      .ptr_size = 8, .has_lr = 1 },
	[UW_ARCH_S390X] = { .pc = UW_S390X_PC, .sp = UW_S390X_R15,
			    .fp = UW_S390X_R11, .ra = UW_S390X_R14,
			    .ptr_size = 8, .has_lr = 1 },
	[UW_ARCH_ARM] = { .pc = UW_ARM_PC, .sp = UW_ARM_SP,
			  .fp = UW_ARM_R11, .ra = UW_ARM_LR,
			  .ptr_size = 4, .has_lr = 1 },
	[UW_ARCH_X86] = { .pc = UW_X86_EIP, .sp = UW_X86_ESP,
			  .fp = UW_X86_EBP, .ra = UW_X86_EIP,
			  .ptr_size = 4, .has_lr = 0 },
};

const struct uw_arch_info *uw_arch_get(enum uw_arch arch)
{
	if (arch == UW_ARCH_NONE || (unsigned int)arch >= UW_ARCH_COUNT)
		return NULL;
	return &arch_infos[arch];
}

int uw_arch_info(enum uw_arch arch, struct uw_arch_info *info)
{
	const struct uw_arch_info *ai = uw_arch_get(arch);

	if (!ai)
		return UW_EARCH;
	*info = *ai;
	return 0;
}
