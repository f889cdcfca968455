/* sandboxed.c - a program that sandboxes itself halfway through, as
 * chromium, bubblewrap and services under systemd do, for sandboxed.sh.
 *
 * Usage: sandboxed MODE [DIR]
 *   seccomp    installs a seccomp filter that kills the process for any
 *              system call but the few that malloc, printf and exit need
 *   seccomp-exec  installs such a filter that also lets the process
 *              execute itself and the dynamic loader load it, then
 *              executes itself (mode "after-exec"), which starts so
 *   chroot     moves into new user and mount namespaces, then into DIR
 *              (an empty directory) as its root
 *   landlock   forbids itself, with Landlock, to create, write or remove
 *              any file it has not open, as xz 5.6 and later do
 *   clone      makes a child by the clone system call itself, which
 *              runs no atfork handler; the child allocates and frees
 *   clone-tls  makes a child sharing its memory on thread-local storage
 *              of its own (zeroed), which only calls _exit(), as
 *              chromium's zygote does to chroot
 * Before and after, it allocates and frees enough for samples at any
 * rate; it prints what it computed and exits with status 0.
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCKS 2000

static void *blocks[BLOCKS];

/* Allocates and frees about 20 MiB in blocks of many sizes: a checksum. */
static unsigned long churn(unsigned round)
{
	unsigned long sum = 0;

	for (unsigned i = 0; i < BLOCKS; i++) {
		size_t size = 16 + (i * 7919u + round) % 20000;

		free(blocks[i]);
		blocks[i] = malloc(size);
		if (!blocks[i])
			exit(3);
		memset(blocks[i], (int)(i & 0xff), size);
		sum += ((unsigned char *)blocks[i])[size - 1] + size;
	}
	return sum;
}

#define ALLOW(nr)                                                \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),         \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* What a strict sandbox allows a computing process: its memory, its
 * standard streams, the clock and its end.  Anything else kills it. */
#if defined(__x86_64__)
static void enter_seccomp(int exec)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		ALLOW(SYS_read), ALLOW(SYS_write), ALLOW(SYS_brk),
		ALLOW(SYS_mmap), ALLOW(SYS_munmap), ALLOW(SYS_mremap),
		ALLOW(SYS_mprotect), ALLOW(SYS_madvise), ALLOW(SYS_futex),
		ALLOW(SYS_newfstatat), ALLOW(SYS_fstat),
		ALLOW(SYS_rt_sigprocmask), ALLOW(SYS_rt_sigreturn),
		ALLOW(SYS_clock_gettime), ALLOW(SYS_exit),
		ALLOW(SYS_exit_group),
		/* Past here, only what executing and loading needs. */
		BPF_STMT(BPF_JMP | BPF_JA, exec ? 1 : 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		ALLOW(SYS_execve), ALLOW(SYS_openat), ALLOW(SYS_close),
		ALLOW(SYS_pread64), ALLOW(SYS_access), ALLOW(SYS_arch_prctl),
		ALLOW(SYS_set_tid_address), ALLOW(SYS_set_robust_list),
		ALLOW(SYS_rseq), ALLOW(SYS_prlimit64), ALLOW(SYS_getrandom),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog program = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) < 0) {
		perror("seccomp");
		exit(2);
	}
}
#else
static void enter_seccomp(int exec)
{
	(void)exec;
	fprintf(stderr, "the filter is written for x86-64\n");
	exit(2);
}
#endif

static void enter_chroot(const char *dir)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0 || chroot(dir) < 0 ||
	    chdir("/") < 0) {
		perror("chroot");
		exit(2);
	}
}

static void enter_landlock(void)
{
	struct landlock_ruleset_attr rules = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE |
				     LANDLOCK_ACCESS_FS_MAKE_REG |
				     LANDLOCK_ACCESS_FS_REMOVE_FILE,
	};
	long ruleset = syscall(SYS_landlock_create_ruleset, &rules,
			       sizeof(rules), 0);

	if (ruleset < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) {
		perror("landlock");
		exit(2);
	}
	close((int)ruleset);
}

/* The child's work ends with its own checksum line. */
static void clone_child(void)
{
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, 0);
	int status;

	if (pid < 0) {
		perror("clone");
		exit(2);
	}
	if (pid == 0) {
		printf("child %lu\n", churn(7) + churn(8));
		fflush(stdout);
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		printf("child ended with status %#x\n", status);
		exit(4);
	}
}

static int only_exit(void *arg)
{
	(void)arg;
	_exit(0);
}

static void clone_with_own_tls(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	static char tls[4096] __attribute__((aligned(64)));
	int status;
	pid_t pid = clone(only_exit, stack + sizeof(stack),
			  CLONE_VM | CLONE_VFORK | CLONE_SETTLS | SIGCHLD, NULL,
			  NULL, tls, NULL);

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		printf("child sharing our memory did not exit\n");
		exit(4);
	}
}

int main(int argc, char **argv)
{
	unsigned long before, after;

	if (argc < 2) {
		fprintf(stderr, "usage: sandboxed MODE [DIR]\n");
		return 2;
	}
	before = churn(1) + churn(2);
	if (strcmp(argv[1], "after-exec") == 0) {
		printf("started under a filter %lu\n", churn(5));
		return 0;
	}
	if (strcmp(argv[1], "seccomp") == 0)
		enter_seccomp(0);
	else if (strcmp(argv[1], "seccomp-exec") == 0) {
		fflush(stdout);
		enter_seccomp(1);
		execl("/proc/self/exe", argv[0], "after-exec", (char *)NULL);
		perror("exec");
		return 2;
	} else if (strcmp(argv[1], "chroot") == 0 && argc > 2)
		enter_chroot(argv[2]);
	else if (strcmp(argv[1], "landlock") == 0)
		enter_landlock();
	else if (strcmp(argv[1], "clone") == 0)
		clone_child();
	else if (strcmp(argv[1], "clone-tls") == 0)
		clone_with_own_tls();
	else
		return 2;
	after = churn(3) + churn(4);
	for (unsigned i = 0; i < BLOCKS; i++)
		free(blocks[i]);
	printf("%s %lu %lu\n", argv[1], before, after);
	return 0;
}
