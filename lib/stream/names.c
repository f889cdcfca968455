/* names.c - interned file and function names (see names.h). */
#include "config.h"

#include "names.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "rawmem.h"
#include "spinlock.h"

#define ARENA_BYTES (32u << 20)
#define INDEX_SLOTS (2 * STRINGS_MAX)
#define NAME_MAX_BYTES 4096

struct table {
	const char **names;        /* id -> name */
	_Atomic uint32_t count;
	uint32_t *index;           /* hash slot -> id + 1 */
};

static struct table tables[2];
static char *arena;
static size_t arena_used;
static _Atomic int busy;

int strings_init(void)
{
	if (arena)
		return 0;
	arena = rawmem_map(ARENA_BYTES);
	for (int t = 0; t < 2; t++) {
		tables[t].names = rawmem_map(STRINGS_MAX * sizeof(char *));
		tables[t].index = rawmem_map(INDEX_SLOTS * sizeof(uint32_t));
		if (!tables[t].names || !tables[t].index)
			arena = NULL;
	}
	if (!arena) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xCBF29CE484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001B3ull;
	}
	return h;
}

static const char *store(const char *name, size_t len)
{
	char *copy;

	if (arena_used + len + 1 > ARENA_BYTES)
		return NULL;
	copy = arena + arena_used;
	memcpy(copy, name, len);
	copy[len] = '\0';
	arena_used += len + 1;
	return copy;
}

static uint32_t intern_locked(struct table *t, const char *name, size_t len)
{
	uint32_t slot = (uint32_t)hash_bytes(name, len) & (INDEX_SLOTS - 1);
	uint32_t id = atomic_load_explicit(&t->count, memory_order_relaxed);
	const char *copy;

	for (; t->index[slot]; slot = (slot + 1) & (INDEX_SLOTS - 1)) {
		const char *known = t->names[t->index[slot] - 1];

		if (!strncmp(known, name, len) && known[len] == '\0')
			return t->index[slot] - 1;
	}
	if (id >= STRINGS_MAX || !(copy = store(name, len)))
		return STRING_ID_NONE;
	/* Counted before it is indexed: a child forked in between finds
	 * the name again under a new id, rather than its id on another
	 * name. */
	t->names[id] = copy;
	atomic_store_explicit(&t->count, id + 1, memory_order_release);
	t->index[slot] = id + 1;
	return id;
}

uint32_t strings_intern(enum string_table table, const char *name,
			size_t len)
{
	uint32_t id;

	if (!arena)
		return STRING_ID_NONE;
	if (len == 0 || len > NAME_MAX_BYTES || memchr(name, '\0', len)) {
		name = "?";
		len = 1;
	}
	spin_lock(&busy);
	id = intern_locked(&tables[table], name, len);
	spin_unlock(&busy);
	return id;
}

uint32_t strings_count(enum string_table table)
{
	return atomic_load_explicit(&tables[table].count, memory_order_acquire);
}

const char *strings_get(enum string_table table, uint32_t id)
{
	return id < strings_count(table) ? tables[table].names[id] : NULL;
}

void strings_after_fork(void)
{
	spin_unlock(&busy); /* the thread that held it is gone */
}
