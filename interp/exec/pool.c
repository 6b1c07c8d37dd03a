/*
** pool.c: the worker threads behind lay_plan_run(..., threads > 1).
**
** One pool per process, started lazily by the first run that asks for
** helpers and grown to the largest number of helpers any run has asked
** for (at most LI_POOL_MAX); its threads sleep on a condition variable
** between runs. A run is a task: chunks 0 .. n-1 of work, claimed one at
** a time through an atomic counter by the calling thread and by the
** workers that join the task, up to the number of helpers the run wants.
** The caller claims chunks like any worker and, once none is left, waits
** only for the chunks that workers already hold: a worker that wakes late
** (a loaded machine) finds nothing left and goes back to sleep, so a run
** never waits for a thread to start or to wake up. Tasks of several
** application threads (the same plan or different ones) queue side by
** side; every caller makes progress on its own task whatever the workers
** do, so no run can block another.
**
** Teardown: a destructor (at exit, or when liblay is unloaded) stops the
** workers and joins them; a run that starts after that runs on its
** caller alone. The pool is not carried across fork() (the child has no
** workers but believes it has: do not run plans with threads > 1 in a
** forked child of a process that did).
*/
#define _GNU_SOURCE /* sched_getaffinity */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

#include "plan_int.h"

typedef struct li_task li_task;
struct li_task {
  li_pool_fn fn;           /* chunk i: fn(arg, i) */
  void *arg;
  int n;                   /* chunks */
  atomic_int next;         /* the next chunk to claim */
  int want;                /* helpers it may still take (under mu) */
  atomic_int active;       /* workers inside it (raised under mu) */
  li_task *link;           /* the queue (under mu) */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER; /* a task queued */
static pthread_cond_t left = PTHREAD_COND_INITIALIZER; /* a worker left one */
static li_task *queue;       /* tasks that still take helpers */
static pthread_t workers[LI_POOL_MAX];
static int nworkers;         /* started */
static int idle;             /* waiting on `work` */
static int stopped;          /* the destructor ran */
static atomic_int queued;    /* tasks in the queue: what spinners watch */

/* A worker that finished a task spins this long (and a caller waiting for
** the workers' last chunks this long) before sleeping on a condition
** variable: runs that follow each other find their workers awake, and a
** caller does not pay a futex wake-up (tens of us on a virtual CPU, about
** a 1 MB run's time) for a chunk that ends a few us later. */
#define SPIN_NS 50000

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spin until *v == want (returns 1) or SPIN_NS have passed (0). */
static int spin_until(atomic_int *v, int want, int eq) {
  int64_t end = 0;
  for (int i = 0;; i++) {
    int x = atomic_load_explicit(v, memory_order_acquire);
    if ((x == want) == eq) return 1;
    if ((i & 255) == 0) {
      int64_t t = mono_ns();
      if (!end) end = t + SPIN_NS;
      else if (t > end) return 0;
    }
    cpu_relax();
  }
}

/* Claim and run chunks of t until none is left. */
static void drain(li_task *t) {
  for (int i; (i = atomic_fetch_add_explicit(&t->next, 1,
                                             memory_order_relaxed)) < t->n;)
    t->fn(t->arg, i);
}

static void unqueue(li_task *t) {
  for (li_task **q = &queue; *q; q = &(*q)->link)
    if (*q == t) {
      *q = t->link;
      atomic_fetch_sub_explicit(&queued, 1, memory_order_relaxed);
      return;
    }
}

static void *worker_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  for (;;) {
    if (!queue && !stopped) { /* spin a while before sleeping */
      pthread_mutex_unlock(&mu);
      spin_until(&queued, 0, 0);
      pthread_mutex_lock(&mu);
    }
    while (!queue && !stopped) {
      idle++;
      pthread_cond_wait(&work, &mu);
      idle--;
    }
    if (stopped) break;
    li_task *t = queue;
    atomic_fetch_add_explicit(&t->active, 1, memory_order_relaxed);
    if (--t->want == 0) unqueue(t);
    pthread_mutex_unlock(&mu);
    drain(t);
    /* the caller may return (and t go) as soon as active reaches 0 */
    int last = atomic_fetch_sub_explicit(&t->active, 1,
                                         memory_order_acq_rel) == 1;
    pthread_mutex_lock(&mu);
    if (last) pthread_cond_broadcast(&left);
  }
  pthread_mutex_unlock(&mu);
  return NULL;
}

