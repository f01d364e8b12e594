/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * A host-side SFrame encoder: turns an abstract description of a table
 * (header fields, FDEs, FREs) into the raw bytes of a .sframe section
 * placed at a given address, laid out per the SFrame specification for
 * versions 1, 2 and 3.  `uwind sframe` writes its tables with it, and the
 * SFrame tests build their vectors with it.
 *
 * The encoder writes what it is told: it does not check that the table
 * makes sense (tests build hostile tables with it), only that every value
 * fits the field it goes into; `uwind sframe` checks what it made by
 * reading it back with the core.
 */
#ifndef SFRAME_ENC_H
#define SFRAME_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SFE_MAX_WORDS	15

/* Header flags and ABI numbers (same values as the format). */
#define SFE_F_SORTED	0x1
#define SFE_F_FP	0x2
#define SFE_F_PCREL	0x4

enum { SFE_ABI_AARCH64_BE = 1, SFE_ABI_AARCH64_LE = 2, SFE_ABI_AMD64_LE = 3,
       SFE_ABI_S390X_BE = 4 };
enum { SFE_FRE_ADDR1 = 0, SFE_FRE_ADDR2 = 1, SFE_FRE_ADDR4 = 2 };
enum { SFE_PC_INC = 0, SFE_PC_MASK = 1 };
enum { SFE_FDE_DEFAULT = 0, SFE_FDE_FLEX = 1 };

/* FLEX control word: register-based (reg_p), dereference, register. */
#define SFE_CTRL(reg, deref, reg_p) \
	((int32_t)(((uint32_t)(reg) << 3) | ((deref) ? 2u : 0u) | \
		   ((reg_p) ? 1u : 0u)))
/* FLEX "saved at CFA + offset" (what gas writes for a stack slot). */
#define SFE_CTRL_CFA	SFE_CTRL(0, 1, 0)

struct sfe_fre {
	uint32_t start;		/* offset from the function start */
	uint8_t base_sp;	/* CFA base: 1 SP, 0 FP */
	uint8_t word_size;	/* 1, 2, 4; 0: the smallest that fits */
	uint8_t ra_mangled;
	uint8_t nwords;		/* 0..15 */
	int32_t w[SFE_MAX_WORDS];
};

struct sfe_fde {
	uint64_t func_start;	/* absolute address of the function */
	uint32_t func_size;
	uint8_t pc_type;	/* SFE_PC_INC / SFE_PC_MASK */
	uint8_t rep_size;	/* V2/V3 only */
	uint8_t addr_size;	/* FRE start width 1, 2, 4; 0: smallest */
	uint8_t pauth_key_b;
	uint8_t signal;		/* V3 only */
	uint8_t fde_type;	/* V3 only: SFE_FDE_DEFAULT / SFE_FDE_FLEX */
	uint32_t nfres;
	const struct sfe_fre *fres;
	/*
	 * Or, when raw is not NULL, the nfres FREs already encoded
	 * (raw_len bytes, starts of width raw_type, SFE_FRE_ADDR*), copied
	 * as they are: a caller that encodes one function at a time keeps
	 * the bytes, not the FREs.  The layout's fre_at is not filled for
	 * them.
	 */
	const uint8_t *raw;
	uint32_t raw_len;
	uint8_t raw_type;
};

struct sfe_table {
	uint8_t version;	/* 1, 2 or 3 */
	uint8_t flags;		/* written as given (SFE_F_*) */
	uint8_t abi;		/* SFE_ABI_* */
	int8_t fixed_fp;
	int8_t fixed_ra;
	uint8_t auxhdr_len;	/* auxiliary header bytes (filled with 0xa5) */
	bool big_endian;	/* byte order of every multi-byte field */
	uint64_t addr;		/* address of the section's first byte */
	uint32_t nfdes;
	const struct sfe_fde *fdes;	/* written in this order */
};

/* Where things landed (section offsets), for tests that patch bytes. */
struct sfe_layout {
	uint32_t fde_sub;	/* FDE subsection */
	uint32_t fre_sub;	/* FRE subsection */
	uint32_t fre_len;
	uint32_t fde_size;	/* 17, 20 or 16 */
	uint32_t *fde_at;	/* [nfdes]: FDE (index) entry */
	uint32_t *attr_at;	/* [nfdes]: V3 attribute record, else 0 */
	uint32_t *fre_at;	/* [total FREs]: FRE, all FDEs in order */
	uint32_t nfres;		/* total FREs */
};

/*
 * Encode t into a malloc'ed buffer (*out, *len).  lay may be NULL.
 * Returns 0, or -1 with a message in err (if err is not NULL) when a
 * value does not fit its field.
 */
int sfe_encode(const struct sfe_table *t, uint8_t **out, size_t *len,
	       struct sfe_layout *lay, char *err, size_t errlen);

void sfe_layout_free(struct sfe_layout *lay);

/* Byte helpers for tests that patch an encoded section. */
void sfe_put(uint8_t *p, unsigned int n, uint64_t v, bool be);
uint64_t sfe_get(const uint8_t *p, unsigned int n, bool be);

#endif /* SFRAME_ENC_H */
