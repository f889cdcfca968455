/* spprof/mlyze.h - read .mlyze heap profiles (libmlyze).
 *
 * A reader streams one profile in bounded memory: the JSON metadata is
 * loaded whole when the file is opened, the event stream is then decoded
 * through a fixed-size buffer, one event per mlyze_next() call.  Every rule
 * of mlyze(5) is checked; the first violation stops the reader with a
 * message of the form "FILE: offset N: problem" (a damaged stack does not,
 * see below).  A file that ends inside an event (a killed process) is read
 * up to its last whole event, with a warning; a streamed file that ends in
 * zero bytes from an event on (space reserved but never written) is read
 * up to them, without one.
 *
 *     mlyze_reader *r = mlyze_open("trace.mlyze", NULL);
 *     struct mlyze_event ev;
 *     int rc;
 *
 *     if (!r)
 *             return -1;                       (out of memory)
 *     while ((rc = mlyze_next(r, &ev)) > 0)
 *             if (ev.type == MLYZE_EVENT_ALLOC)
 *                     use(ev.alloc.size, ev.alloc.stack);
 *     if (rc < 0)
 *             fprintf(stderr, "%s\n", mlyze_error(r));
 *     mlyze_close(r);
 *
 * Stacks, modules, file and function names come from the metadata or from
 * definition events in the stream; each is defined before the first event
 * that uses it, so every pointer an event carries is valid.  Pointers into
 * the tables stay valid until mlyze_close().
 *
 * One damaged stack does not make a damaged file: a stack whose frames
 * cannot be read (a frame referencing an undefined file, function or
 * module, a frame of the wrong form...) is defined without frames and
 * marked `damaged`, so that the samples taken with it still count; the
 * reader counts such stacks and reports them in one warning when the
 * stream ends.  So is a stack of more than MLYZE_STACK_DEPTH_MAX frames:
 * the runtime records 64 at most (MEMPROF_MAX_STACK_DEPTH), and a deeper
 * one would only make every reader of the profile slow.
 */
#ifndef SPPROF_MLYZE_H
#define SPPROF_MLYZE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most frames a stack of a profile may have (see mlyze(5)). */
#define MLYZE_STACK_DEPTH_MAX 1024
/* The most bytes of a THREAD event's name: the kernel keeps 15 (and its
 * NUL) of a thread's name. */
#define MLYZE_THREAD_NAME_MAX 15

#if defined(__GNUC__) && defined(MLYZE_BUILDING_LIBRARY)
#define MLYZE_PUBLIC __attribute__((visibility("default")))
#else
#define MLYZE_PUBLIC
#endif

typedef struct mlyze_reader mlyze_reader;

/* Event types, numbered as in the file (mlyze-events.def, the one list of
 * them, which the runtime's writer and the reader's decoders follow). */
enum mlyze_event_kind {
#define MLYZE_EVENT_TYPE(NAME, name, NUMBER, LAYOUT, DESCRIPTION) \
	MLYZE_EVENT_##NAME = NUMBER,
#include <spprof/mlyze-events.def>
#undef MLYZE_EVENT_TYPE
};

/* The two string tables. */
enum mlyze_table {
	MLYZE_TABLE_FILES = 0,
	MLYZE_TABLE_FUNCTIONS = 1,
};

struct mlyze_string {
	uint64_t id;
	const char *text; /* UTF-8, NUL-terminated */
};

/* A shared object or executable mapped in the profiled process. */
struct mlyze_module {
	uint64_t id;
	const char *path;
	uint64_t start, end; /* address range of its PT_LOAD segments */
	uint64_t load_bias;  /* address minus ELF virtual address */
	const char *build_id; /* lower-case hex, NULL when unknown */
};

/* How a frame is known. */
enum mlyze_frame_form {
	MLYZE_FORM_MODULE = 0,  /* native code in a module: module + offset */
	MLYZE_FORM_ADDRESS = 1, /* native code outside every module */
	MLYZE_FORM_PYTHON = 2,  /* interpreted code: file, function, line */
};

struct mlyze_frame {
	enum mlyze_frame_form form;
	/* MLYZE_FORM_MODULE: module and ELF virtual address (offset);
	 * MLYZE_FORM_ADDRESS: the absolute address in `offset`. */
	const struct mlyze_module *module;
	uint64_t offset;
	/* MLYZE_FORM_PYTHON */
	const struct mlyze_string *file;
	const struct mlyze_string *function;
	uint64_t line;
};

