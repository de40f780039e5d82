/* mirtune's OMPT tool: a one-run profile of an OpenMP program's parallel regions and worksharing loops.
 *
 * Loaded by LLVM's libomp through OMP_TOOL_LIBRARIES; active only when MIRTUNE_OMPT_OUT names the JSON file to
 * write. Per parallel region and per worksharing loop (told apart by codeptr_ra, the return address of the call
 * into the runtime), it records how often it ran, its wall time, the loop's iteration count (ompt_callback_work's
 * count) and, per thread of the team, the CPU time it worked:
 *
 *   region: from the thread's implicit-task begin to its arrival at the region's closing barrier, less its time
 *           waiting at barriers inside the region;
 *   loop:   from the thread's work begin to its work end (before the loop's closing barrier).
 *
 * The file is written once when the tool starts (finished: false) and again, whole, when the runtime shuts down
 * (finished: true), so that a reader can tell a runtime that never started the tool (no file) from one that never
 * shut down (a program that ended with _exit). Per-thread sums are kept for the first MAX_THREADS threads of a team
 * and the first MAX_RECORDS regions and loops; what is left out is counted in the file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RECORDS 1024 /* a power of two: the tables are open-addressed on the code pointer */
#define MAX_THREADS 256
#define FORMAT_VERSION 1

typedef struct record {
  _Atomic(const void *) codeptr;
  uintptr_t offset; /* codeptr less the load address of the object that holds it */
  char object[256];
  _Atomic uint64_t instances;
  _Atomic uint64_t nested;     /* regions: instances inside another parallel region */
  _Atomic uint64_t time_ns;    /* regions: the encountering thread's wall time, begin to end, over instances */
  _Atomic uint64_t outer_ns;   /* regions: the same, over instances that are not nested */
  _Atomic uint64_t min_ns;
  _Atomic uint64_t max_ns;
  _Atomic uint64_t team_sum;   /* regions: team sizes summed over instances */
  _Atomic uint64_t team_max;
  _Atomic uint64_t iterations; /* loops: ompt_callback_work's count, summed over instances */
  _Atomic uint32_t threads;    /* 1 + the highest team index seen */
  _Atomic uint64_t work_ns[MAX_THREADS];
  _Atomic uint64_t wait_ns[MAX_THREADS];
} record_t;

typedef struct instance instance_t;

typedef struct slot { /* one thread's implicit task in one region instance; only that thread writes it */
  instance_t *inst;
  uint32_t index;
  uint64_t begin_ns;
  uint64_t wait_ns;
  uint64_t wait_begin_ns;
  int waiting;
  record_t *loop;
  uint64_t loop_begin_ns;
} slot_t;

struct instance {
  record_t *rec;
  const void *codeptr;
  uint64_t begin_ns;
  int nested;
  _Atomic uint32_t team;
  _Atomic int refs; /* parallel end + each implicit task not yet ended */
  uint32_t cap;
  slot_t slots[];
};