/* Start workers until there are `want` (under mu). A thread that cannot
** be started leaves the pool smaller: the callers do its share. */
static void grow(int want) {
  pthread_attr_t at;
  if (pthread_attr_init(&at)) return;
  /* the executor's deepest frames take tens of KB (its stack tiles); the
  ** default 8 MB would count against a caller's address-space limit */
  pthread_attr_setstacksize(&at, (size_t)2 << 20);
  while (nworkers < want &&
         !pthread_create(&workers[nworkers], &at, worker_main, NULL))
    nworkers++;
  pthread_attr_destroy(&at);
}

__attribute__((destructor)) static void pool_stop(void) {
  pthread_mutex_lock(&mu);
  stopped = 1;
  pthread_cond_broadcast(&work);
  int n = nworkers;
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < n; i++) pthread_join(workers[i], NULL);
}

void li_pool_run(int helpers, int n, li_pool_fn fn, void *arg) {
  if (helpers > LI_POOL_MAX) helpers = LI_POOL_MAX;
  if (helpers > n - 1) helpers = n - 1;
  li_task t = {fn, arg, n, 0, helpers, 0, NULL};
  atomic_init(&t.active, 0);
  if (helpers > 0) {
    pthread_mutex_lock(&mu);
    if (stopped) {
      helpers = 0;
    } else {
      if (nworkers < helpers) grow(helpers);
      t.link = queue; /* newest first: a waiting caller is served soonest */
      queue = &t;
      atomic_fetch_add_explicit(&queued, 1, memory_order_release);
      if (helpers >= idle) pthread_cond_broadcast(&work);
      else
        for (int i = 0; i < helpers; i++) pthread_cond_signal(&work);
    }
    pthread_mutex_unlock(&mu);
  }
  drain(&t);
  if (helpers > 0) {
    pthread_mutex_lock(&mu);
    if (t.want > 0) unqueue(&t); /* no worker joins it any more */
    pthread_mutex_unlock(&mu);
    if (!spin_until(&t.active, 0, 1)) {
      pthread_mutex_lock(&mu);
      while (atomic_load_explicit(&t.active, memory_order_acquire))
        pthread_cond_wait(&left, &mu);
      pthread_mutex_unlock(&mu);
    }
  }
}

int li_pool_split_min(void) {
  static atomic_int cached = -1;
  int v = atomic_load_explicit(&cached, memory_order_relaxed);
  if (v >= 0) return v;
  const char *e = getenv("LAY_SPLIT_MIN");
  char *end;
  long l = e && *e ? strtol(e, &end, 10) : -1;
  v = l >= 0 && l <= (1L << 30) && e && !*end ? (int)l : LI_SPLIT_MIN;
  atomic_store_explicit(&cached, v, memory_order_relaxed);
  return v;
}

int li_pool_cpus(void) {
  static atomic_int cached = 0;
  int v = atomic_load_explicit(&cached, memory_order_relaxed);
  if (v > 0) return v;
  const char *e = getenv("LAY_CPUS");
  char *end;
  long l = e && *e ? strtol(e, &end, 10) : 0;
  if (l >= 1 && l <= LI_POOL_MAX + 1 && !*end) {
    v = (int)l;
  } else {
    cpu_set_t set;
    v = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (v < 1) v = LI_POOL_MAX + 1; /* unknown: the caller's count holds */
  }
  atomic_store_explicit(&cached, v, memory_order_relaxed);
  return v;
}
