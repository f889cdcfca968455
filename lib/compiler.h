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

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* SPPROF_COMPILER_H */
