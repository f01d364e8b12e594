// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Names for error codes, architectures, frame sources and stop reasons.
 * Switches rather than pointer tables: a table of pointers would need
 * relocated data, and the core has no data section at all.
 */
#include <uwind/uwind.h>

const char *uw_strerror(int err)
{
	switch (err) {
	case UW_OK: return "success";
	case UW_EINVAL: return "invalid argument";
	case UW_EBOUNDS: return "table read out of bounds";
	case UW_EMAGIC: return "bad magic";
	case UW_EVERSION: return "unsupported version";
	case UW_EHEADER: return "inconsistent header";
	case UW_EUNSORTED: return "table not sorted";
	case UW_ENOENT: return "no entry for address";
	case UW_EBADDATA: return "malformed table entry";
	case UW_EREAD: return "memory read failed";
	case UW_ENOPROGRESS: return "stack pointer did not progress";
	case UW_EDEPTH: return "depth limit reached";
	case UW_EARCH: return "unsupported architecture";
	case UW_EOVERFLOW: return "address overflow";
	case UW_EREG: return "register value unknown";
	case UW_EREFUSE: return "table refuses to unwind";
	case UW_ESTACK: return "address outside the stack";
	case UW_EALIGN: return "misaligned stack pointer";
	default: return "unknown error";
	}
}

const char *uw_arch_name(enum uw_arch arch)
{
	switch (arch) {
	case UW_ARCH_NONE: return "none";
	case UW_ARCH_X86_64: return "x86-64";
	case UW_ARCH_AARCH64: return "aarch64";
	case UW_ARCH_S390X: return "s390x";
	case UW_ARCH_ARM: return "arm";
	case UW_ARCH_X86: return "x86";
	default: return "unknown";
	}
}

const char *uw_source_name(enum uw_source src)
{
	switch (src) {
	case UW_SRC_NONE: return "none";
	case UW_SRC_SFRAME: return "sframe";
	case UW_SRC_FP: return "fp";
	case UW_SRC_SIGFRAME: return "sigframe";
	case UW_SRC_EHABI: return "ehabi";
	case UW_SRC_CHROME: return "chrome";
	case UW_SRC_EXCFRAME: return "excframe";
	case UW_SRC_COMPACT: return "compact";
	case UW_SRC_BREAKPAD: return "breakpad";
	default: return "unknown";
	}
}

const char *uw_stop_name(enum uw_stop stop)
{
	switch (stop) {
	case UW_STOP_NONE: return "none";
	case UW_STOP_OUTERMOST: return "outermost frame";
	case UW_STOP_END: return "end of chain";
	case UW_STOP_NO_INFO: return "no unwind info";
	case UW_STOP_READ_FAULT: return "read fault";
	case UW_STOP_NO_PROGRESS: return "no progress";
	case UW_STOP_DEPTH: return "depth limit";
	case UW_STOP_BAD_DATA: return "bad data";
	default: return "unknown";
	}
}
