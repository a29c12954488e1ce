// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_loop TASKS SECONDS: will-it-scale's mmap1.  TASKS processes each
 * map and unmap 128 MB of anonymous memory in a loop; once all run, the
 * parent prints their pairs over SECONDS as "key: value" lines.
 * Exit status: 0 ok, 1 a call failed, 2 usage.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MEMSIZE		(128UL << 20)
#define STRIDE		8	/* one counter a cache line */

static unsigned long sum(unsigned long *iters, long tasks)
{
	unsigned long total = 0;
	long i;

	for (i = 0; i < tasks; i++)
		total += __atomic_load_n(&iters[i * STRIDE], __ATOMIC_RELAXED);
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
	long tasks = argc == 3 ? atol(argv[1]) : 0;
	long seconds = argc == 3 ? atol(argv[2]) : 0;
	unsigned long *iters, total0, total;
	int status, failed = 0;
	double t0, t1;
	pid_t *pids;
	long i;

	if (tasks < 1 || tasks > 1024 || seconds < 1 || seconds > 3600) {
		fprintf(stderr, "usage: %s TASKS SECONDS (1..1024, 1..3600)\n", argv[0]);
		return 2;
	}
	iters = mmap(NULL, tasks * STRIDE * sizeof(*iters), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(tasks, sizeof(*pids));
	if (iters == MAP_FAILED || !pids) {
		perror("mmap_loop: counters");
		return 1;
	}
	for (i = 0; i < tasks && !failed; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("mmap_loop: fork");
			failed = 1;
		} else if (pids[i] == 0) {
			unsigned long *n = iters + i * STRIDE;

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
	/* from the first pair of the last task, 10 s at most */
	for (i = 0; !failed && !sum(iters + (tasks - 1) * STRIDE, 1); i++) {
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