static record_t regions[MAX_RECORDS], loops[MAX_RECORDS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t dropped_records, dropped_threads;
static char *out_path;
static char runtime_version[256];
static uint64_t start_ns;
static int set_results[64];
static __thread record_t *tls_loop; /* a loop run outside any parallel region (an orphaned loop) */
static __thread uint64_t tls_loop_begin_ns;

static uint64_t clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

/* The calling thread's CPU time: a thread's work is measured in it, so that a thread the system takes the CPU away
 * from (a machine shared with other work) does not look as if it had more to do. */
static uint64_t cpu_ns(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

static void atomic_max(_Atomic uint64_t *target, uint64_t v) {
  uint64_t cur = atomic_load_explicit(target, memory_order_relaxed);
  while (v > cur && !atomic_compare_exchange_weak(target, &cur, v)) {
  }
}

static void atomic_min(_Atomic uint64_t *target, uint64_t v) {
  uint64_t cur = atomic_load_explicit(target, memory_order_relaxed);
  while ((cur == 0 || v < cur) && !atomic_compare_exchange_weak(target, &cur, v)) {
  }
}

static record_t *lookup(record_t *table, const void *codeptr) {
  uintptr_t h = ((uintptr_t)codeptr >> 4) * 0x9E3779B97F4A7C15ull;
  for (uint32_t probe = 0; probe < MAX_RECORDS; probe++) {
    record_t *r = &table[(h + probe) & (MAX_RECORDS - 1)];
    const void *seen = atomic_load_explicit(&r->codeptr, memory_order_acquire);
    if (seen == codeptr)
      return r;
    if (seen == NULL) {
      pthread_mutex_lock(&table_lock);
      seen = atomic_load_explicit(&r->codeptr, memory_order_acquire);
      if (seen == NULL) {
        Dl_info info;
        if (codeptr && dladdr(codeptr, &info) && info.dli_fname) {
          r->offset = (uintptr_t)codeptr - (uintptr_t)info.dli_fbase;
          snprintf(r->object, sizeof r->object, "%s", info.dli_fname);
        }
        atomic_store_explicit(&r->codeptr, codeptr, memory_order_release);
        seen = codeptr;
      }
      pthread_mutex_unlock(&table_lock);
      if (seen == codeptr)
        return r;
    }
  }
  atomic_fetch_add(&dropped_records, 1);
  return NULL;
}

static void release(instance_t *inst) {
  if (atomic_fetch_sub(&inst->refs, 1) == 1)
    free(inst);
}

static void note_thread(record_t *rec, uint32_t index) {
  uint32_t cur = atomic_load_explicit(&rec->threads, memory_order_relaxed);
  while (index + 1 > cur && !atomic_compare_exchange_weak(&rec->threads, &cur, index + 1)) {
  }
}

/* The thread ends its work in the region (at the region's closing barrier, or at its implicit-task end when it
 * met none): its time there, less its waits at barriers inside, goes to the region's record under its team index,
 * and its task data lets go of the instance. */
static void close_slot(ompt_data_t *task_data, uint64_t t) {
  slot_t *s = task_data->ptr;
  task_data->ptr = NULL;
  record_t *rec = s->inst->rec;
  if (rec) {
    uint64_t span = t - s->begin_ns;
    atomic_fetch_add_explicit(&rec->work_ns[s->index], span > s->wait_ns ? span - s->wait_ns : 0,
                              memory_order_relaxed);
    atomic_fetch_add_explicit(&rec->wait_ns[s->index], s->wait_ns, memory_order_relaxed);
    note_thread(rec, s->index);
  }
  release(s->inst);
}

static void on_parallel_begin(ompt_data_t *encountering_task_data, const ompt_frame_t *frame,
                              ompt_data_t *parallel_data, unsigned int requested, int flags, const void *codeptr) {
  (void)frame;
  (void)flags;
  uint32_t cap = requested < 1 ? 1 : requested > MAX_THREADS ? MAX_THREADS : requested;
  instance_t *inst = calloc(1, sizeof(instance_t) + cap * sizeof(slot_t));
  parallel_data->ptr = inst;
  if (!inst)
    return;
  inst->rec = lookup(regions, codeptr);
  inst->codeptr = codeptr;
  inst->cap = cap;
  inst->refs = 1;
  /* an implicit task of a region holds its slot in its task data; the initial task holds nothing */
  inst->nested = encountering_task_data && encountering_task_data->ptr != NULL;
  inst->begin_ns = now_ns();
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data, int flags,
                            const void *codeptr) {
  (void)encountering_task_data;
  (void)flags;
  (void)codeptr;
  instance_t *inst = parallel_data->ptr;
  if (!inst)
    return;
  parallel_data->ptr = NULL;
  uint64_t dt = now_ns() - inst->begin_ns;
  record_t *rec = inst->rec;
  if (rec) {
    uint32_t team = atomic_load(&inst->team);
    atomic_fetch_add(&rec->instances, 1);
    atomic_fetch_add(&rec->time_ns, dt);
    if (inst->nested)
      atomic_fetch_add(&rec->nested, 1);
    else
      atomic_fetch_add(&rec->outer_ns, dt);
    atomic_min(&rec->min_ns, dt ? dt : 1);
    atomic_max(&rec->max_ns, dt);
    atomic_fetch_add(&rec->team_sum, team);
    atomic_max(&rec->team_max, team);
  }
  release(inst);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
                             unsigned int actual_parallelism, unsigned int index, int flags) {
  if (flags & ompt_task_initial)
    return;
  if (endpoint == ompt_scope_begin) {
    instance_t *inst = parallel_data ? parallel_data->ptr : NULL;
    task_data->ptr = NULL;
    if (!inst)
      return;
    if (index >= inst->cap) {
      atomic_fetch_add(&dropped_threads, 1);
      return;
    }
    atomic_store(&inst->team, actual_parallelism);
    atomic_fetch_add(&inst->refs, 1);
    slot_t *s = &inst->slots[index];
    s->inst = inst;
    s->index = index;
    s->begin_ns = cpu_ns();
    task_data->ptr = s;
  } else if (endpoint == ompt_scope_end && task_data->ptr) {
    close_slot(task_data, cpu_ns());
  }
}

/* The barrier that closes a parallel region: an implicit barrier (barrier_implicit in libomp 14, as are the
 * barriers that end worksharing constructs; barrier_implicit_parallel in later ones) whose code pointer is the
 * region's (the primary thread) or none (the other threads). Other threads report their implicit-task end only
 * when the next region starts, with other task data, so that end cannot close their work. */
static int closing_barrier(ompt_sync_region_t kind, const void *codeptr, const slot_t *s) {
  return (kind == ompt_sync_region_barrier_implicit_parallel || kind == ompt_sync_region_barrier_implicit) &&
         (codeptr == NULL || codeptr == s->inst->codeptr);
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                           ompt_data_t *task_data, const void *codeptr) {
  (void)parallel_data;
  slot_t *s = task_data ? task_data->ptr : NULL;
  if (s && endpoint == ompt_scope_begin && closing_barrier(kind, codeptr, s))
    close_slot(task_data, cpu_ns());
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                ompt_data_t *task_data, const void *codeptr) {
  (void)parallel_data;
  (void)codeptr;
  (void)kind;
  slot_t *s = task_data ? task_data->ptr : NULL; /* none once the closing barrier is reached */
  if (!s)
    return;
  if (endpoint == ompt_scope_begin) {
    s->wait_begin_ns = cpu_ns();
    s->waiting = 1;
  } else if (endpoint == ompt_scope_end && s->waiting) {
    s->wait_ns += cpu_ns() - s->wait_begin_ns;
    s->waiting = 0;
  }
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                    ompt_data_t *task_data, uint64_t count, const void *codeptr) {
  (void)parallel_data;
  if (wstype != ompt_work_loop)
    return;
  slot_t *s = task_data ? task_data->ptr : NULL;
  record_t **loop = s ? &s->loop : &tls_loop;
  uint64_t *begin = s ? &s->loop_begin_ns : &tls_loop_begin_ns;
  uint32_t index = s ? s->index : 0;
  if (endpoint == ompt_scope_begin) {
    record_t *rec = lookup(loops, codeptr);
    *loop = rec;
    *begin = cpu_ns();
    if (rec && index == 0) {
      atomic_fetch_add(&rec->instances, 1);
      atomic_fetch_add(&rec->iterations, count);
    }
  } else if (endpoint == ompt_scope_end && *loop) {
    atomic_fetch_add_explicit(&(*loop)->work_ns[index], cpu_ns() - *begin, memory_order_relaxed);
    note_thread(*loop, index);
    *loop = NULL;
  }
}

static void write_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void write_array(FILE *f, const char *name, _Atomic uint64_t *values, uint32_t n) {
  fprintf(f, ",\"%s\":[", name);
  for (uint32_t i = 0; i < n; i++)
    fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)atomic_load(&values[i]));
  fputc(']', f);
}

