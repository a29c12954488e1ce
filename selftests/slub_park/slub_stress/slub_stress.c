// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

/*
 * Cross-NUMA-node SLUB stress test.
 *
 * Allocator kthreads on one node allocate objects from a private cache and
 * hand them through bounded rings to freer kthreads, which free them either
 * on another node (placement=cross, like sunrpc completing nfs_page objects
 * on the other socket), on the same node (placement=local), or half and
 * half from both nodes (placement=balanced).  Remote frees bypass the
 * per-cpu sheaves and go to __slab_free(), so the cache's SLUB_STATS
 * counters and the latency histograms here show what that costs.
 *
 * The cache lives from module load to rmmod so that the counters under
 * /sys/kernel/slab/<cache_name>/ can be read after a run.  Runs are
 * controlled through /sys/kernel/debug/slub_stress/.
 */

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/ptr_ring.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#define SS_MAX_INFLIGHT		65536U
#define SS_MAX_BATCH		256U
#define SS_MAX_DURATION_MS	3600000U
#define SS_MAX_SAMPLE_SHIFT	20U
#define SS_MAX_SHRINK_MS	60000U
#define SS_MAX_SHEAF_CAPACITY	4096U
#define SS_MAX_THREADS_PER_CPU	4
#define SS_MAX_NAME		64
#define SS_HIST_BUCKETS		32
/* cpu_relax() rounds before a thread with nothing to do goes to sleep */
#define SS_SPIN			64
/* safety net only: every sleep is ended by a wake-up from the peer */
#define SS_SLEEP_JIFFIES	(HZ / 10)
/* record the node a thread runs on at least every 2^10 loop iterations */
#define SS_NODE_CHECK_MASK	1023

enum ss_placement {
	SS_CROSS,
	SS_LOCAL,
	SS_BALANCED,
};

static const char * const ss_placement_names[] = {
	[SS_CROSS]	= "cross",
	[SS_LOCAL]	= "local",
	[SS_BALANCED]	= "balanced",
};

enum ss_run_state {
	SS_DONE,
	SS_RUNNING,
	SS_STOPPED,
	SS_ERROR,
};

static const char * const ss_state_names[] = {
	[SS_DONE]	= "done",
	[SS_RUNNING]	= "running",
	[SS_STOPPED]	= "stopped",
	[SS_ERROR]	= "error",
};

/*
 * The run parameters: module parameters and debugfs files (each field is
 * a struct ss_param below; all are int or unsigned int).
 */
struct ss_cfg {
	unsigned int placement;
	int alloc_node;
	int free_node;
	unsigned int threads;
	unsigned int inflight;
	unsigned int batch;
	unsigned int duration_ms;
	unsigned int sample_shift;
	unsigned int shrink_ms;
	unsigned int free_burst;
};

/* log2 histogram: bucket i counts samples in [2^i, 2^(i+1)) ns, 0 ns in 0 */
struct ss_lat {
	u64 samples;
	u64 max;
	u64 hist[SS_HIST_BUCKETS];
};

struct ss_thread;

struct ss_ring {
	struct ptr_ring ring;
	struct ss_thread *prod;
	struct ss_thread *cons;
	/* objects produced since the consumer was last woken (producer only) */
	unsigned int pending;
	/*
	 * free_burst: set by the producer when the ring is full, cleared by
	 * the consumer once it has emptied it; the producer waits meanwhile
	 */
	bool burst;
};

struct ss_run;

struct ss_thread {
	struct task_struct *task;
	struct ss_run *run;
	wait_queue_head_t wq;
	bool is_alloc;
	/* allocator: all objects are in its rings (release, read by freers) */
	bool done;
	int cpu;
	unsigned int nrings;
	unsigned int next_ring;
	struct ss_ring **rings;
	void **objs;
	u64 loops;
	u64 calls;
	u64 objects;
	u64 remote;
	u64 failures;
	nodemask_t seen;
	struct ss_lat lat;
};

struct ss_run {
	struct ss_cfg cfg;
	unsigned int seq;
	bool stop;
	bool stop_requested;
	bool go;
	int error;
	u64 start_ns;
	u64 end_ns;
	u64 shrinks;
	unsigned int wake_at;
	unsigned int nalloc;
	unsigned int nfree;
	unsigned int nrings;
	unsigned int threads_per_cpu;
	struct ss_thread **allocs;
	struct ss_thread **frees;
	struct ss_ring *rings;
	wait_queue_head_t gate_wq;
	wait_queue_head_t ctl_wq;
	atomic_t live;
	struct completion all_done;
};

/* What results prints; a copy of the last run once it is over. */
struct ss_result {
	unsigned int seq;
	unsigned int state;
	int error;
	struct ss_cfg cfg;
	unsigned int nalloc;
	unsigned int nfree;
	unsigned int threads_per_cpu;
	nodemask_t *alloc_seen;
	nodemask_t *free_seen;
	u64 elapsed_ns;
	u64 allocs;
	u64 frees;
	u64 remote;
	u64 failures;
	u64 shrinks;
	struct ss_lat free_lat;
	struct ss_lat alloc_lat;
};

static struct kmem_cache *ss_cache;
static struct dentry *ss_dir;
static DEFINE_MUTEX(ss_mutex);
static DECLARE_WAIT_QUEUE_HEAD(ss_idle_wq);
/* the run parameters, under ss_mutex; MODULE_PARM_DESC repeats the defaults */
static struct ss_cfg ss_cfg = {
	.placement	= SS_CROSS,
	.alloc_node	= 0,
	.free_node	= 1,
	.threads	= 0,
	.inflight	= 64,
	.batch		= 1,
	.duration_ms	= 10000,
	.sample_shift	= 6,
};

static struct ss_run *ss_cur;		/* under ss_mutex, NULL when idle */
static struct ss_result ss_last;	/* under ss_mutex */
static unsigned int ss_seq;		/* under ss_mutex */
static bool ss_exiting;			/* under ss_mutex */

static void ss_run_work(struct work_struct *work);
static DECLARE_WORK(ss_work, ss_run_work);

/* ------------------------------------------------------------------------
 * Parameters
 *
 * Every numeric or named parameter is described once, by a struct ss_param,
 * which is both its module parameter (mode 0444, checked when the module is
 * loaded) and, for the run parameters, its debugfs file (checked on every
 * write, refused with -EBUSY during a run).  A value out of range is
 * refused with -EINVAL and a pr_err that names the parameter and what it
 * allows.  The run parameters are the fields of ss_cfg, so that
 * /sys/module/slub_stress/parameters/ and the debugfs files show the same
 * values.  Combinations (batch <= inflight, two nodes for cross) are
 * checked when a run starts, by ss_check_cfg().
 */

