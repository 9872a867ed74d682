/*
 * gpubench plugin ABI — the whole contract between the runner and a workload plugin.
 *
 * Plain C99: no C++ types, no exceptions and no ownership cross this boundary.
 *
 * ------------------------------------------------------------------------------------------
 * Versioning
 *   A plugin exports exactly one symbol, GPUBENCH_ENTRY_SYMBOL, returning a pointer to a
 *   static, immutable gpubench_plugin. The runner refuses (and never calls into) a plugin
 *   whose abi_major differs from its own, or whose struct_size is smaller than the v1.0
 *   descriptor. Minor versions only append fields: each side reads a field only when the
 *   other side's struct_size says it is there, so an older plugin loads in a newer runner
 *   and the reverse. Every struct that crosses the boundary starts with struct_size.
 *
 * Ownership
 *   - The descriptor and every string in it are owned by the plugin and live as long as the
 *     library stays loaded.
 *   - An instance (gpubench_instance) is created by create() and released by destroy(); all
 *     memory it uses (host and device) is allocated and freed by the plugin.
 *   - Argument structs, result structs and message buffers are owned by the runner and valid
 *     only for the duration of the call. The plugin must copy what it wants to keep.
 *
 * Errors
 *   Every fallible call returns a gpubench_status. On anything but GPUBENCH_OK the plugin
 *   writes a one-line, NUL-terminated reason into `message` (at most message_size bytes,
 *   truncating). A plugin never calls exit()/abort(), never lets an exception or longjmp
 *   cross the boundary, and never prints to stop the host. Out of memory and "this size or
 *   configuration is not supported" are statuses, not crashes.
 *
 * Lifecycle and timing (the runner owns all timing)
 *   prepare  (load)     optional (v1.4); once per process: an interpreter, imports.
 *   create   (untimed)  allocate, generate deterministic inputs from args->seed.
 *   upload   (timed)    host -> device copies of the inputs. NULL for CPU plugins and for
 *                       CUDA plugins whose data is made on the device.
 *   reset    (untimed)  optional; restores inputs an in-place run() destroyed. Called before
 *                       every run(). NULL when run() does not modify its inputs.
 *   run      (timed)    the computation alone. Called many times; each call computes the whole
 *                       result again from the inputs. A CPU plugin's run() must not return
 *                       before its work is done: threads it starts must be joined, work it
 *                       hands to its own threads waited for (checked: see Threads below).
 *   download (timed)    device -> host copy of the result. NULL when there is none.
 *   verify   (untimed)  checks the last run()'s result against a reference; neither timed
 *                       nor traced (see verify below).
 *   One sample is one upload, reset, run, download cycle, each phase timed apart: upload and
 *   download are never in the run's time. --min-time counts run() time; --max-time the wall
 *   time of the warm-up and the cycles, uploads and downloads included.
 *   metrics  (untimed)  optional (v1.1); figures about the result such as test accuracy.
 *   destroy             releases everything; must accept an instance in any state.
 *
 * Streams and blocking (CUDA plugins)
 *   upload, reset, run and download enqueue their device work on args->cuda_stream (a
 *   cudaStream_t), or on streams of the same device that are ordered inside its span by
 *   events: forked from it (cudaEventRecord on args->cuda_stream, cudaStreamWaitEvent on the
 *   side stream, before the side work) and joined back before the call returns
 *   (cudaEventRecord on the side stream after the work, cudaStreamWaitEvent on
 *   args->cuda_stream), through any chain of streams; a graph launched on a side stream
 *   likewise; PyTorch's side.wait_stream(main) ... main.wait_stream(side) does the same.
 *   Default streams are refused unless ordered so, other devices always. CPU threads a call
 *   starts are joined before it returns. They should not synchronise: the runner records
 *   CUDA events on that stream around each call and waits on them itself. Host-side work in
 *   these calls is allowed but is timed only as far as the GPU waits for it (not at all in a
 *   held run()); a host step that belongs to the timed work goes on the stream with
 *   cudaLaunchHostFunc, inside the span. A kernel may read and write mapped page-locked host
 *   memory: it is timed and traced as any kernel on its stream. create, verify and destroy
 *   may block.
 *   The runner checks this: it traces the device work of a few extra calls after warm-up
 *   (CUPTI, where it loads; their times are not samples), with the event records and waits
 *   that order streams, and waits for every device after the end event of those, of the
 *   warm-up's and of every 4th sample.
 *   These make the entry invalid, like a wrong result:
 *     - any kernel, copy or memset on another stream or device that is not ordered inside the
 *       span ("work outside the runner's stream in run(): kernel twice(float const*, float*,
 *       int) on stream 17 (context 1) of device 0, not joined back to the runner's stream:
 *       ..."), whatever its length: a side stream never joined back or never forked from the
 *       runner's (it can run while the runner's stream is held, before the span begins), the
 *       legacy or per-thread default stream without events, another GPU (always);
 *     - a run() after warm-up that enqueues no device work at all (a result kept from an
 *       earlier call), unless gpubench_work.flags has GPUBENCH_WORK_RUN_NO_DEVICE_WORK;
 *     - traced device work longer than the timed span.
 *   Where nothing traces (no CUPTI, --no-device-trace) only work that outlives the span shows:
 *   "work outside the runner's stream: timed 16.6 us, the device stayed busy 7.4 ms after it".
 *   Runs shorter than ~100 us are also timed per launch: run() (with reset() before it, unless
 *   gpubench_work.flags says run() is repeatable) is captured into a CUDA graph on that stream
 *   and replayed, or, where capture fails (a synchronising call, cudaMalloc...), called back to
 *   back. Either way run() must enqueue the same work each time it is called. Throughput is
 *   work over the median compute time: the per-launch median where there is one, else the
 *   median run(); GB/s and GFLOP/s are 10^9 bytes and flops per second.
 *
 * Several devices (v1.5, a descriptor with max_devices > 1)
 *   The plugin enqueues each device's timed work on that device's stream (args->cuda_streams,
 *   in the order of args->cuda_devices); the current device when it is called is the first.
 *   The runner records a begin and an end event on every stream around each call, and the
 *   call's time is the longest of the per-device spans: events of different devices cannot
 *   be compared with one another, and the call is done only when its slowest device is. Such
 *   work is not captured into a graph: short runs are timed per launch back to back. The
 *   stream check waits for each device. device_bytes in gpubench_work is per device, and the
 *   memory checks read the first device.
 *
 * Several processes (v1.7: ranks launched together by mpirun or srun)
 *   When the runner is one of several ranks of a launcher's world (and not a --shard), it
 *   tells work() the world's size (gpubench_work.ranks) and create() this process's place in
 *   it (setup args' rank, ranks), a folder every rank can reach (rendezvous, fresh for each
 *   entry) and how long a rank waits for the others (rank_timeout_s). A plugin whose run() is
 *   then one collective with the other ranks says so with GPUBENCH_WORK_RUN_ACROSS_RANKS; the
 *   runner then calls each phase the same number of times on every rank (fixed sample counts,
 *   no stream hold, no graph capture: see docs/measurement.md) and gives up on a timed span
 *   that waits longer than rank_timeout_s for the others, naming the cause. A plugin shares
 *   what its ranks need (an NCCL unique id) through files in the rendezvous folder
 *   (gpubench/rendezvous.hpp), waits for the others at most rank_timeout_s in create() and
 *   fails with a one-line reason after that, never hangs. A plugin without the flag is
 *   measured by each rank on its own, as before.
 *
 * Checks the runner makes on every entry (see docs/measurement.md)
 *   - Faster than the hardware: flops or bytes per second above the device's peak for the
 *     declared gpubench_work.math (bytes only when one run's bytes exceed the cache; bytes
 *     flagged GPUBENCH_WORK_BYTES_INTERCONNECT against the interconnect's peak) make the
 *     entry invalid: the timing or the declared work is wrong.
 *   - Leaks: device or host memory that grows with the number of run() calls is an error
 *     naming the growth per run; running out of memory after earlier runs succeeded is an
 *     error, never "skipped".
 *   - Plugins built without optimisation are flagged "unoptimized": put
 *     GPUBENCH_PLUGIN_BUILD_INFO (set by gpubench_add_plugin) in build_info.
 *
 * Threads (CPU plugins)
 *   run() may use at most args->cpu_threads threads (the runner records that number in the
 *   results). The bound is run()'s; a reference check in verify() should keep to it too: a
 *   --devices lane's worker is bound to its share of the CPUs, and cpu_threads is at most that
 *   share. All calls on one instance come from one runner thread, never concurrently.
 *   The runner reads every thread's CPU time around a few run() calls per entry: a thread
 *   that run() started and left running, or threads that worked after run() returned without
 *   taking part in it, make the entry invalid ("work outside run(): 1 thread started by run()
 *   was still running after it returned (...)"). An OpenMP parallel region inside run() ends
 *   with a barrier and is fine; its pool spinning afterwards is not counted.
 * ------------------------------------------------------------------------------------------
 */
