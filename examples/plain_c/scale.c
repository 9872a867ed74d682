/* A gpubench plugin in plain C99, without the C++ helper: y = 3 * x over n floats on one CPU
   thread. The whole contract is gpubench/plugin.h; this file fills in its descriptor.

     cmake -S . -B build -DCMAKE_PREFIX_PATH=/path/to/gpubench/prefix && cmake --build build
     /path/to/gpubench/prefix/bin/runner --plugin-dir build --plugin example_scale_c --sizes 10,1000 */
#include <gpubench/plugin.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The descriptor's size range, which create() checks too: the runner skips sizes outside it,
   but a plugin does not trust that (the C++ helper's gpubench::checked_size does the same). */
#define SCALE_MIN_SIZE 1
#define SCALE_MAX_SIZE ((uint64_t)1 << 28)

struct gpubench_instance {
    uint64_t n;
    float *x, *y;
};

static void say(char *message, size_t message_size, const char *text) {
    if (message && message_size) snprintf(message, message_size, "%s", text);
}

static gpubench_status scale_work(uint64_t n, const char *params, gpubench_work *out,
                                  char *message, size_t message_size) {
    (void)params, (void)message, (void)message_size;
    out->flops = (double)n;
    out->bytes = 8.0 * (double)n;      /* read x, write y */
    out->host_bytes = 8.0 * (double)n;
    out->device_bytes = 0;
    /* Fields of later ABI versions: only where the runner's struct has them. */
    if (GPUBENCH_HAS_FIELD(out, gpubench_work, items)) out->items = (double)n;
    return GPUBENCH_OK;
}

static void scale_destroy(gpubench_instance *s) {
    if (!s) return;
    free(s->x);
    free(s->y);
    free(s);
}

static gpubench_status scale_create(const gpubench_setup_args *args, gpubench_instance **out,
                                    char *message, size_t message_size) {
    if (args->size < SCALE_MIN_SIZE || args->size > SCALE_MAX_SIZE) {
        say(message, message_size, "size outside example_scale_c's range 1..268435456");
        return GPUBENCH_NOT_SUPPORTED;
    }
    gpubench_instance *s = calloc(1, sizeof *s);
    if (s) {
        s->n = args->size;
        s->x = malloc(s->n * sizeof *s->x);
        s->y = malloc(s->n * sizeof *s->y);
    }
    if (!s || !s->x || !s->y) {  /* out of memory is a status, never a crash */
        scale_destroy(s);
        say(message, message_size, "cannot allocate the vectors");
        return GPUBENCH_OUT_OF_MEMORY;
    }
    for (uint64_t i = 0; i < s->n; ++i) s->x[i] = (float)((args->seed + i) % 1000) / 1000.0f;
    *out = s;
    return GPUBENCH_OK;
}

static gpubench_status scale_run(gpubench_instance *s, char *message, size_t message_size) {
    (void)message, (void)message_size;
    for (uint64_t i = 0; i < s->n; ++i) s->y[i] = 3.0f * s->x[i];
    return GPUBENCH_OK;
}

static gpubench_status scale_verify(gpubench_instance *s, gpubench_verification *out,
                                    char *message, size_t message_size) {
    (void)message, (void)message_size;
    double worst = 0;
    for (uint64_t i = 0; i < s->n; ++i) {
        const double error = fabs(s->y[i] - 3.0 * s->x[i]);
        if (error > worst) worst = error;
    }
    out->max_error = worst;
    out->tolerance = 1e-6;
    out->checked = s->n;
    out->passed = worst <= out->tolerance;
    snprintf(out->detail, sizeof out->detail, "absolute error vs float64");
    return GPUBENCH_OK;
}

static const uint64_t default_sizes[] = {1000, 100000, 10000000};

static const gpubench_plugin descriptor = {
    .struct_size = sizeof(gpubench_plugin),
    .abi_major = GPUBENCH_ABI_MAJOR,
    .abi_minor = GPUBENCH_ABI_MINOR,
    .name = "example_scale_c",
    .workload = "example_scale",
    .backend = "c",
    .device_kind = GPUBENCH_DEVICE_CPU,
    .description = "y = 3*x over n floats, plain C, one thread",
    .size_meaning = "n: vector length, float32",
    .version = "1.0",
    .build_info = GPUBENCH_PLUGIN_BUILD_INFO,  /* set by gpubench_add_plugin */
    .params_help = "",
    .min_size = SCALE_MIN_SIZE,
    .max_size = SCALE_MAX_SIZE,
    .default_sizes = default_sizes,
    .default_size_count = sizeof default_sizes / sizeof default_sizes[0],
    .work = scale_work,
    .create = scale_create,
    .run = scale_run,
    .verify = scale_verify,
    .destroy = scale_destroy,
    .item_name = "elements",
    .headline = GPUBENCH_HEADLINE_AUTO,
    .param_names = "",  /* reads no --param: the runner then refuses a mistyped key */
};

GPUBENCH_EXPORT const gpubench_plugin *gpubench_plugin_entry(void);
GPUBENCH_EXPORT const gpubench_plugin *gpubench_plugin_entry(void) { return &descriptor; }