struct ss_param {
	const char *name;
	void *val;			/* an int if @is_int, else unsigned int */
	bool is_int;
	unsigned int min;
	unsigned int max;
	/* a maximum known only at run time, instead of @max */
	unsigned int (*max_fn)(void);
	/* appended to "allowed min..max" in messages */
	const char *hint;
	/* a named value: the index of its name in @names[0..max] */
	const char * const *names;
};

static unsigned int ss_node_cpus(int nid)
{
	return cpumask_weight_and(cpumask_of_node(nid), cpu_online_mask);
}

static unsigned int ss_node_max(void)
{
	return nr_node_ids - 1;
}

/* threads for the largest node; ss_check_run_node() checks the run's */
static unsigned int ss_threads_max(void)
{
	unsigned int max = 0;
	int nid;

	for_each_online_node(nid)
		max = max(max, SS_MAX_THREADS_PER_CPU * ss_node_cpus(nid));
	return max;
}

static void ss_param_err_name(const struct ss_param *p, const char *str,
			      unsigned int max)
{
	char allowed[64];
	unsigned int i;
	int len = 0;

	for (i = 0; i <= max; i++)
		len += scnprintf(allowed + len, sizeof(allowed) - len, "%s%s",
				 i ? ", " : "", p->names[i]);
	pr_err("%s: '%s' unknown, allowed %s\n", p->name, str, allowed);
}

/*
 * Check @str as a value of @p and store it; called with ss_mutex held.
 * Returns 0, -EINVAL, or for a string that is not a number the error of
 * kstrtouint()/kstrtoint() (-EINVAL or -ERANGE, as for the kernel's own
 * uint and int module parameters).
 */
static int ss_param_store(const struct ss_param *p, const char *str)
{
	unsigned int max = p->max_fn ? p->max_fn() : p->max;
	unsigned int val;
	int ret;

	if (p->names) {
		ret = __sysfs_match_string(p->names, max + 1, str);
		if (ret < 0) {
			ss_param_err_name(p, str, max);
			return -EINVAL;
		}
		val = ret;
	} else {
		if (p->is_int)
			ret = kstrtoint(str, 0, (int *)&val);
		else
			ret = kstrtouint(str, 0, &val);
		if (ret) {
			pr_err("%s: '%s' is not a number, allowed %u..%u%s\n",
			       p->name, str, p->min, max, p->hint ?: "");
			return ret;
		}
		/* a negative int is above any max as an unsigned int */
		if (val < p->min || val > max) {
			pr_err("%s: %s out of range, allowed %u..%u%s\n",
			       p->name, str, p->min, max, p->hint ?: "");
			return -EINVAL;
		}
	}
	*(unsigned int *)p->val = val;
	return 0;
}

/* The value of @p and a newline; called with ss_mutex held. */
static int ss_param_show(const struct ss_param *p, char *buf, size_t size)
{
	unsigned int val = *(unsigned int *)p->val;

	if (p->names)
		return scnprintf(buf, size, "%s\n", p->names[val]);
	if (p->is_int)
		return scnprintf(buf, size, "%d\n", (int)val);
	return scnprintf(buf, size, "%u\n", val);
}

/* Module parameter: set at load (the mode is 0444), read in sysfs. */
static int ss_param_set(const char *str, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&ss_mutex);
	ret = ss_param_store(kp->arg, str);
	mutex_unlock(&ss_mutex);
	return ret;
}

static int ss_param_get(char *buf, const struct kernel_param *kp)
{
	int len;

	mutex_lock(&ss_mutex);
	len = ss_param_show(kp->arg, buf, PAGE_SIZE);
	mutex_unlock(&ss_mutex);
	return len;
}

static const struct kernel_param_ops ss_param_ops = {
	.set	= ss_param_set,
	.get	= ss_param_get,
};

/*
 * One parameter: its name, a pointer to its int or unsigned int, its type
 * for modinfo, its MODULE_PARM_DESC, then initializers of the other fields
 * of its struct ss_param.
 */
