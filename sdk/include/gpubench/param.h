/*
 * gpubench plugin ABI: the parameters a plugin declares (v1.10), each key with its type, its
 * allowed values or range, and its default, so that the runner can list them, refuse a value
 * outside them before anything is measured, and sweep every value of a choice (--param KEY=*).
 *
 * Part of the ABI of gpubench/plugin.h, which includes it and states the rules (versions,
 * ownership, what the runner checks): a plugin includes that header, not this one.
 * Plain C99, like it.
 */
#ifndef GPUBENCH_PARAM_H
#define GPUBENCH_PARAM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What values a parameter takes. */
typedef int32_t gpubench_param_kind;
#define GPUBENCH_PARAM_CHOICE 0  /* one of `choices`, a comma-separated list ("float32,float64") */
#define GPUBENCH_PARAM_INT 1     /* a whole number from min to max, both included */
#define GPUBENCH_PARAM_REAL 2    /* a number from min to max, both included */
#define GPUBENCH_PARAM_TEXT 3    /* any text without ',' (a path...): the plugin checks it */

/* One declared parameter. The descriptor's `params` points at an array of them, all of one
   struct_size; strings are the plugin's, as long as the library stays loaded. */
typedef struct gpubench_param {
    uint32_t struct_size;       /* sizeof(gpubench_param) as the plugin was compiled */
    const char *key;            /* "dtype": letters, digits and '_' */
    gpubench_param_kind kind;
    const char *default_value;  /* what run() uses when --param does not give the key, as
                                   text ("float32", "100", "0.1", "" for TEXT); it must be
                                   one of the allowed values */
    const char *choices;        /* CHOICE: the allowed values; NULL for the other kinds */
    double min, max;            /* INT and REAL: the allowed range; 0 for the others */
    const char *help;           /* one line: what it changes ("element type") */
} gpubench_param;

/* Element i of a descriptor's params array, whichever minor version the plugin had. */
#define GPUBENCH_PARAM_AT(params, i) \
    ((const gpubench_param *)((const char *)(params) + (size_t)(i) * (params)->struct_size))

#ifdef __cplusplus
}
#endif

#endif /* GPUBENCH_PARAM_H */