static void write_records(FILE *f, const char *name, record_t *table, int region) {
  fprintf(f, ",\"%s\":[", name);
  int first = 1;
  for (int i = 0; i < MAX_RECORDS; i++) {
    record_t *r = &table[i];
    if (!atomic_load(&r->codeptr))
      continue;
    fprintf(f, "%s{\"codeptr\":\"%p\",\"offset\":%llu,\"object\":", first ? "" : ",", (void *)atomic_load(&r->codeptr),
            (unsigned long long)r->offset);
    first = 0;
    write_string(f, r->object);
    fprintf(f, ",\"instances\":%llu", (unsigned long long)atomic_load(&r->instances));
    uint32_t n = atomic_load(&r->threads);
    if (region) {
      fprintf(f, ",\"nested\":%llu,\"time_ns\":%llu,\"outer_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu"
                 ",\"team_sum\":%llu,\"team_max\":%llu",
              (unsigned long long)atomic_load(&r->nested), (unsigned long long)atomic_load(&r->time_ns),
              (unsigned long long)atomic_load(&r->outer_ns), (unsigned long long)atomic_load(&r->min_ns),
              (unsigned long long)atomic_load(&r->max_ns), (unsigned long long)atomic_load(&r->team_sum),
              (unsigned long long)atomic_load(&r->team_max));
      write_array(f, "work_ns", r->work_ns, n);
      write_array(f, "wait_ns", r->wait_ns, n);
    } else {
      fprintf(f, ",\"iterations\":%llu", (unsigned long long)atomic_load(&r->iterations));
      write_array(f, "work_ns", r->work_ns, n);
    }
    fputc('}', f);
  }
  fputc(']', f);
}