/* The most functions one SYMBOL event names at an address: those the
 * compiler inlined there and the one that holds them (see mlyze(5)). */
#define MLYZE_SYMBOL_CHAIN_MAX 32
/* A SYMBOL names a module whose id is below 2^24 and an address below
 * 2^40 (a terabyte of code): the frames past them are left to the
 * binaries. */
#define MLYZE_SYMBOL_MODULE_ID_BITS 24
#define MLYZE_SYMBOL_ADDRESS_BITS 40

/* One function at a native frame's address, as a profile carries it.
 * The text is the bytes the binary's symbols and debug information gave,
 * NUL-terminated, not necessarily UTF-8. */
struct mlyze_symbol {
	const char *function; /* NULL when unknown */
	const char *file;     /* source file; NULL when unknown */
	uint64_t line;        /* 0 when unknown */
	int inlined;          /* 1: inlined into the next symbol of the list */
};

/* A call stack, leaf first: frames[0] is the code that called malloc. */
struct mlyze_stack {
	uint64_t id;
	size_t index; /* 0, 1, 2... in order of definition */
	size_t depth;
	const struct mlyze_frame *frames;
	/* 1 when the definition was damaged: no frames (depth 0), and the
	 * samples taken with it cannot be attributed to code. */
	int damaged;
};

/* What one sample stands for, or a sum of such: see mlyze_weigh(). */
struct mlyze_weight {
	double bytes, bytes_variance;
	double count, count_variance;
};

struct mlyze_event {
	enum mlyze_event_kind type;
	uint64_t offset;  /* byte offset of the event in the file */
	uint64_t time_us; /* header start time plus every delta so far */
	union {
		struct {
			uint64_t address;
			uint64_t size;
			uint64_t sampling_rate; /* in force; 0 when unknown */
			const struct mlyze_stack *stack;
			uint16_t thread;
		} alloc;
		struct {
			uint64_t address;
		} free;
		struct {
			uint64_t objects, bytes;
		} gc;
		struct {
			const struct mlyze_string *name;
		} marker;
		struct {
			const struct mlyze_stack *stack;
		} stack;
		struct {
			const struct mlyze_module *module;
		} module;
		struct {
			enum mlyze_table table;
			const struct mlyze_string *string;
		} string;
		struct {
			uint64_t sampling_rate;
		} rate;
		/* The functions at a module's ELF virtual address, innermost
		 * first (count 0: its module was read, and nothing covers the
		 * address); the same as mlyze_find_symbols() gives. */
		struct {
			const struct mlyze_module *module;
			uint64_t offset;
			size_t count;
			const struct mlyze_symbol *symbols;
		} symbol;
		struct {
			/* Bytes in RAM, and those of them not backed
			 * by a file: all the process holds, malloc's
			 * heap or not. */
			uint64_t resident, anonymous;
			/* The most bytes in RAM so far, as the kernel
			 * kept them (its high-water mark); 0 when the
			 * reading does not say. */
			uint64_t resident_peak;
		} memory;
		/* The name of a thread (its kernel thread id) from now on,
		 * until another THREAD event of the same thread. */
		struct {
			uint64_t tid;
			/* UTF-8, NUL-terminated, each byte of the file's
			 * name that starts no character a terminal shows
			 * as it is (not UTF-8, a control) as U+FFFD; valid
			 * until the next mlyze_next(). */
			const char *name;
		} thread;
		struct {
			uint64_t number;        /* 1 for the first checkpoint */
			uint64_t events_before; /* events written until it */
		} checkpoint;
		/* A sampled anonymous mapping: a block of `size` bytes of
		 * the kind "mapped", weighed as a sample of that size at
		 * that rate.  remainder: what is left of an earlier
		 * mapping once part of it was unmapped (an UNMAP of that
		 * mapping comes just before), which allocates nothing. */
		struct {
			uint64_t address;
			uint64_t size;
			uint64_t sampling_rate; /* of this sample */
			const struct mlyze_stack *stack;
			uint16_t thread;
			uint8_t remainder;
		} map;
		/* The sampled mapping at `address` was given back. */
		struct {
			uint64_t address;
			uint64_t length;
		} unmap;
		/* As an ALLOC, but its weight is already in the TOTALS. */
		struct {
			uint64_t address;
			uint64_t size;
			uint64_t sampling_rate; /* of this sample */
			const struct mlyze_stack *stack;
			uint16_t thread;
		} live;
		/* The sum of the weights of every sample of one stack since
		 * the start, up to the checkpoint: in place of the ALLOC
		 * events discarded, and of those kept before it (none). */
		struct {
			const struct mlyze_stack *stack;
			uint64_t samples;
			const struct mlyze_weight *sum; /* valid until the next
							 * mlyze_next() */
		} totals;
		/* The live heap at an earlier checkpoint: its samples and the
		 * sum of their weights. */
		struct {
			uint64_t time_us; /* as mlyze_event.time_us */
			uint64_t samples;
			const struct mlyze_weight *sum; /* as in totals */
		} heap_point;
	};
};

