// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers the unit tests share. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/testutil.h"

int run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

int file_offset(const char *path, const char *name, uint64_t *off, uint64_t *size)
{
	char cmd[1024], line[1024];
	unsigned long long vaddr = 0, sz = 0, o, va, fsz;
	int found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long s;
		char t, n[128];

		if (sscanf(line, "%llx %llx %c %127s", &va, &s, &t, n) == 4 && !strcmp(n, name)) {
			vaddr = va;
			sz = s;
			found = 1;
		}
	}
	pclose(p);
	if (!found)
		return -1;
	snprintf(cmd, sizeof(cmd), "readelf -lW %s", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	found = 0;
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%*x 0x%llx", &o, &va, &fsz) == 3 &&
		    vaddr >= va && vaddr < va + fsz) {
			*off = vaddr - va + o;
			found = 1;
		}
	}
	pclose(p);
	if (!found)
		return -1;
	if (size)
		*size = sz;
	return 0;
}

int write_text(const char *path, const char *text, unsigned mode)
{
	return write_bytes(path, text, strlen(text), mode);
}

int write_bytes(const char *path, const void *data, size_t len, unsigned mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);

	if (fd < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len || fchmod(fd, (mode_t)mode)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int add_scn(Elf *e, const struct test_scn *s)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(scn, &sh))
		return -1;
	d->d_buf = (void *)s->buf;
	d->d_size = s->size;
	d->d_align = 1;
	d->d_type = ELF_T_BYTE;
	sh.sh_name = s->name;
	sh.sh_type = s->type;
	sh.sh_flags = s->flags;
	sh.sh_addr = s->addr;
	sh.sh_link = s->link;
	sh.sh_info = s->info;
	sh.sh_entsize = s->entsize;
	sh.sh_addralign = 1;
	return gelf_update_shdr(scn, &sh) ? 0 : -1;
}

int test_write_elf(int fd, uint16_t type, uint16_t machine, const struct test_scn *scns, size_t n)
{
	Elf64_Ehdr *eh;
	Elf *e;
	size_t i;
	int ret = -1;

	elf_version(EV_CURRENT);
	if (!(e = elf_begin(fd, ELF_C_WRITE, NULL)))
		return -1;
	if (!(eh = elf64_newehdr(e)))
		goto out;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = type;
	eh->e_machine = machine;
	eh->e_version = EV_CURRENT;
	for (i = 0; i < n; i++)
		if (add_scn(e, &scns[i]))
			goto out;
	eh->e_shstrndx = 1;
	if (elf_update(e, ELF_C_WRITE) > 0)
		ret = 0;
out:
	elf_end(e);
	return ret;
}