#ifndef GPUBENCH_PLUGIN_H
#define GPUBENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include <gpubench/param.h> /* gpubench_param: a declared parameter (v1.10) */
#include <gpubench/work.h> /* gpubench_work: what one run() does, its math and flags */

#ifdef __cplusplus
extern "C" {
#endif

#define GPUBENCH_ABI_MAJOR 1
#define GPUBENCH_ABI_MINOR 10
#define GPUBENCH_ENTRY_SYMBOL "gpubench_plugin_entry"

#if defined(_WIN32)
#define GPUBENCH_EXPORT __declspec(dllexport)
#else
#define GPUBENCH_EXPORT __attribute__((visibility("default")))
#endif

/* Status codes. Values are stable across minor versions; unknown values mean ERROR. */
typedef int32_t gpubench_status;
#define GPUBENCH_OK 0
#define GPUBENCH_ERROR 1               /* anything else; the message says what */
#define GPUBENCH_OUT_OF_MEMORY 2       /* host or device allocation failed at this size */
#define GPUBENCH_NOT_SUPPORTED 3       /* this size/parameter combination is not supported */
#define GPUBENCH_INVALID_ARGUMENT 4    /* a parameter value the plugin cannot parse */
#define GPUBENCH_DEVICE_ERROR 5        /* a CUDA (or other device) call failed */

/* v1.1: which throughput the console and plots show first (the results file has them all). */
typedef int32_t gpubench_headline;
#define GPUBENCH_HEADLINE_AUTO 0       /* flops if declared, else bytes, else items */
#define GPUBENCH_HEADLINE_FLOPS 1
#define GPUBENCH_HEADLINE_BYTES 2
#define GPUBENCH_HEADLINE_ITEMS 3

typedef int32_t gpubench_device_kind;
#define GPUBENCH_DEVICE_CPU 0
#define GPUBENCH_DEVICE_CUDA 1

/* Opaque per-(size, seed) state owned by the plugin. */
typedef struct gpubench_instance gpubench_instance;

/* Everything create() needs. Owned by the runner. */
typedef struct gpubench_setup_args {
    uint32_t struct_size;
    uint64_t size;              /* the workload's size parameter (see size_meaning); create()
                                   refuses one outside min_size..max_size with NOT_SUPPORTED
                                   (gpubench::checked_size in C++) */
    uint64_t seed;              /* inputs must be a pure function of (size, seed, params) */
    int32_t cpu_threads;        /* upper bound on the threads run() may use */
    int32_t cuda_device;        /* CUDA plugins: the device the runner made current */
    void *cuda_stream;          /* CUDA plugins: cudaStream_t to enqueue timed work on */
    const char *params;         /* "key=value,key=value" plugin parameters, never NULL */
    /* v1.5: every device the plugin works on, and the cudaStream_t to enqueue device i's timed
       work on; element 0 is cuda_device and cuda_stream. The runner sets them for every CUDA
       plugin (device_count 1 unless the descriptor's max_devices is above 1; 0 and NULL for
       CPU plugins). A runner older than 1.5 leaves them out: check GPUBENCH_HAS_FIELD. */
    int32_t device_count;
    const int32_t *cuda_devices;
    void *const *cuda_streams;
    /* v1.7: this process's place among the ranks launched together (rank 0 of 1 when alone;
       gpubench_work.ranks is the same `ranks`), the folder they share for this entry (made by
       the runner, empty, on a path every rank reaches, one per entry; NULL unless work()
       declared GPUBENCH_WORK_RUN_ACROSS_RANKS), and the seconds a rank waits for the others
       before it gives up (--rank-timeout). A runner older than 1.7 leaves them out: check
       GPUBENCH_HAS_FIELD. */
    int32_t rank;
    int32_t ranks;
    const char *rendezvous;
    double rank_timeout_s;
} gpubench_setup_args;

/* Verification outcome. Owned by the runner. */
typedef struct gpubench_verification {
    uint32_t struct_size;
    int32_t passed;             /* 1 = result is correct within tolerance; alone decides */
    double max_error;           /* largest error found, in the plugin's own measure; of
                                   several checks, the one with the largest
                                   max_error / tolerance (name it in detail) */
    double tolerance;           /* the bound max_error was compared against */
    uint64_t checked;           /* how many result elements were checked */
    char detail[256];           /* e.g. "relative error vs float64 reference, 4096 entries" */
} gpubench_verification;

/* v1.8: which way a metric improves. Reports mark it, and `runner compare` and the history
   call a change beyond the threshold in the other direction a regression. */
typedef enum gpubench_better {
    GPUBENCH_BETTER_UNSTATED = 0,  /* neither: shown, never judged */
    GPUBENCH_BETTER_HIGHER = 1,    /* accuracy, throughput */
    GPUBENCH_BETTER_LOWER = 2      /* loss, error, faults */
} gpubench_better;

/* v1.1: one named figure about the result that is not a time (test accuracy, loss, pixels
   that differ from the reference...). Owned by the runner; an array of them is passed to
   metrics(). `text` is optional: a non-empty text is a remark shown beside the value.
   The array's elements are out[0].struct_size bytes apart, which is the plugin's own
   sizeof(gpubench_metric) only when runner and plugin were built with the same minor version:
   address element i with GPUBENCH_METRIC_AT(out, i), never out[i]. */
typedef struct gpubench_metric {
    uint32_t struct_size;       /* set by the runner: the stride of the array */
    char name[32];              /* snake_case, e.g. "test_accuracy" */
    char unit[16];              /* e.g. "%", "" for plain numbers */
    double value;
    char text[128];             /* e.g. "synthetic data: no IDX files in /usr/share/..." */
    /* ---- v1.8 ---- */
    int32_t better;             /* a gpubench_better; 0 (unstated) as the runner passes it.
                                   Write it only where GPUBENCH_HAS_FIELD says it is there. */
} gpubench_metric;

/* Element i of the metrics array the runner passed, whichever minor version each side has. */
#define GPUBENCH_METRIC_AT(out, i) \
    ((gpubench_metric *)((char *)(out) + (size_t)(i) * (out)->struct_size))

typedef gpubench_status (*gpubench_phase_fn)(gpubench_instance *instance, char *message,
                                             size_t message_size);

/* The descriptor a plugin returns from its entry symbol. Immutable, owned by the plugin. */
typedef struct gpubench_plugin {
    uint32_t struct_size;       /* sizeof(gpubench_plugin) as the plugin was compiled */
    uint16_t abi_major;         /* GPUBENCH_ABI_MAJOR the plugin was compiled against */
    uint16_t abi_minor;

    const char *name;           /* unique: "<workload>_<backend>", e.g. "matmul_cublas" */
    const char *workload;       /* "matmul" */
    const char *backend;        /* "cublas" */
    gpubench_device_kind device_kind;
    const char *description;    /* one line */
    const char *size_meaning;   /* "N: square matrices N x N, float32" */
    const char *version;        /* the plugin's own version */
    const char *build_info;     /* compiler, build type, flags, CUDA architectures: use
                                   GPUBENCH_PLUGIN_BUILD_INFO (it ends in "optimized" or
                                   "unoptimized", which the runner reads) */
    const char *params_help;    /* accepted parameters, "" when none */

    uint64_t min_size;          /* smallest sensible size */
    uint64_t max_size;          /* largest size the plugin accepts (runs beyond take too long
                                   or cannot fit); the runner skips larger ones with a reason */
    const uint64_t *default_sizes;  /* sizes of the default sweep */
    uint32_t default_size_count;

    /* Pure function of size and params: what one run() does. */
    gpubench_status (*work)(uint64_t size, const char *params, gpubench_work *out,
                            char *message, size_t message_size);

    gpubench_status (*create)(const gpubench_setup_args *args, gpubench_instance **out,
                              char *message, size_t message_size);
    gpubench_phase_fn upload;   /* NULL: nothing to upload (a CUDA plugin may make its
                                   data on the device in create()) */
    gpubench_phase_fn reset;    /* NULL: run() leaves its inputs intact */
    gpubench_phase_fn run;
    gpubench_phase_fn download; /* NULL: nothing to download; verify() then reads the
                                   device itself */
    /* Untimed, not traced, not audited; may block and enqueue device work. A CUDA plugin
       enqueues it on args->cuda_stream (ordered after the last run() and download()) and
       waits for that stream before reading host memory: the runner does not wait for the
       download that follows per-launch timing. */
    gpubench_status (*verify)(gpubench_instance *instance, gpubench_verification *out,
                              char *message, size_t message_size);
    void (*destroy)(gpubench_instance *instance);

    /* ---- v1.1 ---- */
    const char *item_name;      /* what gpubench_work.items counts ("keys"); NULL or "" = none */
    gpubench_headline headline; /* the throughput to show first */
    /* Optional (NULL = none); untimed, called after verify(). Writes at most `capacity`
       metrics into `out` (each element's struct_size set by the runner: address them with
       GPUBENCH_METRIC_AT) and their number into *count. */
    gpubench_status (*metrics)(gpubench_instance *instance, gpubench_metric *out,
                               uint32_t capacity, uint32_t *count, char *message,
                               size_t message_size);

    /* ---- v1.2 ---- */
    /* The parameter keys the plugin reads, comma-separated ("dtype,iterations"); "" = none.
       NULL = not declared. The runner refuses a --param key that no selected plugin declares
       (a typo would otherwise be measured as the default), as long as every selected plugin
       declares its keys. */
    const char *param_names;

    /* ---- v1.4 ---- */
    /* Optional (NULL = always): whether what the plugin needs at run time beyond its own
       library is on this machine: an interpreter and its packages, a library it loads with
       dlopen... GPUBENCH_OK = available; anything else = unavailable, with the reason in
       `message` ("python 3.11.2 (/usr/bin/python3) has no module 'cupy'"). The runner calls
       it in a scanner process of its own each time it lists plugins (the answer is never
       cached, as installing a package changes it), so it must be quick (well under the
       --scan-timeout, 10 s by default) and must not use the GPU: the runner checks the
       GPU itself. Runner --list shows "unavailable: <message>" and sweeps skip the plugin
       with that reason. */
    gpubench_status (*available)(char *message, size_t message_size);
    /* Optional (NULL = nothing to do): starts what every instance in a process shares, such
       as an interpreter and its imports. Called once per process before the first create(),
       with the run's cpu_threads (as the worker starts, possibly before any entry is asked
       for); its time is the plugin's load time in the results. A
       status other than GPUBENCH_OK fails every entry of the plugin in that process with the
       message (GPUBENCH_NOT_SUPPORTED: skipped as unavailable). */
    gpubench_status (*prepare)(int32_t cpu_threads, char *message, size_t message_size);

    /* ---- v1.5 ---- */
    /* 0 or 1: a single-device plugin. N > 1 (at most 1024): the plugin works across up to N
       GPUs at once and is given every device the run selected, up to N (setup args'
       device_count, cuda_devices, cuda_streams; gpubench_work.devices). */
    uint32_t max_devices;

    /* ---- v1.10 ---- */
    /* The parameters the plugin reads, each with its type, allowed values and default
       (gpubench/param.h); param_count 0 with params NULL = none declared this way. Where
       they are declared, param_names must list the same keys (an older runner reads those):
       gpubench::Info does both. The runner refuses a --param value outside them before
       measuring, and expands --param KEY=* into a choice's values. */
    const gpubench_param *params;
    uint32_t param_count;
} gpubench_plugin;

/* Whether the translation unit that uses it was compiled with optimisation: the tail of
   GPUBENCH_PLUGIN_BUILD_INFO, decided where the descriptor is compiled. The runner flags
   entries of plugins whose build_info says "unoptimized". */
#if defined(__CUDACC_DEBUG__)
#define GPUBENCH_OPTIMIZATION_TEXT "unoptimized (device code built with -G)"
#elif defined(__OPTIMIZE__)
#define GPUBENCH_OPTIMIZATION_TEXT "optimized"
#elif defined(__GNUC__) || defined(__clang__)
#define GPUBENCH_OPTIMIZATION_TEXT "unoptimized (-O0)"
#else
#define GPUBENCH_OPTIMIZATION_TEXT "optimization unknown"
#endif

/* The entry symbol every plugin exports (with C linkage). */
typedef const gpubench_plugin *(*gpubench_entry_fn)(void);

/* True when a struct filled in by the other side is large enough to hold `field`: how both
   sides stay compatible as structs grow by appended fields. */
#define GPUBENCH_HAS_FIELD(ptr, type, field) \
    ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Size of the v1.0 descriptor: the runner refuses anything smaller. */
#define GPUBENCH_PLUGIN_V1_0_SIZE (offsetof(gpubench_plugin, destroy) + sizeof(void (*)(void)))

#ifdef __cplusplus
}
#endif

#endif /* GPUBENCH_PLUGIN_H */
