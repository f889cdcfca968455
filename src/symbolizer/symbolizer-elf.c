/* symbolizer-elf.c - opening ELF files safely and reading their identity.
 *
 * Contract: see symbolizer-internal.h.  Every read goes through libelf's
 * bounds-checked accessors, so truncated or garbage files make these
 * functions fail instead of reading past the mapping.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "symbolizer-internal.h"

#define NT_GNU_BUILD_ID_TYPE 3

/* The descriptor can be closed once libelf holds the whole file: mapped,
 * or read into memory when mapping was not possible (ELF_C_FDREAD, which
 * also makes libelf forget the descriptor). */
static Elf *map_whole_file(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);

	if (elf != NULL && elf_cntl(elf, ELF_C_FDREAD) != 0) {
		elf_end(elf);
		return NULL;
	}
	return elf;
}

/* libelf quietly treats a header table past the end of the file as absent;
 * a file cut short is damaged, not stripped. */
static bool header_tables_fit(Elf *elf, const GElf_Ehdr *ehdr)
{
	size_t size = 0;
	uint64_t sections = (uint64_t)(ehdr->e_shnum != 0 ? ehdr->e_shnum : 1) *
			    ehdr->e_shentsize;
	uint64_t segments = (uint64_t)ehdr->e_phnum * ehdr->e_phentsize;

	if (elf_rawfile(elf, &size) == NULL)
		return false;
	return (ehdr->e_shoff == 0 ||
		(ehdr->e_shoff <= size && sections <= size - ehdr->e_shoff)) &&
	       (ehdr->e_phoff == 0 ||
		(ehdr->e_phoff <= size && segments <= size - ehdr->e_phoff));
}

int elf_file_open(struct elf_file *f, const char *path, const char **problem)
{
	struct stat st;
	GElf_Ehdr ehdr;
	int fd;

	f->elf = NULL;
	f->path = NULL;
	/* O_NONBLOCK: a FIFO at a module's path must not hang the report. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		*problem = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		*problem = "not a regular file";
		return -1;
	}
	f->elf = map_whole_file(fd);
	close(fd);
	if (f->elf == NULL)
		*problem = elf_errmsg(-1);
	else if (elf_kind(f->elf) != ELF_K_ELF ||
		 gelf_getehdr(f->elf, &ehdr) == NULL)
		*problem = "not an ELF file";
	else if (!header_tables_fit(f->elf, &ehdr))
		*problem = "truncated or damaged ELF file";
	else
		*problem = NULL;
	if (*problem != NULL) {
		elf_file_close(f);
		return -1;
	}
	f->path = strdup(path);
	if (f->path == NULL) {
		*problem = strerror(ENOMEM);
		elf_file_close(f);
		return -1;
	}
	return 0;
}

void elf_file_close(struct elf_file *f)
{
	if (f->elf != NULL)
		elf_end(f->elf);
	free(f->path);
	f->elf = NULL;
	f->path = NULL;
}

static int hex_encode(const unsigned char *bytes, size_t len, char *buf,
		      size_t size)
{
	static const char digits[] = "0123456789abcdef";

	if (len == 0 || size < 2 * len + 1)
		return -1;
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = digits[bytes[i] >> 4];
		buf[2 * i + 1] = digits[bytes[i] & 15];
	}
	buf[2 * len] = '\0';
	return 0;
}

static int find_build_id_note(Elf_Data *data, char *buf, size_t size)
{
	GElf_Nhdr nhdr;
	size_t offset = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(data, offset, &nhdr, &name_off,
				    &desc_off)) > 0) {
		const char *bytes = data->d_buf;

		if (nhdr.n_type == NT_GNU_BUILD_ID_TYPE && nhdr.n_namesz == 4 &&
		    memcmp(bytes + name_off, "GNU", 4) == 0)
			return hex_encode((const unsigned char *)bytes +
						  desc_off,
					  nhdr.n_descsz, buf, size);
		offset = next;
	}
	return -1;
}

int elf_file_build_id(const struct elf_file *f, char *buf, size_t size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		Elf_Data *data;

		if (gelf_getshdr(scn, &shdr) == NULL ||
		    shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data != NULL && data->d_buf != NULL &&
		    find_build_id_note(data, buf, size) == 0)
			return 0;
	}
	return -1;
}

static Elf_Scn *section_by_name(Elf *elf, const char *wanted)
{
	Elf_Scn *scn = NULL;
	size_t names;
	GElf_Shdr shdr;

	if (elf_getshdrstrndx(elf, &names) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (gelf_getshdr(scn, &shdr) == NULL)
			continue;
		name = elf_strptr(elf, names, shdr.sh_name);
		if (name != NULL && strcmp(name, wanted) == 0)
			return scn;
	}
	return NULL;
}

bool elf_file_has_debug_info(const struct elf_file *f)
{
	return section_by_name(f->elf, ".debug_info") != NULL;
}

/* Section layout: file name, NUL, padding to 4 bytes, CRC-32 in the
 * file's byte order. */
int elf_file_debuglink(const struct elf_file *f, const char **name,
		       uint32_t *crc)
{
	Elf_Scn *scn = section_by_name(f->elf, ".gnu_debuglink");
	Elf_Data *data = scn != NULL ? elf_getdata(scn, NULL) : NULL;
	const unsigned char *bytes, *end_of_name, *c;
	size_t crc_offset;
	GElf_Ehdr ehdr;

	if (data == NULL || data->d_buf == NULL ||
	    gelf_getehdr(f->elf, &ehdr) == NULL)
		return -1;
	bytes = data->d_buf;
	end_of_name = memchr(bytes, '\0', data->d_size);
	if (end_of_name == NULL || end_of_name == bytes)
		return -1;
	crc_offset = ((size_t)(end_of_name - bytes) + 4) & ~(size_t)3;
	if (crc_offset + 4 > data->d_size)
		return -1;
	c = bytes + crc_offset;
	if (ehdr.e_ident[EI_DATA] == ELFDATA2MSB)
		*crc = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 |
		       (uint32_t)c[2] << 8 | c[3];
	else
		*crc = (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 |
		       (uint32_t)c[1] << 8 | c[0];
	*name = (const char *)bytes;
	return 0;
}

int elf_file_crc32(const struct elf_file *f, uint32_t *crc)
{
	size_t size = 0;
	const char *image = elf_rawfile(f->elf, &size);

	if (image == NULL)
		return -1;
	*crc = (uint32_t)crc32_z(0, (const Bytef *)image, size);
	return 0;
}
