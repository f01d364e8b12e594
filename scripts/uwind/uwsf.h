/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The file `uwind sframe FILE -o OUT` writes: an SFrame section made from
 * FILE's DWARF CFI, with what is needed to key it to FILE.  It is what
 * `uwind sframe --install` puts on disk and the kernel module reads
 * (kernel/README.md, "Stock binaries: installed tables").  Constants
 * only: the module (kernel/installed.c) includes this header too; the
 * tool's helpers for it are declared in uwind.h.
 *
 * A 128-byte header, every field little-endian whatever the target,
 * then the SFrame section, in the target's byte order:
 *
 *   0x00  char[8] magic       "UWSFRAME"
 *   0x08  u16     version     1
 *   0x0a  u16     hdr_size    128: the section starts here (8-aligned)
 *   0x0c  u16     e_machine   EM_X86_64 (62) or EM_AARCH64 (183)
 *   0x0e  u8      id_len      GNU build-id length, 1..64 (0: none; the
 *                             table is keyed by its CFI, flag bit 1)
 *   0x0f  u8      flags       bit 0: the section is big-endian; bit 1:
 *                             the file has no build-id, and the table is
 *                             keyed by check_off, check_size, check_crc
 *                             (with id_len 0); others 0
 *   0x10  u64     sframe_vaddr  the ELF vaddr the section is laid out
 *                             at: its addresses are that plus the
 *                             section's own offsets (uwind writes 0, so
 *                             with PCREL every FDE start field is the
 *                             function's ELF vaddr minus the field's
 *                             offset in the section)
 *   0x18  u64     text_lo     lowest ELF vaddr an FDE covers
 *   0x20  u64     text_hi     one past the highest
 *   0x28  u32     sframe_size bytes of section after the header: the
 *                             file is exactly hdr_size + sframe_size
 *   0x2c  u32     cfi_size    bytes of DWARF CFI it came from (info)
 *   0x30  u64     check_off   file offset of the CFI section the table
 *                             was made from (.eh_frame, else .debug_frame)
 *   0x38  u32     check_size  its size
 *   0x3c  u32     check_crc   CRC-32 of those bytes of FILE (zlib's and
 *                             gzip's: reflected 0xedb88320, inverted)
 *   0x40  u8[64]  build_id    id_len bytes, then zeros
 *   0x80          the SFrame section (V2, or V3 when FLEX FDEs are needed)
 *
 * A reader places the section at sframe_vaddr + the mapping's load bias
 * (run-time address minus ELF vaddr, as for PT_GNU_SFRAME) after
 * checking magic, version, hdr_size, the file size, e_machine, that
 * the mapped file's build-id has id_len bytes equal to build_id and that
 * its bytes at check_off have check_size bytes and the CRC check_crc (a
 * file rebuilt, or edited, under the same build-id has other CFI).
 */
#ifndef UWIND_UWSF_H
#define UWIND_UWSF_H

#define UWSF_MAGIC		"UWSFRAME"
#define UWSF_VERSION		1
#define UWSF_HDR_SIZE		128
#define UWSF_F_BIG_ENDIAN	0x01
#define UWSF_F_CFI_KEY		0x02

/*
 * The section types CFI is found in: SHT_PROGBITS (GNU ld's .eh_frame,
 * every .debug_frame), and on x86-64 the psABI's SHT_X86_64_UNWIND,
 * which lld and gold give .eh_frame.
 */
#define UWSF_SHT_X86_64_UNWIND	0x70000001u
#define UWSF_CFI_SECTION(type, machine) \
	((type) == 1 /* SHT_PROGBITS */ || \
	 ((machine) == 62 /* EM_X86_64 */ && (type) == UWSF_SHT_X86_64_UNWIND))
#define UWSF_MAX_ID		64

#define UWSF_OFF_VERSION	0x08
#define UWSF_OFF_HDR_SIZE	0x0a
#define UWSF_OFF_MACHINE	0x0c
#define UWSF_OFF_ID_LEN		0x0e
#define UWSF_OFF_FLAGS		0x0f
#define UWSF_OFF_VADDR		0x10
#define UWSF_OFF_TEXT_LO	0x18
#define UWSF_OFF_TEXT_HI	0x20
#define UWSF_OFF_SIZE		0x28
#define UWSF_OFF_CFI_SIZE	0x2c
#define UWSF_OFF_CHECK_OFF	0x30
#define UWSF_OFF_CHECK_SIZE	0x38
#define UWSF_OFF_CHECK_CRC	0x3c
#define UWSF_OFF_BUILD_ID	0x40

/*
 * Where `uwind sframe --install` and `uwind agent` put tables and the
 * module looks: by build-id, DIR/XX/REST.uwsf (XX its first byte in hex,
 * REST the others); a file without one by its CFI key, DIR/cfi/XX/REST.uwsf
 * with the 16 bytes check_crc, check_size and check_off (each big-endian:
 * XX is the CRC's top byte) in hex.
 */
#define UWSF_DIR		"/var/lib/uwind/build-id"
#define UWSF_CFI_SUB		"cfi"
#define UWSF_CFI_DIR		UWSF_DIR "/" UWSF_CFI_SUB

#endif