/* Counters the runtime writes into finalised profiles; 0 when absent. */
struct mlyze_stats {
	uint64_t samples, frees_tracked;
	uint64_t heap_map_full_drops, stack_table_drops, events_dropped;
	uint64_t native_stacks, native_frames;
	uint64_t shallow_stacks, truncated_stacks;
};

/* One statistic of a profile, by name. */
struct mlyze_stat {
	const char *key;
	uint64_t value;
};

/* Header and metadata fields.  Absent metadata reads as 0 or NULL. */
struct mlyze_info {
	uint32_t version;
	uint64_t start_time_us; /* from the header */
	uint32_t metadata_length;
	const char *producer;
	int complete; /* 1 finalised, 0 not finalised, -1 not stated */
	uint64_t pid, ppid;
	const char *hostname;
	const char *executable;
	const char *const *command_line;
	size_t command_line_length;
	uint64_t sampling_rate; /* at the start; RATE events change it */
	uint64_t end_time_us;
	uint64_t max_stack_depth;
	int has_stats;
	struct mlyze_stats stats;
	/* How the process ended, in finalised files: "exit", or "exec" when
	 * exec_program replaced it; NULL when not stated. */
	const char *ended_by;
	const char *exec_program;
	/* Stacks defined so far whose definition was damaged; grows while
	 * the stream defines more. */
	uint64_t damaged_stacks;
	/* Of the stats, placed here so that the fields above keep their
	 * offsets: the stacks walked by frame pointers and those read from
	 * unwind tables, known when has_stack_methods is 1 (the stats carry
	 * them); else 0. */
	uint64_t fp_stacks, dwarf_stacks;
	int has_stack_methods;
	/* The command line as the program rewrote it to show what it does
	 * ("postgres: checkpointer"), when it did; else NULL.  command_line
	 * is the one it started with. */
	const char *title;
	/* A recording window that did not start with the process: why it
	 * started ("memprof-ctl start"); NULL when it started with it.
	 * ended_by then says why it ended: "stop", "snapshot", "exit"... */
	const char *started_by;
	/* Every integer of the metadata's "stats", by its name (the runtime
	 * writes those memprof-stats.def gives a key): stat_count of them,
	 * in the order of the file. */
	const struct mlyze_stat *stat_list;
	size_t stat_count;
	/* The file that defines the malloc the program's calls reached when
	 * it was not the runtime's (the executable's own, or a library's
	 * preloaded before the runtime): the program's allocations went
	 * there, unseen, and the profile holds none of them.  NULL when the
	 * runtime's malloc came first, as it should. */
	const char *malloc_defined_by;
};

struct mlyze_options {
	/* Bytes of the event buffer (0: 1 MiB; at least 256).  A definition
	 * event larger than the buffer is refused. */
	size_t buffer_size;
	/* Called with "FILE: problem" or "FILE: offset N: problem" for every
	 * warning (unfinished profile, file cut short, damaged stacks...). */
	void (*warn)(void *ctx, const char *message);
	void *warn_ctx;
};

enum mlyze_status {
	MLYZE_OK = 0,
	MLYZE_BAD_FILE = 1,     /* the profile breaks a rule of mlyze(5) */
	MLYZE_SYSTEM_ERROR = 2, /* open or read failed, or out of memory */
};

/* Open a profile and read its header and metadata.  Returns NULL only when
 * memory runs out; any other failure leaves mlyze_status() non-zero. */
MLYZE_PUBLIC mlyze_reader *mlyze_open(const char *path,
				      const struct mlyze_options *options);
/* The same on an open descriptor, read from its current position; `name`
 * is used in messages.  The descriptor is not closed.  On one that cannot
 * seek (a pipe), only an unwritten tail that fits in the buffer is known
 * as one (see mlyze(5)). */
MLYZE_PUBLIC mlyze_reader *mlyze_open_fd(int fd, const char *name,
					 const struct mlyze_options *options);
