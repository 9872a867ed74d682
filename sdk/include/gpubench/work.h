/*
 * gpubench plugin ABI: the work a plugin declares, what one run() does at a size
 * (gpubench_work, filled in by the descriptor's work()), with its arithmetic and flags.
 *
 * Part of the ABI of gpubench/plugin.h, which includes it and states the rules (versions,
 * ownership, what the runner checks): a plugin includes that header, not this one.
 * Plain C99, like it.
 */
#ifndef GPUBENCH_WORK_H
#define GPUBENCH_WORK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* v1.3: the arithmetic gpubench_work.flops counts, so that they are read against the
   matching peak of the device (and a rate above it is caught as impossible). */
typedef int32_t gpubench_math;
#define GPUBENCH_MATH_FP32 0           /* float32 on the CUDA cores / CPU vector units (default) */
#define GPUBENCH_MATH_FP64 1           /* float64, on tensor cores too where the device has them */
#define GPUBENCH_MATH_TENSOR_TF32 2    /* float32 inputs on tensor cores (TF32) */
#define GPUBENCH_MATH_TENSOR_FP16 3    /* FP16 or BF16 inputs on tensor cores */
#define GPUBENCH_MATH_TENSOR_FP8 4
#define GPUBENCH_MATH_TENSOR_INT8 5    /* integer operations counted as flops */

/* v1.3: gpubench_work.flags */
#define GPUBENCH_WORK_RUN_REPEATABLE 1u  /* this configuration's run() leaves its inputs intact:
                                            it may run back to back without reset() even
                                            though the plugin has one (for other params).
                                            Read by per-launch timing alone (sampled cycles
                                            still call reset()); without a reset() it changes
                                            nothing but the results' run_repeatable */
#define GPUBENCH_WORK_RUN_NO_DEVICE_WORK 2u  /* v1.6: this CUDA configuration's run() enqueues
                                            no device work (it computes on the host): the
                                            runner then does not require any after warm-up */
#define GPUBENCH_WORK_BYTES_INTERCONNECT 4u  /* v1.7: `bytes` is what each GPU sends over
                                            its links to other GPUs per run() (and receives:
                                            the rate is per direction), e.g. an all-reduce's
                                            bus bytes 2(n-1)/n x size: the rate is held to the
                                            GPU's interconnect peak (NVLink: active links x
                                            per-link rate; else its PCIe link), not to the
                                            memory hierarchy. Declare only bytes that cross
                                            the links: with in-switch reduction (NVLink
                                            multicast, SHARP) fewer do */
#define GPUBENCH_WORK_RUN_ACROSS_RANKS 8u  /* v1.7: run() is one collective with the other
                                            ranks (set only when gpubench_work.ranks > 1):
                                            every rank must call it the same number of times,
                                            and the runner makes sure it does (plugin.h,
                                            "Several processes") */

/* What one run() does at a given size, for throughput and memory estimates. */
typedef struct gpubench_work {
    uint32_t struct_size;       /* set by the runner */
    double flops;               /* floating-point operations of one run() (0 if not meaningful) */
    double bytes;               /* bytes one run() must move through memory at least
                                   (GB/s: bytes / median compute time / 10^9) */
    double host_bytes;          /* host memory an instance holds (estimate, 0 = unknown) */
    double device_bytes;        /* device memory an instance holds (estimate, 0 = unknown) */
    /* v1.1 */
    double items;               /* things one run() processes (keys, pixels...; see the
                                   descriptor's item_name), for items/s; 0 if not meaningful */
    /* v1.3 */
    gpubench_math math;         /* what the flops are; GPUBENCH_MATH_FP32 when not said */
    uint32_t flags;             /* GPUBENCH_WORK_* bits */
    /* v1.5 */
    int32_t devices;            /* INPUT, set by the runner before work() is called: how many
                                   devices create() will be given (1 unless the plugin's
                                   max_devices is above 1). A runner older than 1.5 leaves it
                                   out: check GPUBENCH_HAS_FIELD and take 1. */
    /* v1.7 */
    int32_t ranks;              /* INPUT, set by the runner before work() is called: how many
                                   processes measure this entry together (the launcher's
                                   world, see "Several processes"); 1 when this one is alone.
                                   A runner older than 1.7 leaves it out: take 1. */
    /* v1.9 */
    double launches;            /* device operations one run() issues: kernel launches,
                                   library calls, copies (0 if not known or none). A run() of
                                   many small operations is bound by issuing them, not by its
                                   flops or bytes; the runner's plans (shards, the budget)
                                   predict such a run() from this count. */
} gpubench_work;

#ifdef __cplusplus
}
#endif

#endif /* GPUBENCH_WORK_H */
