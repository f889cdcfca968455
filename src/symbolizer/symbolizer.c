/* symbolizer.c - the symbolizer's public interface and its module cache.
 *
 * Contract: see symbolizer.h.  A module is identified by its recorded path
 * and build-id; the first lookup in it opens the file (under the sysroot),
 * checks its build-id against the profile, finds its separate debug file,
 * builds its sorted function table and opens its DWARF.  All problems found
 * then are warned about, so each is reported once per module, and the
 * module stays in the cache, usable or not, until symbolizer_free.
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer-internal.h"
#include "symbolizer.h"

struct module {
	char *path;     /* as recorded in the profile */
	char *build_id; /* as recorded, lowercase hex, or NULL */
	uint64_t hash;
	struct elf_file binary; /* the module itself, when readable */
	struct elf_file debug;  /* its separate debug file, when found */
	struct function_table functions;
	/* DWARF of the debug file, else of the module; may be NULL. */
	struct source_lines *lines;
};

struct symbolizer {
	struct debug_search search; /* strings below are owned */
	char *sysroot;
	char **debug_dirs;
	void (*warn)(void *ctx, const char *message);
	void *warn_ctx;
	void *debuginfod; /* its client, once one was needed */
	/* Open-addressing hash table of modules; size is a power of two. */
	struct module **slots;
	size_t n_slots;
	size_t n_modules;
};

static void warn_on_stderr(void *ctx, const char *message)
{
	(void)ctx;
	fprintf(stderr, "%s: warning: %s\n", program_invocation_short_name,
		message);
}

__attribute__((format(printf, 2, 3))) static void
warn(struct symbolizer *s, const char *format, ...)
{
	char *message;
	va_list ap;
	int n;

	va_start(ap, format);
	n = vasprintf(&message, format, ap);
	va_end(ap);
	if (n < 0)
		return;
	s->warn(s->warn_ctx, message);
	free(message);
}

static int copy_options(struct symbolizer *s,
			const struct symbolizer_options *opts)
{
	size_t n = opts->debug_dirs != NULL ? opts->n_debug_dirs : 0;

	if (opts->sysroot != NULL) {
		size_t len = strlen(opts->sysroot);

		/* "/sysroot/" + "/usr/lib/x.so" would double the slash. */
		while (len > 0 && opts->sysroot[len - 1] == '/')
			len--;
		s->sysroot = len > 0 ? strndup(opts->sysroot, len) : NULL;
		if (len > 0 && s->sysroot == NULL)
			return -1;
	}
	s->debug_dirs = calloc(n + 1, sizeof *s->debug_dirs);
	if (s->debug_dirs == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		s->debug_dirs[i] = strdup(opts->debug_dirs[i]);
		if (s->debug_dirs[i] == NULL)
			return -1;
	}
	s->search.sysroot = s->sysroot;
	s->search.debug_dirs = (const char *const *)s->debug_dirs;
	s->search.n_debug_dirs = n;
	s->warn = opts->warn != NULL ? opts->warn : warn_on_stderr;
	s->warn_ctx = opts->warn_ctx;
	return 0;
}

struct symbolizer *symbolizer_new(const struct symbolizer_options *opts)
{
	static const struct symbolizer_options defaults;
	struct symbolizer *s;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOSYS;
		return NULL;
	}
	s = calloc(1, sizeof *s);
	if (s == NULL)
		return NULL;
	if (copy_options(s, opts != NULL ? opts : &defaults) != 0) {
		symbolizer_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

static void module_free(struct module *m)
{
	source_lines_close(m->lines);
	function_table_free(&m->functions);
	elf_file_close(&m->debug);
	elf_file_close(&m->binary);
	free(m->path);
	free(m->build_id);
	free(m);
}

void symbolizer_free(struct symbolizer *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n_slots; i++)
		if (s->slots[i] != NULL)
			module_free(s->slots[i]);
	free(s->slots);
	for (size_t i = 0; s->debug_dirs != NULL && s->debug_dirs[i]; i++)
		free(s->debug_dirs[i]);
	free(s->debug_dirs);
	free(s->sysroot);
	debuginfod_client_free(s->debuginfod);
	free(s);
}

/* The recorded build-id in lowercase into buf; NULL when absent or not hex
 * (a damaged profile must not steer the debug-file search). */
