/* compiler.h - small portability macros shared by the runtime's components. */
#ifndef SPPROF_COMPILER_H
#define SPPROF_COMPILER_H

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Symbols of the public API (everything else is built hidden). */
#define MEMPROF_PUBLIC __attribute__((visibility("default")))

/* Thread-local state of a preloaded library must use the initial-exec
 * model: the general-dynamic model may call malloc on first access. */
#define INITIAL_EXEC_TLS __thread __attribute__((tls_model("initial-exec")))

/* Slow paths of the interposers stay out of line, so that their fast
 * path needs no registers saved beyond the frame pointer.  They are not
 * marked cold: a sample takes them often enough, and code built for size
 * copies a block's data byte by byte. */
#define SLOW_PATH __attribute__((noinline))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* SPPROF_COMPILER_H */
