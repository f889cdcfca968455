/* mlyze-stats.h - the members of struct mlyze_info that hold a finalised
 * profile's statistics, for the reader that fills them and memprof-report
 * that sums them over profiles.
 *
 * memprof-stats.def gives each statistic a profile keeps its KEY.  The
 * members cannot be made from it: their layout is libmlyze's ABI, and
 * some are named after the KEY rather than the FIELD.  So each member is
 * mapped here to the FIELD of its row, and a statistic with no member is
 * listed as read by name only (mlyze_info.stat_list).  A KEY added to
 * the .def without a line here fails to compile; tests/report/
 * check-reader proves that each member holds the value of its row's KEY.
 */
#ifndef SPPROF_MLYZE_STATS_H
#define SPPROF_MLYZE_STATS_H

#include <stdint.h>

#include "spprof/mlyze.h"

/* The members of struct mlyze_stats, each with the FIELD of its row of
 * memprof-stats.def: X(member, field). */
#define MLYZE_STATS_MEMBERS(X)                      \
	X(samples, total_samples)                   \
	X(frees_tracked, freed_samples)             \
	X(heap_map_full_drops, heap_map_full_drops) \
	X(stack_table_drops, stack_table_drops)     \
	X(events_dropped, events_dropped)           \
	X(native_stacks, native_stacks)             \
	X(native_frames, native_frames)             \
	X(shallow_stacks, shallow_stacks)           \
	X(truncated_stacks, truncated_stacks)

/* Those struct mlyze_info holds outside struct mlyze_stats, which had no
 * room left for them. */
#define MLYZE_INFO_STAT_MEMBERS(X) \
	X(fp_stacks, fp_stacks)    \
	X(dwarf_stacks, dwarf_stacks)

/* The rows whose KEY has no member: X(field). */
#define MLYZE_STATS_BY_NAME_ONLY(X) \
	X(death_during_birth)       \
	X(events_written)

/* memprof-stats.def's KEYs, a member each named by its FIELD, so that
 * the KEY of a row is found by FIELD at compile time. */
struct mlyze_stat_keys {
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	char field[sizeof(key)];
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
};

#define MLYZE_STAT_HAS_KEY(field) \
	(sizeof(((struct mlyze_stat_keys *)0)->field) > 1)
#define MLYZE_STAT_ONE(...) +1

enum {
	MLYZE_STAT_KEY_COUNT = 0
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	+MLYZE_STAT_HAS_KEY(field)
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
	,
	MLYZE_STAT_LISTED_COUNT = 0 MLYZE_STATS_MEMBERS(MLYZE_STAT_ONE)
		MLYZE_INFO_STAT_MEMBERS(MLYZE_STAT_ONE)
			MLYZE_STATS_BY_NAME_ONLY(MLYZE_STAT_ONE),
};

#define MLYZE_STAT_CHECK_KEY(field)                                      \
	_Static_assert(MLYZE_STAT_HAS_KEY(field),                        \
		       #field " has no KEY in memprof-stats.def");
#define MLYZE_STAT_CHECK_MEMBER_KEY(member, field) MLYZE_STAT_CHECK_KEY(field)
MLYZE_STATS_MEMBERS(MLYZE_STAT_CHECK_MEMBER_KEY)
MLYZE_INFO_STAT_MEMBERS(MLYZE_STAT_CHECK_MEMBER_KEY)
MLYZE_STATS_BY_NAME_ONLY(MLYZE_STAT_CHECK_KEY)
#undef MLYZE_STAT_CHECK_MEMBER_KEY
#undef MLYZE_STAT_CHECK_KEY

_Static_assert(MLYZE_STAT_KEY_COUNT == MLYZE_STAT_LISTED_COUNT,
	       "a KEY of memprof-stats.def is not listed in mlyze-stats.h");
_Static_assert(sizeof(struct mlyze_stats) ==
		       (0 MLYZE_STATS_MEMBERS(MLYZE_STAT_ONE)) *
			       sizeof(uint64_t),
	       "a member of struct mlyze_stats is not listed in mlyze-stats.h");

#endif