static const char *normalized_build_id(const char *hex,
				       char buf[BUILD_ID_HEX_SIZE])
{
	size_t len = hex != NULL ? strlen(hex) : 0;

	if (len == 0 || len % 2 != 0 || len >= BUILD_ID_HEX_SIZE ||
	    hex[strspn(hex, "0123456789abcdefABCDEF")] != '\0')
		return NULL;
	for (size_t i = 0; i <= len; i++)
		buf[i] = (char)(hex[i] >= 'A' && hex[i] <= 'F'
					? hex[i] - 'A' + 'a'
					: hex[i]);
	return buf;
}

/* FNV-1a over the path and the build-id, which together name a module. */
static uint64_t module_hash(const char *path, const char *build_id)
{
	uint64_t h = 14695981039346656037u;

	for (const char *p = path; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	h = (h ^ 0xff) * 1099511628211u; /* separator: byte absent from text */
	for (const char *p = build_id != NULL ? build_id : ""; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	return h;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The slot holding the module, or the empty slot where it belongs. */
static struct module **find_slot(struct module **slots, size_t n_slots,
				 uint64_t hash, const char *path,
				 const char *build_id)
{
	size_t i = (size_t)hash & (n_slots - 1);

	while (slots[i] != NULL &&
	       (slots[i]->hash != hash || strcmp(slots[i]->path, path) != 0 ||
		!same_text(slots[i]->build_id, build_id)))
		i = (i + 1) & (n_slots - 1);
	return &slots[i];
}

/* Keep the table at most half full so probe sequences stay short. */
static int make_room(struct symbolizer *s)
{
	size_t n = s->n_slots != 0 ? s->n_slots * 2 : 64;
	struct module **slots;

	if (2 * (s->n_modules + 1) <= s->n_slots)
		return 0;
	slots = calloc(n, sizeof *slots);
	if (slots == NULL)
		return -1;
	for (size_t i = 0; i < s->n_slots; i++) {
		struct module *m = s->slots[i];

		if (m != NULL)
			*find_slot(slots, n, m->hash, m->path, m->build_id) = m;
	}
	free(s->slots);
	s->slots = slots;
	s->n_slots = n;
	return 0;
}

static char *path_on_disk(const struct symbolizer *s, const char *path)
{
	char *joined;

	if (s->sysroot == NULL)
		return strdup(path);
	if (asprintf(&joined, "%s%s%s", s->sysroot, path[0] == '/' ? "" : "/",
		     path) < 0)
		return NULL;
	return joined;
}

/* Ask the debuginfod servers for the debug file of the code that ran,
 * unless the module on this machine carries its own. */
static void fetch_debug_file(struct symbolizer *s, struct module *m,
			     const char *file_build_id)
{
	const char *build_id = m->build_id ? m->build_id : file_build_id;
	const char *problem;

	if (m->binary.elf != NULL && elf_file_has_debug_info(&m->binary))
		return;
	if (build_id != NULL &&
	    debug_file_by_debuginfod(&s->debuginfod, build_id, &m->debug,
				     &problem) != 0 &&
	    problem != NULL)
		warn(s, "%s: debuginfod: %s", m->path, problem);
}

/* Try the build-ids (the profile's first: it names the code that ran),
 * then .gnu_debuglink, on this machine; then the debuginfod servers. */
static void find_debug_file(struct symbolizer *s, struct module *m,
			    const char *file_build_id)
{
	char *rejected = NULL;

	if (m->build_id != NULL &&
	    debug_file_by_build_id(&s->search, m->build_id, &m->debug) == 0)
		return;
	if (file_build_id != NULL && !same_text(file_build_id, m->build_id) &&
	    debug_file_by_build_id(&s->search, file_build_id, &m->debug) == 0)
		return;
	if (m->binary.elf != NULL &&
	    debug_file_by_debuglink(&s->search, &m->binary, m->path, &m->debug,
				    &rejected) == 0)
		return;
	if (rejected != NULL) {
		warn(s, "%s: debug file %s does not match the module (CRC "
			"differs); ignored", m->binary.path, rejected);
		free(rejected);
	}
	fetch_debug_file(s, m, file_build_id);
}

static void open_binary(struct symbolizer *s, struct module *m,
			char *file_build_id)
{
	char *disk_path = path_on_disk(s, m->path);
	const char *problem = strerror(ENOMEM);

	file_build_id[0] = '\0';
	if (disk_path == NULL ||
	    elf_file_open(&m->binary, disk_path, &problem) != 0) {
		warn(s, "%s: %s", disk_path != NULL ? disk_path : m->path,
		     problem);
		free(disk_path);
		return;
	}
	free(disk_path);
	if (elf_file_build_id(&m->binary, file_build_id, BUILD_ID_HEX_SIZE) !=
	    0)
		file_build_id[0] = '\0';
	else if (m->build_id != NULL && strcmp(file_build_id, m->build_id) != 0)
		warn(s,
		     "%s: build-id differs from the profile (file changed since "
		     "profiling); symbols may be wrong",
		     m->binary.path);
}

/* Symbols of the debug file (its .dynsym is an empty placeholder), then
 * .symtab and .dynsym of the module itself. */
static void build_function_table(struct symbolizer *s, struct module *m)
{
	struct function_table *t = &m->functions;

	if ((m->debug.elf != NULL && function_table_add(t, &m->debug, 0) != 0) ||
	    (m->binary.elf != NULL && function_table_add(t, &m->binary, 1) != 0))
		warn(s, "%s: out of memory reading symbols", m->path);
	function_table_finish(t);
}

static void module_load(struct symbolizer *s, struct module *m)
{
	char file_build_id[BUILD_ID_HEX_SIZE];

	open_binary(s, m, file_build_id);
	find_debug_file(s, m, file_build_id[0] != '\0' ? file_build_id : NULL);
	build_function_table(s, m);
	if (m->debug.elf != NULL)
		m->lines = source_lines_open(m->debug.elf);
	if (m->lines == NULL && m->binary.elf != NULL)
		m->lines = source_lines_open(m->binary.elf);
}

static struct module *module_get(struct symbolizer *s, const char *path,
				 const char *build_id_hex)
{
	char buf[BUILD_ID_HEX_SIZE];
	const char *build_id = normalized_build_id(build_id_hex, buf);
	uint64_t hash = module_hash(path, build_id);
	struct module **slot, *m;

	if (make_room(s) != 0)
		return NULL;
	slot = find_slot(s->slots, s->n_slots, hash, path, build_id);
	if (*slot != NULL)
		return *slot;
	m = calloc(1, sizeof *m);
	if (m == NULL || (m->path = strdup(path)) == NULL ||
	    (build_id != NULL && (m->build_id = strdup(build_id)) == NULL)) {
		if (m != NULL)
			free(m->path);
		free(m);
		return NULL;
	}
	m->hash = hash;
	module_load(s, m);
	*slot = m;
	s->n_modules++;
	return m;
}

/* The address a frame executes: a return address follows its call
 * instruction, which may be the last one of the calling function. */
static uint64_t code_address(uint64_t offset, int is_return_address)
{
	return is_return_address && offset > 0 ? offset - 1 : offset;
}

static int lookup_in(struct module *m, uint64_t address,
		     struct symbol_info *out)
{
	struct function_symbol *sym;

	*out = (struct symbol_info){ NULL, NULL, 0, 0 };
	if (m == NULL)
		return -1;
	sym = function_table_find(&m->functions, address);
	if (sym != NULL)
		out->function = function_symbol_display(sym);
	if (m->lines != NULL &&
	    source_lines_find(m->lines, address, &out->file, &out->line) != 0) {
		out->file = NULL;
		out->line = 0;
	}
	return out->function != NULL || out->file != NULL ? 0 : -1;
}

int symbolizer_lookup(struct symbolizer *s, const char *path,
		      const char *build_id_hex, uint64_t offset,
		      int is_return_address, struct symbol_info *out)
{
	return lookup_in(module_get(s, path, build_id_hex),
			 code_address(offset, is_return_address), out);
}

/* Room for the functions inlined into one another at one address. */
#define MAX_INLINED 64

int symbolizer_lookup_inlined(struct symbolizer *s, const char *path,
			      const char *build_id_hex, uint64_t offset,
			      int is_return_address, struct symbol_info *out,
			      size_t max)
{
	struct module *m = module_get(s, path, build_id_hex);
	uint64_t address = code_address(offset, is_return_address);
	struct inlined_function inlined[MAX_INLINED];
	size_t n = 0;

	if (max == 0 || lookup_in(m, address, &out[0]) != 0)
		return -1;
	if (m->lines != NULL)
		n = source_lines_inlined(m->lines, address, inlined,
					 max - 1 < MAX_INLINED ? max - 1
							       : MAX_INLINED);
	out[n] = out[0];
	for (size_t i = 0; i < n; i++)
		out[i] = (struct symbol_info){ inlined[i].function,
					       inlined[i].file,
					       inlined[i].line, 1 };
	return (int)n + 1;
}

int symbolizer_module_readable(struct symbolizer *s, const char *path,
			       const char *build_id_hex)
{
	struct module *m = module_get(s, path, build_id_hex);

	return m != NULL && m->binary.elf != NULL;
}