MLYZE_PUBLIC void mlyze_close(mlyze_reader *reader);

/* Decode the next event: 1 an event, 0 end of the profile, -1 error. */
MLYZE_PUBLIC int mlyze_next(mlyze_reader *reader, struct mlyze_event *event);
/* The next events, up to max (at least 1) of them, into events[]: how
 * many (1 or more), 0 at the end of the profile, -1 on error.  The same
 * events as mlyze_next() one by one, without a call for each of the
 * ALLOCs and FREEs that make most of a profile: only they follow one
 * another in a batch, and an event of another type ends it, so that what
 * that one points to stays valid until the next call.  An error or the
 * end after some events ends the batch; the next call returns it. */
MLYZE_PUBLIC int mlyze_next_events(mlyze_reader *reader,
				   struct mlyze_event *events, int max);

MLYZE_PUBLIC enum mlyze_status mlyze_status(const mlyze_reader *reader);
/* "FILE: offset N: problem", or NULL while there is no error. */
MLYZE_PUBLIC const char *mlyze_error(const mlyze_reader *reader);
/* Byte offset of the first byte not yet decoded. */
MLYZE_PUBLIC uint64_t mlyze_position(const mlyze_reader *reader);
/* 1 once the reader found the file cut inside an event, else 0. */
MLYZE_PUBLIC int mlyze_truncated(const mlyze_reader *reader);
/* Of a reader of a streamed file (not finalised) that reached the end of
 * its events (mlyze_next() returned 0): read on from there, so that the
 * next calls return the events written since, as a reader opened now
 * would after the ones returned already.  The file must be the same one,
 * grown only; a checkpoint starts a new file, to be read by a new reader.
 * 0, or -1 when the reader has failed or its file is finalised, or when
 * the last event returned was read before its writer had finished it
 * and was not what it wrote: the events must be read anew, by a new
 * reader. */
MLYZE_PUBLIC int mlyze_follow(mlyze_reader *reader);

MLYZE_PUBLIC const struct mlyze_info *mlyze_info(const mlyze_reader *reader);

/* Tables, in order of definition, and by id (NULL when undefined). */
MLYZE_PUBLIC size_t mlyze_stack_count(const mlyze_reader *reader);
MLYZE_PUBLIC const struct mlyze_stack *
mlyze_stack_at(const mlyze_reader *reader, size_t index);
MLYZE_PUBLIC const struct mlyze_stack *
mlyze_find_stack(const mlyze_reader *reader, uint64_t id);

MLYZE_PUBLIC size_t mlyze_module_count(const mlyze_reader *reader);
MLYZE_PUBLIC const struct mlyze_module *
mlyze_module_at(const mlyze_reader *reader, size_t index);
MLYZE_PUBLIC const struct mlyze_module *
mlyze_find_module(const mlyze_reader *reader, uint64_t id);

MLYZE_PUBLIC size_t mlyze_string_count(const mlyze_reader *reader,
				       enum mlyze_table table);
MLYZE_PUBLIC const struct mlyze_string *
mlyze_string_at(const mlyze_reader *reader, enum mlyze_table table,
		size_t index);
MLYZE_PUBLIC const struct mlyze_string *
mlyze_find_string(const mlyze_reader *reader, enum mlyze_table table,
		  uint64_t id);

/* The symbols the profile carries for the native frame at `offset` (an
 * ELF virtual address) in `module` (SYMBOL events read so far): returns
 * their number and points *symbols at them, innermost first; 0 when the
 * module was read and no function covers the address; -1 when the
 * profile carries nothing for that frame (the binary must tell). */
MLYZE_PUBLIC int mlyze_find_symbols(const mlyze_reader *reader,
				    const struct mlyze_module *module,
				    uint64_t offset,
				    const struct mlyze_symbol **symbols);

/* What one sample stands for (Horvitz-Thompson).  A block of `size` bytes
 * sampled at mean interval `sampling_rate` had probability
 * p = 1 - exp(-size / sampling_rate) to be sampled; it stands for size / p
 * bytes and 1 / p blocks.  The variances, summed over the samples of a
 * site, give its 95 % interval: 1.96 * sqrt(sum).  A rate of 0 (unknown)
 * or a size of 0 gives p = 1. */
MLYZE_PUBLIC void mlyze_weigh(uint64_t size, uint64_t sampling_rate,
			      struct mlyze_weight *weight);

#ifdef __cplusplus
}
#endif

#endif /* SPPROF_MLYZE_H */