/* Write the file whole (a temporary file beside it, then a rename): a reader never sees half of it. */
static void write_profile(int finished) {
  if (!out_path)
    return;
  size_t n = strlen(out_path) + 8;
  char *tmp = malloc(n);
  if (!tmp)
    return;
  snprintf(tmp, n, "%s.tmp", out_path);
  FILE *f = fopen(tmp, "w");
  if (f) {
    fprintf(f, "{\"tool\":\"mirtune-ompt\",\"format\":%d,\"finished\":%s,\"runtime\":", FORMAT_VERSION,
            finished ? "true" : "false");
    write_string(f, runtime_version);
    fprintf(f, ",\"runtime_ns\":%llu,\"dropped_records\":%llu,\"dropped_threads\":%llu,\"callbacks\":{",
            (unsigned long long)(now_ns() - start_ns), (unsigned long long)atomic_load(&dropped_records),
            (unsigned long long)atomic_load(&dropped_threads));
    static const char *names[] = {"parallel_begin", "parallel_end", "implicit_task", "work", "sync_region",
                                  "sync_region_wait"};
    static const int ids[] = {ompt_callback_parallel_begin, ompt_callback_parallel_end, ompt_callback_implicit_task,
                              ompt_callback_work, ompt_callback_sync_region, ompt_callback_sync_region_wait};
    for (int i = 0; i < 6; i++)
      fprintf(f, "%s\"%s\":%d", i ? "," : "", names[i], set_results[ids[i]]);
    fputc('}', f);
    if (finished) {
      write_records(f, "regions", regions, 1);
      write_records(f, "loops", loops, 0);
    }
    fputs("}\n", f);
    if (fclose(f) == 0)
      rename(tmp, out_path);
  }
  free(tmp);
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data) {
  (void)initial_device_num;
  (void)tool_data;
  start_ns = now_ns();
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set_callback)
    return 0;
#define REGISTER(id, fn) set_results[id] = set_callback(id, (ompt_callback_t)(fn))
  REGISTER(ompt_callback_parallel_begin, on_parallel_begin);
  REGISTER(ompt_callback_parallel_end, on_parallel_end);
  REGISTER(ompt_callback_implicit_task, on_implicit_task);
  REGISTER(ompt_callback_work, on_work);
  REGISTER(ompt_callback_sync_region, on_sync_region);
  REGISTER(ompt_callback_sync_region_wait, on_sync_region_wait);
#undef REGISTER
  write_profile(0);
  return 1;
}

static void finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  write_profile(1);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime) {
  (void)omp_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  const char *path = getenv("MIRTUNE_OMPT_OUT");
  if (!path || !*path)
    return NULL;
  out_path = strdup(path);
  snprintf(runtime_version, sizeof runtime_version, "%s", runtime ? runtime : "");
  return &result;
}
