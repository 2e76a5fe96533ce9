/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A compile unit's DWARF line program (.debug_line, versions 2 to 5) read
 * straight from the section: the rows and file names libdw's
 * dwarf_getsrclines and dwarf_filesrc give (same rows, same order, same
 * paths), without libdw's allocation per row and its sort of pointers,
 * which cost most of a cold symbolization. Whatever this reader does not
 * mirror exactly (compressed sections, DW_LNE_define_file, VLIW op
 * indexes, values past libdw's field widths, string forms needing other
 * tables) is refused with -ENOTSUP: the caller asks libdw then.
 */
#ifndef ZT_DWLINE_H
#define ZT_DWLINE_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

/* The sections a line program reads, borrowed from an Elf (NULL when absent). */
struct dwl_sections {
	const uint8_t *line, *str, *line_str;
	size_t line_len, str_len, line_str_len;
	int little; /* byte order of the file */
};

/* 0; -ENOTSUP when .debug_line is missing or compressed (use libdw). */
int dwl_sections_init(struct dwl_sections *s, Elf *elf);

/* One row, as libdw's Dwarf_Line has it. */
struct dwl_row {
	uint64_t addr;
	uint32_t file; /* index into the unit's file names */
	uint32_t line, column;
	uint32_t discr : 24; /* libdw keeps 24 bits */
	uint32_t end : 8;    /* end of a sequence */
};

/* A run of rows: rows[start, end). */
struct dwl_run {
	size_t start, end;
};

/* One unit's rows and file names (paths[i], NULL when none; index 0 before
 * DWARF 5 is libdw's "???"). Reused from unit to unit. The rows in libdw's
 * order (by address, an end of sequence before other rows at its address,
 * else in program order; the last row marked an end) are those of
 * runs[0], then of runs[1], ...: whole sequences are put in order without
 * moving their rows. */
struct dwl_unit {
	struct dwl_row *rows;
	size_t nr_rows, cap_rows;
	struct dwl_run *runs;
	size_t nr_runs, cap_runs;
	const char **paths;
	size_t nr_paths, cap_paths;
	char *names; /* storage of the joined paths */
	size_t names_len, names_cap;
	struct dwl_row *tmp; /* sort buffer */
	size_t cap_tmp;
};

void dwl_unit_init(struct dwl_unit *u);
void dwl_unit_release(struct dwl_unit *u);

/*
 * Read the line program at offset off of s->line for a unit of address
 * size addr_size whose DW_AT_comp_dir is comp_dir (NULL: none) into u.
 * Returns 0, -ENOTSUP (not mirrored: ask libdw), -EBADMSG (malformed) or
 * -ENOMEM.
 */
int dwl_read(const struct dwl_sections *s, uint64_t off, unsigned addr_size, const char *comp_dir,
	     struct dwl_unit *u);

#endif
