// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_loop: will-it-scale's mmap1 testcase as a standalone program.
 * TASKS processes each map and unmap 128 MB of anonymous memory in a loop
 * (a vm_area_struct and maple tree nodes each time).  Once all tasks run,
 * the parent prints their map+unmap pairs over SECONDS as "key: value"
 * lines: tasks, seconds (as measured), iterations, ops_per_sec.
 *
 * Usage: mmap_loop TASKS SECONDS  (TASKS 1..1024, SECONDS 1..3600)
 * Exit status: 0 ok, 1 a call failed, 2 usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MEMSIZE		(128UL << 20)
#define MAX_TASKS	1024
#define MAX_SECONDS	3600

static int parse(const char *s, long max, long *val)
{
	char *end;

	errno = 0;
	*val = strtol(s, &end, 10);
	return errno || end == s || *end || *val < 1 || *val > max ? -1 : 0;
}

static unsigned long sum(unsigned long *iters, long tasks)
{
	unsigned long total = 0;
	long i;

	for (i = 0; i < tasks; i++)
		total += __atomic_load_n(&iters[i * 8], __ATOMIC_RELAXED);
	return total;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long *iters;
	unsigned long total0, total;
	long tasks, seconds, i;
	int status, failed = 0;
	double t0, t1;
	pid_t *pids;

	if (argc != 3 || parse(argv[1], MAX_TASKS, &tasks) ||
	    parse(argv[2], MAX_SECONDS, &seconds)) {
		fprintf(stderr, "usage: %s TASKS SECONDS (TASKS 1..%d, SECONDS 1..%d)\n",
			argv[0], MAX_TASKS, MAX_SECONDS);
		return 2;
	}
	/* one counter per task, each on its own cache line */
	iters = mmap(NULL, tasks * 64, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(tasks, sizeof(*pids));
	if (iters == MAP_FAILED || !pids) {
		perror("mmap_loop: counters");
		return 1;
	}
	for (i = 0; i < tasks; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("mmap_loop: fork");
			failed = 1;
			break;
		}
		if (pids[i] == 0) {
			unsigned long *n = iters + i * 8;

			/* no task outlives a killed parent */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(1);
			for (;;) {
				void *p = mmap(NULL, MEMSIZE, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

				if (p == MAP_FAILED || munmap(p, MEMSIZE))
					_exit(1);
				__atomic_store_n(n, *n + 1, __ATOMIC_RELAXED);
			}
		}
	}
	/* from the first map+unmap of the last task (10 s at most) */
	for (i = 0; !failed && !sum(iters + (tasks - 1) * 8, 1); i++) {
		if (i == 10000) {
			fprintf(stderr, "mmap_loop: task %ld did not start\n", tasks - 1);
			failed = 1;
		}
		usleep(1000);
	}
	total0 = sum(iters, tasks);
	t0 = now();
	if (!failed)
		sleep(seconds);
	total = sum(iters, tasks) - total0;
	t1 = now();
	for (i = 0; i < tasks && pids[i] > 0; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < tasks && pids[i] > 0; i++) {
		if (waitpid(pids[i], &status, 0) < 0 ||
		    !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
			fprintf(stderr, "mmap_loop: task %ld failed\n", i);
			failed = 1;
		}
	}
	printf("tasks: %ld\nseconds: %.3f\niterations: %lu\nops_per_sec: %.0f\n",
	       tasks, t1 - t0, total, total / (t1 - t0));
	return failed;
}