#define SS_PARAM(name_, val_, type_, desc_, ...)			\
	static_assert(__same_type(val_, int *) ||			\
		      __same_type(val_, unsigned int *));		\
	static struct ss_param ss_param_##name_ = {			\
		.name	= #name_,					\
		.val	= val_,						\
		.is_int	= __same_type(val_, int *),			\
		__VA_ARGS__						\
	};								\
	module_param_cb(name_, &ss_param_ops, &ss_param_##name_, 0444);	\
	__MODULE_PARM_TYPE(name_, #type_);				\
	MODULE_PARM_DESC(name_, desc_)

#define __param(type, name, init, msg)		\
	static type name = init;		\
	module_param(name, type, 0444);		\
	MODULE_PARM_DESC(name, msg)

/* Cache parameters, fixed from load to rmmod */

static char *cache_name = "nfs_page_test";
module_param(cache_name, charp, 0444);
MODULE_PARM_DESC(cache_name,
		 "Name of the cache created at load and destroyed at rmmod (default: nfs_page_test)");

static unsigned int obj_size = 96;
SS_PARAM(obj_size, &obj_size, uint,
	 "Object size in bytes, 1..(PAGE_SIZE << 3) (default: 96, struct nfs_page)",
	 .min = 1, .max = PAGE_SIZE << 3);

__param(bool, hwcache_align, true,
	"Create the cache with SLAB_HWCACHE_ALIGN (default: true)");

__param(bool, no_sheaves, false,
	"Create the cache without sheaves (SLAB_NOLEAKTRACE, as SLAB_NO_SHEAVES is not accepted; kmemleak then does not track its objects) (default: false)");

static unsigned int sheaf_capacity;
SS_PARAM(sheaf_capacity, &sheaf_capacity, uint,
	 "Sheaf capacity, 0..4096, 0 = kernel default (default: 0)",
	 .max = SS_MAX_SHEAF_CAPACITY);

/* Run parameters: the initial values of the debugfs files */

SS_PARAM(placement, &ss_cfg.placement, charp,
	 "Thread placement: cross, local or balanced (default: cross)",
	 .names = ss_placement_names,
	 .max = ARRAY_SIZE(ss_placement_names) - 1);

SS_PARAM(alloc_node, &ss_cfg.alloc_node, int,
	 "Node of the allocators for cross and local (default: 0)",
	 .max_fn = ss_node_max);

SS_PARAM(free_node, &ss_cfg.free_node, int,
	 "Node of the freers for cross, second node for balanced (default: 1)",
	 .max_fn = ss_node_max);

SS_PARAM(threads, &ss_cfg.threads, uint,
	 "Threads per side per node, 0 = one per CPU of the node, at most 4 per CPU (default: 0)",
	 .max_fn = ss_threads_max,
	 .hint = " (0 = one per CPU of the node, at most "
		 __stringify(SS_MAX_THREADS_PER_CPU) " per CPU)");

SS_PARAM(inflight, &ss_cfg.inflight, uint,
	 "Objects in flight per ring, 1..65536 (default: 64)",
	 .min = 1, .max = SS_MAX_INFLIGHT);

SS_PARAM(batch, &ss_cfg.batch, uint,
	 "Objects per alloc/free call, 1..256 and <= inflight; > 1 uses the bulk API (default: 1)",
	 .min = 1, .max = SS_MAX_BATCH, .hint = " and <= inflight");

SS_PARAM(duration_ms, &ss_cfg.duration_ms, uint,
	 "Run length in ms, 1..3600000 (default: 10000)",
	 .min = 1, .max = SS_MAX_DURATION_MS);

SS_PARAM(sample_shift, &ss_cfg.sample_shift, uint,
	 "Sample the latency of 1 in 2^sample_shift calls, 0..20 (default: 6)",
	 .max = SS_MAX_SAMPLE_SHIFT);

SS_PARAM(shrink_ms, &ss_cfg.shrink_ms, uint,
	 "Shrink the cache every shrink_ms ms during a run, 0..60000, 0 = never; under KASAN a shrink releases the frees its quarantine holds (default: 0)",
	 .max = SS_MAX_SHRINK_MS);

SS_PARAM(free_burst, &ss_cfg.free_burst, uint,
	 "1: a freer waits for a full ring, then frees all of it while its allocator waits (inflight objects at once, as an RCU batch does), so that local frees overflow the sheaves and the barn; 0..1 (default: 0)",
	 .max = 1);

__param(bool, start, false,
	"Start one run right after load, asynchronously (default: false)");

/* The debugfs files of the run parameters, one for each field of ss_cfg. */
static struct ss_param *const ss_run_params[] = {
	&ss_param_placement,
	&ss_param_alloc_node,
	&ss_param_free_node,
	&ss_param_threads,
	&ss_param_inflight,
	&ss_param_batch,
	&ss_param_duration_ms,
	&ss_param_sample_shift,
	&ss_param_shrink_ms,
	&ss_param_free_burst,
};

static_assert(ARRAY_SIZE(ss_run_params) * sizeof(int) == sizeof(struct ss_cfg));

/* ------------------------------------------------------------------------
 * Run configuration
 */

/* A node the threads of a run can be placed on (its range is checked). */
static int ss_check_run_node(const char *name, int nid, unsigned int nthreads)
{
	unsigned int ncpus;

	if (!node_online(nid)) {
		pr_err("%s: node %d is offline, allowed: an online node\n",
		       name, nid);
		return -EINVAL;
	}
	ncpus = ss_node_cpus(nid);
	if (!ncpus) {
		pr_err("%s: node %d has no online CPU, allowed: a node with CPUs\n",
		       name, nid);
		return -EINVAL;
	}
	if (nthreads > SS_MAX_THREADS_PER_CPU * ncpus) {
		pr_err("threads: %u too many for node %d, allowed 0..%u (%u CPUs, at most %u threads per CPU)\n",
		       nthreads, nid, SS_MAX_THREADS_PER_CPU * ncpus, ncpus,
		       SS_MAX_THREADS_PER_CPU);
		return -EINVAL;
	}
	return 0;
}

/*
 * The combinations of run parameters, at load and at every start (each
 * parameter's own range is checked when it is set).
 */
static int ss_check_cfg(const struct ss_cfg *cfg)
{
	const char *pl = ss_placement_names[cfg->placement];

	if (cfg->batch > cfg->inflight) {
		pr_err("batch: %u larger than inflight %u, allowed 1..%u and <= inflight\n",
		       cfg->batch, cfg->inflight, SS_MAX_BATCH);
		return -EINVAL;
	}
	if (cfg->placement != SS_LOCAL && num_online_nodes() < 2) {
		pr_err("placement: %s needs 2 online NUMA nodes, %u online; use placement=local\n",
		       pl, num_online_nodes());
		return -EINVAL;
	}
	if (ss_check_run_node("alloc_node", cfg->alloc_node, cfg->threads))
		return -EINVAL;
	if (cfg->placement == SS_LOCAL)
		return 0;
	if (ss_check_run_node("free_node", cfg->free_node, cfg->threads))
		return -EINVAL;
	if (cfg->alloc_node == cfg->free_node) {
		pr_err("free_node: %d equals alloc_node, placement %s needs two different online nodes (or use placement=local)\n",
		       cfg->free_node, pl);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Worker threads
 */

static void ss_note_node(struct ss_thread *t)
{
	__node_set(cpu_to_node(raw_smp_processor_id()), &t->seen);
}

static void ss_lat_add(struct ss_lat *lat, u64 ns)
{
	unsigned int b = ns ? ilog2(ns) : 0;

	lat->hist[min(b, SS_HIST_BUCKETS - 1)]++;
	lat->samples++;
	if (ns > lat->max)
		lat->max = ns;
}

static void ss_fail(struct ss_run *run, int err)
{
	cmpxchg(&run->error, 0, err);
	WRITE_ONCE(run->stop, true);
	wake_up(&run->ctl_wq);
}

static void ss_wake(struct ss_thread *t)
{
	if (wq_has_sleeper(&t->wq))
		wake_up(&t->wq);
}

/*
 * The end of a thread: count it done, then wait for kthread_stop(), so that
 * a thread never exits on its own (kthread_stop() needs the task to be
 * there).
 */
static int ss_thread_done(struct ss_thread *t)
{
	if (atomic_dec_and_test(&t->run->live))
		complete(&t->run->all_done);

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void ss_gate(struct ss_thread *t)
{
	ss_note_node(t);
	wait_event_interruptible(t->run->gate_wq, READ_ONCE(t->run->go));
	ss_note_node(t);
}

/* with free_burst, the producer waits for the whole ring to be freed */
static bool ss_ring_has_room(struct ss_thread *t, struct ss_ring *r)
{
	if (t->run->cfg.free_burst) {
		/* pairs with ss_drain_ring()'s release: the ring is empty */
		return !smp_load_acquire(&r->burst);
	}
	return !ptr_ring_full(&r->ring);
}

/*
 * Bounded spin, then sleep until the consumer makes room.  The allocator
 * does not look at run->stop here: its consumer keeps consuming until all
 * of its producers are done, so every allocated object reaches a freer.
 */
static void ss_wait_room(struct ss_thread *t, struct ss_ring *r)
{
	int i;

	for (i = 0; i < SS_SPIN; i++) {
		if (ss_ring_has_room(t, r))
			return;
		cpu_relax();
	}
	wait_event_interruptible_timeout(t->wq, ss_ring_has_room(t, r),
					 SS_SLEEP_JIFFIES);
	ss_note_node(t);
}

static void ss_push(struct ss_thread *t, struct ss_ring *r, void **objs,
		    unsigned int n)
{
	unsigned int wake_at = t->run->wake_at;
	unsigned int i = 0;

	while (i < n) {
		if (!ptr_ring_produce(&r->ring, objs[i])) {
			i++;
			continue;
		}
		/* full: make sure the consumer runs, then wait for room */
		r->pending = 0;
		if (t->run->cfg.free_burst)
			WRITE_ONCE(r->burst, true);
		ss_wake(r->cons);
		ss_wait_room(t, r);
	}
	r->pending += n;
	if (r->pending >= wake_at && !t->run->cfg.free_burst) {
		r->pending = 0;
		ss_wake(r->cons);
	}
}

static int ss_alloc_fn(void *arg)
{
	struct ss_thread *t = arg;
	struct ss_run *run = t->run;
	unsigned int n = run->cfg.batch;
	u64 mask = (1ULL << run->cfg.sample_shift) - 1;
	unsigned int i;

	ss_gate(t);
	/*
	 * At least one batch, even if the run is stopped already: a run of a
	 * few ms may end before this thread first runs, and a run that
	 * allocated nothing cannot be checked.
	 */
	do {
		bool sample = !(t->calls++ & mask);
		struct ss_ring *r;
		u64 t0 = 0;
		bool ok;

		if (!(t->loops++ & SS_NODE_CHECK_MASK))
			ss_note_node(t);
		if (sample)
			t0 = ktime_get_ns();
		if (n == 1) {
			t->objs[0] = kmem_cache_alloc(ss_cache, GFP_KERNEL);
			ok = t->objs[0];
		} else {
			ok = kmem_cache_alloc_bulk(ss_cache, GFP_KERNEL, n,
						   t->objs);
		}
		if (sample && ok)
			ss_lat_add(&t->lat, div_u64(ktime_get_ns() - t0, n));
		if (!ok) {
			t->failures++;
			ss_fail(run, -ENOMEM);
			break;
		}
		t->objects += n;

		/* balanced: alternate between the same-node and remote ring */
		r = t->rings[t->next_ring];
		if (++t->next_ring == t->nrings)
			t->next_ring = 0;
		ss_push(t, r, t->objs, n);
		cond_resched();
	} while (!READ_ONCE(run->stop));

	/* pairs with ss_producers_done(): our last produce is visible */
	smp_store_release(&t->done, true);
	for (i = 0; i < t->nrings; i++) {
		t->rings[i]->pending = 0;
		wake_up(&t->rings[i]->cons->wq);
	}
	return ss_thread_done(t);
}

static void ss_free_objs(struct ss_thread *t, void **objs, unsigned int n,
			 bool sample)
{
	int nid = cpu_to_node(raw_smp_processor_id());
	unsigned int i;
	u64 t0 = 0;

	for (i = 0; i < n; i++)
		if (page_to_nid(virt_to_page(objs[i])) != nid)
			t->remote++;
	if (sample)
		t0 = ktime_get_ns();
	if (n == 1)
		kmem_cache_free(ss_cache, objs[0]);
	else
		kmem_cache_free_bulk(ss_cache, n, objs);
	if (sample)
		ss_lat_add(&t->lat, div_u64(ktime_get_ns() - t0, n));
	t->objects += n;
}

/* Consume and free up to @max objects from @r; returns how many. */
static unsigned int ss_drain_ring(struct ss_thread *t, struct ss_ring *r,
				  unsigned int max, u64 mask)
{
	unsigned int n = t->run->cfg.batch;
	unsigned int got = 0;

	while (got < max) {
		unsigned int cnt;

		if (n == 1) {
			t->objs[0] = ptr_ring_consume(&r->ring);
			cnt = t->objs[0] ? 1 : 0;
		} else {
			cnt = ptr_ring_consume_batched(&r->ring, t->objs, n);
		}
		if (!cnt)
			break;
		ss_free_objs(t, t->objs, cnt, !(t->calls++ & mask));
		got += cnt;
		/* a burst is a whole ring: let others run meanwhile */
		if (!(got & 255))
			cond_resched();
	}
	if (t->run->cfg.free_burst) {
		/* pairs with ss_ring_has_room()'s acquire: the ring is empty */
		smp_store_release(&r->burst, false);
	}
	if (got)
		ss_wake(r->prod);
	return got;
}

static bool ss_producers_done(struct ss_thread *t)
{
	unsigned int i;

	for (i = 0; i < t->nrings; i++) {
		/* pairs with ss_alloc_fn(): after done, no more produce */
		if (!smp_load_acquire(&t->rings[i]->prod->done))
			return false;
	}
	return true;
}

/* with free_burst only a ring its producer filled is drained */
static bool ss_ring_ready(struct ss_thread *t, struct ss_ring *r)
{
	if (t->run->cfg.free_burst)
		return READ_ONCE(r->burst);
	return !ptr_ring_empty(&r->ring);
}

static bool ss_has_work(struct ss_thread *t)
{
	unsigned int i;

	for (i = 0; i < t->nrings; i++)
		if (ss_ring_ready(t, t->rings[i]))
			return true;
	return ss_producers_done(t);
}

static void ss_wait_work(struct ss_thread *t)
{
	int i;

	for (i = 0; i < SS_SPIN; i++) {
		if (ss_has_work(t))
			return;
		cpu_relax();
	}
	wait_event_interruptible_timeout(t->wq, ss_has_work(t),
					 SS_SLEEP_JIFFIES);
	ss_note_node(t);
}

static int ss_free_fn(void *arg)
{
	struct ss_thread *t = arg;
	struct ss_run *run = t->run;
	u64 mask = (1ULL << run->cfg.sample_shift) - 1;
	bool burst = run->cfg.free_burst;
	unsigned int i, got;

	ss_gate(t);
	for (;;) {
		if (!(t->loops++ & SS_NODE_CHECK_MASK))
			ss_note_node(t);
		got = 0;
		for (i = 0; i < t->nrings; i++) {
			struct ss_ring *r = t->rings[i];

			if (!burst)
				got += ss_drain_ring(t, r, run->wake_at, mask);
			else if (READ_ONCE(r->burst))
				got += ss_drain_ring(t, r, run->cfg.inflight,
						     mask);
		}
		if (got) {
			cond_resched();
			continue;
		}
		if (ss_producers_done(t)) {
			/* nothing more will be produced: empty the rings */
			for (i = 0; i < t->nrings; i++)
				ss_drain_ring(t, t->rings[i], UINT_MAX, mask);
			break;
		}
		ss_wait_work(t);
	}
	return ss_thread_done(t);
}

/* ------------------------------------------------------------------------
 * Run setup and teardown
 */

static void ss_destroy_obj(void *obj)
{
	if (obj)
		kmem_cache_free(ss_cache, obj);
}

/* Thread @i of @run, allocators first; NULL if not set up (yet). */
static struct ss_thread *ss_thread_at(struct ss_run *run, unsigned int i)
{
	if (i < run->nalloc)
		return run->allocs ? run->allocs[i] : NULL;
	return run->frees ? run->frees[i - run->nalloc] : NULL;
}

/* Also undoes a partial setup: anything may still be NULL. */
static void ss_free_run(struct ss_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nalloc + run->nfree; i++) {
		struct ss_thread *t = ss_thread_at(run, i);

		if (t && t->task)
			kthread_stop(t->task);
	}
	/* every object left in a ring goes back to the cache */
	for (i = 0; run->rings && i < run->nrings; i++)
		if (run->rings[i].ring.queue)
			ptr_ring_cleanup(&run->rings[i].ring, ss_destroy_obj);
	for (i = 0; i < run->nalloc + run->nfree; i++) {
		struct ss_thread *t = ss_thread_at(run, i);

		if (!t)
			continue;
		kfree(t->rings);
		kfree(t->objs);
		kfree(t);
	}
	kfree(run->rings);
	kfree(run->allocs);
	kfree(run->frees);
	kfree(run);
}

static struct ss_thread *ss_new_thread(struct ss_run *run, bool is_alloc,
				       int nid, unsigned int idx,
				       unsigned int *per_cpu)
{
	struct ss_thread *t;
	unsigned int ncpus = ss_node_cpus(nid);

	t = kzalloc_obj(*t);
	if (!t)
		return NULL;
	t->run = run;
	t->is_alloc = is_alloc;
	init_waitqueue_head(&t->wq);
	t->objs = kcalloc(run->cfg.batch, sizeof(void *), GFP_KERNEL);
	if (!t->objs) {
		kfree(t);
		return NULL;
	}
	t->cpu = cpumask_nth_and(idx % ncpus, cpumask_of_node(nid),
				 cpu_online_mask);
	per_cpu[t->cpu]++;
	run->threads_per_cpu = max(run->threads_per_cpu, per_cpu[t->cpu]);
	return t;
}

/* Connect ring @r from allocator @a to freer @f. */
static void ss_link(struct ss_ring *r, struct ss_thread *a,
		    struct ss_thread *f)
{
	r->prod = a;
	r->cons = f;
	a->nrings++;
	f->nrings++;
}

static int ss_attach(struct ss_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nalloc + run->nfree; i++) {
		struct ss_thread *t = ss_thread_at(run, i);

		t->rings = kcalloc(t->nrings, sizeof(*t->rings), GFP_KERNEL);
		if (!t->rings)
			return -ENOMEM;
		t->nrings = 0;
	}
	for (i = 0; i < run->nrings; i++) {
		struct ss_ring *r = &run->rings[i];

		r->prod->rings[r->prod->nrings++] = r;
		r->cons->rings[r->cons->nrings++] = r;
	}
	return 0;
}

/*
 * Thread layout, T(n) = threads or the number of online CPUs of node n:
 * cross:    T(alloc_node) allocators, T(free_node) freers, max of both
 *           rings, ring i from allocator i % A to freer i % F.
 * local:    T allocators and T freers on alloc_node, one ring between
 *           allocator i and freer i.
 * balanced: T(n) allocators and T(n) freers on each of alloc_node and
 *           free_node; allocator i of a node has one ring to freer i of
 *           its own node and one to freer i % T(other) of the other node,
 *           and alternates between them.
 * Threads are spread over the node's CPUs in order, and where allocators
 * and freers share a node the freers come after the allocators: with T
 * equal to the node's CPUs, allocator i and freer i share a CPU (two
 * threads per CPU, as when NFS submits and completes on one node); with
 * T half of them, every thread has a CPU of its own.
 */
static int ss_layout(struct ss_run *run, unsigned int *per_cpu)
{
	const struct ss_cfg *cfg = &run->cfg;
	int nodes[2] = { cfg->alloc_node, cfg->free_node };
	unsigned int cnt[2], first, i, j;

	cnt[0] = cfg->threads ?: ss_node_cpus(nodes[0]);
	cnt[1] = cnt[0];
	if (cfg->placement != SS_LOCAL)
		cnt[1] = cfg->threads ?: ss_node_cpus(nodes[1]);

	switch (cfg->placement) {
	case SS_CROSS:
		run->nalloc = cnt[0];
		run->nfree = cnt[1];
		run->nrings = max(cnt[0], cnt[1]);
		break;
	case SS_LOCAL:
		nodes[1] = nodes[0];
		run->nalloc = cnt[0];
		run->nfree = cnt[0];
		run->nrings = cnt[0];
		break;
	default:
		run->nalloc = cnt[0] + cnt[1];
		run->nfree = cnt[0] + cnt[1];
		run->nrings = 2 * run->nalloc;
		break;
	}

	run->allocs = kcalloc(run->nalloc, sizeof(*run->allocs), GFP_KERNEL);
	run->frees = kcalloc(run->nfree, sizeof(*run->frees), GFP_KERNEL);
	run->rings = kcalloc(run->nrings, sizeof(*run->rings), GFP_KERNEL);
	if (!run->allocs || !run->frees || !run->rings)
		return -ENOMEM;

	if (cfg->placement == SS_BALANCED) {
		for (i = 0; i < run->nalloc; i++) {
			unsigned int side = i < cnt[0] ? 0 : 1;
			unsigned int idx = side ? i - cnt[0] : i;

			run->allocs[i] = ss_new_thread(run, true, nodes[side],
						       idx, per_cpu);
			run->frees[i] = ss_new_thread(run, false, nodes[side],
						      cnt[side] + idx, per_cpu);
			if (!run->allocs[i] || !run->frees[i])
				return -ENOMEM;
		}
		for (i = 0; i < run->nalloc; i++) {
			unsigned int side = i < cnt[0] ? 0 : 1;
			unsigned int idx = side ? i - cnt[0] : i;
			unsigned int other = side ? 0 : cnt[0];

			/* same node first, then the other node */
			ss_link(&run->rings[2 * i], run->allocs[i],
				run->frees[i]);
			ss_link(&run->rings[2 * i + 1], run->allocs[i],
				run->frees[other + idx % cnt[!side]]);
		}
	} else {
		for (i = 0; i < run->nalloc; i++) {
			run->allocs[i] = ss_new_thread(run, true, nodes[0], i,
						       per_cpu);
			if (!run->allocs[i])
				return -ENOMEM;
		}
		/* in local, freers take the CPUs after the allocators' */
		first = cfg->placement == SS_LOCAL ? cnt[0] : 0;
		for (i = 0; i < run->nfree; i++) {
			run->frees[i] = ss_new_thread(run, false, nodes[1],
						      first + i, per_cpu);
			if (!run->frees[i])
				return -ENOMEM;
		}
		for (j = 0; j < run->nrings; j++)
			ss_link(&run->rings[j], run->allocs[j % run->nalloc],
				run->frees[j % run->nfree]);
	}

	for (i = 0; i < run->nrings; i++)
		if (ptr_ring_init(&run->rings[i].ring, cfg->inflight,
				  GFP_KERNEL))
			return -ENOMEM;
	return ss_attach(run);
}

static int ss_create_threads(struct ss_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nalloc + run->nfree; i++) {
		bool is_alloc = i < run->nalloc;
		unsigned int idx = is_alloc ? i : i - run->nalloc;
		struct ss_thread *t = ss_thread_at(run, i);
		struct task_struct *task;

		task = kthread_create_on_node(is_alloc ? ss_alloc_fn :
					      ss_free_fn, t,
					      cpu_to_node(t->cpu),
					      is_alloc ? "slub_stress_a/%u" :
					      "slub_stress_f/%u", idx);
		if (IS_ERR(task)) {
			pr_err("run %u: cannot create thread: %pe\n", run->seq,
			       task);
			return PTR_ERR(task);
		}
		/*
		 * Bind before the first wake-up: kthread_create_on_node() sets
		 * the thread's node affinity, which would win if it ran first.
		 */
		kthread_bind(task, t->cpu);
		t->task = task;
	}
	return 0;
}

/* Start a run with the current ss_cfg; called with ss_mutex held. */
static int ss_start_locked(void)
{
	unsigned int *per_cpu;
	struct ss_run *run;
	int ret;

	if (ss_exiting)
		return -ENODEV;
	if (ss_cur)
		return -EBUSY;
	if (ss_check_cfg(&ss_cfg))
		return -EINVAL;

	run = kzalloc_obj(*run);
	per_cpu = kcalloc(nr_cpu_ids, sizeof(*per_cpu), GFP_KERNEL);
	if (!run || !per_cpu) {
		kfree(run);
		kfree(per_cpu);
		return -ENOMEM;
	}
	run->cfg = ss_cfg;
	run->seq = ss_seq + 1;
	run->wake_at = max(1U, run->cfg.inflight / 2);
	init_waitqueue_head(&run->gate_wq);
	init_waitqueue_head(&run->ctl_wq);
	init_completion(&run->all_done);

	ret = ss_layout(run, per_cpu);
	kfree(per_cpu);
	if (!ret)
		ret = ss_create_threads(run);
	if (ret) {
		ss_free_run(run);
		return ret;
	}

	ss_seq = run->seq;
	WRITE_ONCE(ss_cur, run);
	queue_work(system_dfl_long_wq, &ss_work);
	return 0;
}

static void ss_lat_merge(struct ss_lat *dst, const struct ss_lat *src)
{
	unsigned int i;

	dst->samples += src->samples;
	dst->max = max(dst->max, src->max);
	for (i = 0; i < SS_HIST_BUCKETS; i++)
		dst->hist[i] += src->hist[i];
}

static void ss_result_clear(struct ss_result *res)
{
	kfree(res->alloc_seen);
	kfree(res->free_seen);
	memset(res, 0, sizeof(*res));
}

/* Sum up @run into @res; the threads may still be running. */
static void ss_collect(struct ss_run *run, struct ss_result *res,
		       unsigned int state, u64 now)
{
	unsigned int i;

	ss_result_clear(res);
	res->seq = run->seq;
	res->state = state;
	res->error = READ_ONCE(run->error);
	res->cfg = run->cfg;
	res->nalloc = run->nalloc;
	res->nfree = run->nfree;
	res->threads_per_cpu = run->threads_per_cpu;
	res->shrinks = run->shrinks;
	res->alloc_seen = kcalloc(run->nalloc, sizeof(nodemask_t), GFP_KERNEL);
	res->free_seen = kcalloc(run->nfree, sizeof(nodemask_t), GFP_KERNEL);
	if (run->start_ns && now > run->start_ns)
		res->elapsed_ns = now - run->start_ns;

	for (i = 0; i < run->nalloc; i++) {
		struct ss_thread *t = run->allocs[i];

		res->allocs += READ_ONCE(t->objects);
		res->failures += READ_ONCE(t->failures);
		ss_lat_merge(&res->alloc_lat, &t->lat);
		if (res->alloc_seen)
			res->alloc_seen[i] = t->seen;
	}
	for (i = 0; i < run->nfree; i++) {
		struct ss_thread *t = run->frees[i];

		res->frees += READ_ONCE(t->objects);
		res->remote += READ_ONCE(t->remote);
		ss_lat_merge(&res->free_lat, &t->lat);
		if (res->free_seen)
			res->free_seen[i] = t->seen;
	}
}

static u64 ss_ops_per_sec(const struct ss_result *res)
{
	if (!res->elapsed_ns)
		return 0;
	return mul_u64_u64_div_u64(res->frees, NSEC_PER_SEC, res->elapsed_ns);
}

/* remote frees in 1/100 percent */
static u64 ss_remote_pct100(const struct ss_result *res)
{
	if (!res->frees)
		return 0;
	return div64_u64(res->remote * 10000, res->frees);
}

/*
 * Percentile from the log2 histogram.  The value reported is the upper
 * bound of the bucket that holds the percentile, 2^(i+1) ns, capped at
 * the largest sample seen, so it is never below the true percentile and
 * at most twice it.
 */
static u64 ss_lat_pct(const struct ss_lat *lat, unsigned int pct)
{
	u64 want, sum = 0;
	unsigned int i;

	if (!lat->samples)
		return 0;
	want = div_u64(lat->samples * pct + 99, 100);
	for (i = 0; i < SS_HIST_BUCKETS; i++) {
		sum += lat->hist[i];
		if (sum >= want)
			return min(1ULL << (i + 1), lat->max);
	}
	return lat->max;
}

static void ss_print_nodes(struct seq_file *m, const char *key,
			   const nodemask_t *seen, unsigned int n)
{
	unsigned int i;
	int nid;

	seq_printf(m, "%s:", key);
	for (i = 0; seen && i < n; i++) {
		bool first = true;

		seq_putc(m, ' ');
		for_each_node_mask(nid, seen[i]) {
			seq_printf(m, "%s%d", first ? "" : "+", nid);
			first = false;
		}
		if (first)
			seq_putc(m, '-');
	}
	seq_putc(m, '\n');
}

static void ss_print_lat(struct seq_file *m, const char *key,
			 const struct ss_lat *lat)
{
	unsigned int i;

	seq_printf(m, "%s_lat_samples: %llu\n", key, lat->samples);
	seq_printf(m, "%s_lat_p50_ns: %llu\n", key, ss_lat_pct(lat, 50));
	seq_printf(m, "%s_lat_p99_ns: %llu\n", key, ss_lat_pct(lat, 99));
	seq_printf(m, "%s_lat_max_ns: %llu\n", key, lat->max);
	seq_printf(m, "%s_lat_hist:", key);
	for (i = 0; i < SS_HIST_BUCKETS; i++)
		seq_printf(m, " %llu", lat->hist[i]);
	seq_putc(m, '\n');
}

static void ss_print_result(struct seq_file *m, const struct ss_result *res)
{
	u64 pct = ss_remote_pct100(res);

	seq_printf(m, "run: %u\n", res->seq);
	seq_printf(m, "state: %s\n", ss_state_names[res->state]);
	seq_printf(m, "error: %d\n", res->error);
	seq_printf(m, "placement: %s\n",
		   ss_placement_names[res->cfg.placement]);
	seq_printf(m, "alloc_node: %d\n", res->cfg.alloc_node);
	seq_printf(m, "free_node: %d\n", res->cfg.free_node);
	seq_printf(m, "alloc_threads: %u\n", res->nalloc);
	seq_printf(m, "free_threads: %u\n", res->nfree);
	ss_print_nodes(m, "alloc_thread_nodes", res->alloc_seen, res->nalloc);
	ss_print_nodes(m, "free_thread_nodes", res->free_seen, res->nfree);
	seq_printf(m, "threads_per_cpu: %u\n", res->threads_per_cpu);
	seq_printf(m, "inflight: %u\n", res->cfg.inflight);
	seq_printf(m, "batch: %u\n", res->cfg.batch);
	seq_printf(m, "duration_ms: %u\n", res->cfg.duration_ms);
	seq_printf(m, "shrink_ms: %u\n", res->cfg.shrink_ms);
	seq_printf(m, "free_burst: %u\n", res->cfg.free_burst);
	seq_printf(m, "elapsed_ms: %llu\n",
		   div_u64(res->elapsed_ns, NSEC_PER_MSEC));
	seq_printf(m, "allocs: %llu\n", res->allocs);
	seq_printf(m, "frees: %llu\n", res->frees);
	seq_printf(m, "ops_per_sec: %llu\n", ss_ops_per_sec(res));
	seq_printf(m, "remote_frees: %llu\n", res->remote);
	seq_printf(m, "remote_free_pct: %llu.%02llu\n", div_u64(pct, 100),
		   pct % 100);
	seq_printf(m, "alloc_failures: %llu\n", res->failures);
	seq_printf(m, "shrinks: %llu\n", res->shrinks);
	ss_print_lat(m, "free", &res->free_lat);
	ss_print_lat(m, "alloc", &res->alloc_lat);
	seq_printf(m, "cache_name: %s\n", cache_name);
	/*
	 * What the cache API tells; the slab layout (slab_size, order,
	 * objs_per_slab, sheaf_capacity) is in /sys/kernel/slab/<cache_name>/,
	 * which the userspace tools read.
	 */
	seq_printf(m, "cache_object_size: %u\n", kmem_cache_size(ss_cache));
}

static void ss_run_work(struct work_struct *work)
{
	struct ss_run *run;
	unsigned int i, state;
	u64 end, pct, shrink_every, next_shrink;

	mutex_lock(&ss_mutex);
	run = ss_cur;
	mutex_unlock(&ss_mutex);
	if (WARN_ON_ONCE(!run))
		return;

	atomic_set(&run->live, run->nalloc + run->nfree);
	for (i = 0; i < run->nalloc; i++)
		wake_up_process(run->allocs[i]->task);
	for (i = 0; i < run->nfree; i++)
		wake_up_process(run->frees[i]->task);

	run->start_ns = ktime_get_ns();
	end = run->start_ns + (u64)run->cfg.duration_ms * NSEC_PER_MSEC;
	shrink_every = (u64)run->cfg.shrink_ms * NSEC_PER_MSEC;
	next_shrink = shrink_every ? run->start_ns + shrink_every : U64_MAX;
	WRITE_ONCE(run->go, true);
	wake_up_all(&run->gate_wq);

	/*
	 * Wait in short steps: stop and rmmod end the run early.  The shrinks
	 * are done here, by one thread that the run's kthreads do not hold
	 * up, rather than from userspace, which a busy guest starves.
	 */
	for (;;) {
		u64 now = ktime_get_ns();
		unsigned long left;

		if (READ_ONCE(run->stop) || now >= end)
			break;
		if (now >= next_shrink) {
			kmem_cache_shrink(ss_cache);
			run->shrinks++;
			next_shrink = ktime_get_ns() + shrink_every;
			continue;
		}
		left = nsecs_to_jiffies(min(end, next_shrink) - now);
		wait_event_interruptible_timeout(run->ctl_wq,
						 READ_ONCE(run->stop),
						 clamp(left, 1UL, (unsigned long)HZ));
	}
	WRITE_ONCE(run->stop, true);
	for (i = 0; i < run->nfree; i++)
		wake_up(&run->frees[i]->wq);
	for (i = 0; i < run->nalloc; i++)
		wake_up(&run->allocs[i]->wq);

	/* no hung-task splat while the freers empty the rings */
	for (i = 1; !wait_for_completion_timeout(&run->all_done, HZ); i++)
		if (i == 30)
			pr_err("run %u: %d threads still busy 30 s after the stop\n",
			       run->seq, atomic_read(&run->live));
	run->end_ns = ktime_get_ns();

	if (READ_ONCE(run->error))
		state = SS_ERROR;
	else if (READ_ONCE(run->stop_requested))
		state = SS_STOPPED;
	else
		state = SS_DONE;

	mutex_lock(&ss_mutex);
	ss_collect(run, &ss_last, state, run->end_ns);
	/* kthread_stop() the parked threads, drain the rings, free it all */
	ss_free_run(run);
	WRITE_ONCE(ss_cur, NULL);
	pct = ss_remote_pct100(&ss_last);
	pr_info("run %u %s %s: %llu frees, %llu ops/s, remote %llu.%02llu%%, free p50 %llu ns p99 %llu ns, alloc p50 %llu ns p99 %llu ns, %u+%u threads, error %d\n",
		ss_last.seq, ss_placement_names[ss_last.cfg.placement],
		ss_state_names[state], ss_last.frees, ss_ops_per_sec(&ss_last),
		div_u64(pct, 100), pct % 100,
		ss_lat_pct(&ss_last.free_lat, 50),
		ss_lat_pct(&ss_last.free_lat, 99),
		ss_lat_pct(&ss_last.alloc_lat, 50),
		ss_lat_pct(&ss_last.alloc_lat, 99),
		ss_last.nalloc, ss_last.nfree, ss_last.error);
	mutex_unlock(&ss_mutex);
	wake_up_all(&ss_idle_wq);
}

/* Ask the current run to end; called with ss_mutex held. */
static void ss_stop_locked(void)
{
	if (!ss_cur)
		return;
	WRITE_ONCE(ss_cur->stop_requested, true);
	WRITE_ONCE(ss_cur->stop, true);
	wake_up(&ss_cur->ctl_wq);
}

/* ------------------------------------------------------------------------
 * debugfs
 */

static ssize_t ss_param_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[32];
	int len;

	mutex_lock(&ss_mutex);
	len = ss_param_show(file->private_data, buf, sizeof(buf));
	mutex_unlock(&ss_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t ss_param_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char buf[32], *str;
	int ret;

	if (*ppos || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	str = strim(buf);

	mutex_lock(&ss_mutex);
	if (ss_cur)
		ret = -EBUSY;
	else if (ss_param_store(file->private_data, str))
		ret = -EINVAL;	/* -ERANGE from kstrtouint() included */
	else
		ret = 0;
	mutex_unlock(&ss_mutex);
	if (ret)
		return ret;
	*ppos += count;
	return count;
}

static const struct file_operations ss_param_fops = {
	.owner		= THIS_MODULE,
	.open		= simple_open,
	.read		= ss_param_read,
	.write		= ss_param_write,
	.llseek		= default_llseek,
};

static int ss_run_set(void *data, u64 val)
{
	int ret;

	if (val != 1) {
		pr_err("run: write 1 to start a run\n");
		return -EINVAL;
	}
	mutex_lock(&ss_mutex);
	ret = ss_start_locked();
	mutex_unlock(&ss_mutex);
	return ret;
}
DEFINE_DEBUGFS_ATTRIBUTE(ss_run_fops, NULL, ss_run_set, "%llu\n");

static int ss_stop_set(void *data, u64 val)
{
	if (val != 1) {
		pr_err("stop: write 1 to stop the run\n");
		return -EINVAL;
	}
	mutex_lock(&ss_mutex);
	ss_stop_locked();
	mutex_unlock(&ss_mutex);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(ss_stop_fops, NULL, ss_stop_set, "%llu\n");

static int status_show(struct seq_file *m, void *v)
{
	mutex_lock(&ss_mutex);
	seq_printf(m, "%s\n", ss_cur ? "running" : "idle");
	mutex_unlock(&ss_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static int results_show(struct seq_file *m, void *v)
{
	struct ss_result *live;

	mutex_lock(&ss_mutex);
	if (!ss_cur) {
		ss_print_result(m, &ss_last);
		mutex_unlock(&ss_mutex);
		return 0;
	}
	live = kzalloc_obj(*live);
	if (live) {
		ss_collect(ss_cur, live, SS_RUNNING, ktime_get_ns());
		ss_print_result(m, live);
		ss_result_clear(live);
		kfree(live);
	}
	mutex_unlock(&ss_mutex);
	return live ? 0 : -ENOMEM;
}
DEFINE_SHOW_ATTRIBUTE(results);

static ssize_t ss_wait_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[32];
	int len;

	if (!*ppos && wait_event_interruptible(ss_idle_wq, !READ_ONCE(ss_cur)))
		return -ERESTARTSYS;

	mutex_lock(&ss_mutex);
	len = scnprintf(buf, sizeof(buf), "state: %s\n",
			ss_state_names[ss_cur ? SS_RUNNING : ss_last.state]);
	mutex_unlock(&ss_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations ss_wait_fops = {
	.owner		= THIS_MODULE,
	.open		= simple_open,
	.read		= ss_wait_read,
	.llseek		= default_llseek,
};

static void ss_debugfs_init(void)
{
	unsigned int i;

	ss_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < ARRAY_SIZE(ss_run_params); i++)
		debugfs_create_file(ss_run_params[i]->name, 0600, ss_dir,
				    ss_run_params[i], &ss_param_fops);
	debugfs_create_file_unsafe("run", 0200, ss_dir, NULL, &ss_run_fops);
	debugfs_create_file_unsafe("stop", 0200, ss_dir, NULL, &ss_stop_fops);
	debugfs_create_file("wait", 0400, ss_dir, NULL, &ss_wait_fops);
	debugfs_create_file("status", 0400, ss_dir, NULL, &status_fops);
	debugfs_create_file("results", 0400, ss_dir, NULL, &results_fops);
}

/* ------------------------------------------------------------------------
 * Module load and unload
 */

/* What the parameters' own checks (struct ss_param) do not cover. */
static int __init ss_check_load_params(void)
{
	if (!cache_name || !*cache_name ||
	    strnlen(cache_name, SS_MAX_NAME + 1) > SS_MAX_NAME ||
	    strchr(cache_name, '/')) {
		pr_err("cache_name: '%s' invalid, allowed 1..%d characters without '/'\n",
		       cache_name ?: "", SS_MAX_NAME);
		return -EINVAL;
	}
	if (sheaf_capacity && no_sheaves) {
		pr_err("sheaf_capacity: %u with no_sheaves=1, allowed 0 with no_sheaves\n",
		       sheaf_capacity);
		return -EINVAL;
	}
	return ss_check_cfg(&ss_cfg);
}

static int __init slub_stress_init(void)
{
	struct kmem_cache_args args = {
		.sheaf_capacity = sheaf_capacity,
	};
	slab_flags_t flags = SLAB_NO_MERGE;
	int ret;

	ret = ss_check_load_params();
	if (ret)
		return ret;

	if (hwcache_align)
		flags |= SLAB_HWCACHE_ALIGN;
	/*
	 * kmem_cache_create() refuses SLAB_NO_SHEAVES (not in
	 * SLAB_FLAGS_PERMITTED, it is for the bootstrap caches) with -EINVAL
	 * and a stack dump.  SLAB_NOLEAKTRACE is permitted and also makes
	 * calculate_sheaf_capacity() return 0: a cache without sheaves, whose
	 * objects kmemleak does not track.
	 */
	if (no_sheaves)
		flags |= SLAB_NOLEAKTRACE;
	ss_cache = kmem_cache_create(cache_name, obj_size, &args, flags);
	if (!ss_cache) {
		pr_err("cannot create cache %s\n", cache_name);
		return -ENOMEM;
	}
	ss_last.cfg = ss_cfg;
	ss_debugfs_init();

	if (start) {
		mutex_lock(&ss_mutex);
		ret = ss_start_locked();
		mutex_unlock(&ss_mutex);
		if (ret) {
			debugfs_remove_recursive(ss_dir);
			kmem_cache_destroy(ss_cache);
			return ret;
		}
	}
	return 0;
}

static void __exit slub_stress_exit(void)
{
	mutex_lock(&ss_mutex);
	ss_exiting = true;
	ss_stop_locked();
	mutex_unlock(&ss_mutex);
	/* the run's work stops the threads, drains the rings, frees it all */
	flush_work(&ss_work);

	debugfs_remove_recursive(ss_dir);
	ss_result_clear(&ss_last);
	kmem_cache_destroy(ss_cache);
}

module_init(slub_stress_init);
module_exit(slub_stress_exit);

MODULE_INFO(test, "Y");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("slabpark project");
MODULE_DESCRIPTION("Cross-NUMA-node SLUB alloc/free stress test");
