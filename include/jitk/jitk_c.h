/* jitk/jitk_c.h — the C ABI of jitk (libjitk_c.so), for C programs and for
 * Python through ctypes.
 *
 * Only C types cross this boundary: opaque handles, NUL-terminated UTF-8
 * strings, fixed-width integers and plain structs. libjitk_c.so carries jitk,
 * abseil and SQLite inside and exports nothing but the jitk_* symbols below,
 * so it loads on a machine that has neither abseil nor SQLite.
 *
 * Errors. Every function that can fail returns a jitk_status (0 = JITK_OK;
 * the other values are abseil's canonical codes). The message of the most
 * recent such call on the calling thread is kept in thread-local storage:
 * jitk_last_error_message() returns it ("" after a success) and
 * jitk_last_error_code() its code. Messages name the problem ("unknown kernel
 * 'saxpy': built-in kernels are scaled_add", "argument 'n' must be an
 * integer"). Bad input never crashes: a NULL where a handle, string or out
 * pointer is required is JITK_INVALID_ARGUMENT naming the parameter.
 *
 * Strings returned as `const char*` are owned by the library. Those read from
 * a handle stay valid while the handle lives; the others (error message,
 * discovery JSON) stay valid until the next call of the same function on the
 * same thread. Copy them if you need them longer.
 *
 * Shapes are passed as their canonical key text, `dtype;dim=value;...`, e.g.
 * "f16;n=1048576" or "bf16;b=4;block=128;d=128;hkv=32;hq=32;layout=1;lk=4096;lq=4096"
 * (dims in any order; dtype f32 / f16 / bf16 or float32 / float16 / bfloat16;
 * docs/sparse_attn.md lists sparse_attn's, among them "mask_per_head=1" for a
 * block mask per query head, which picks the config for unpacked grouped heads).
 * Kernel configs are `NAME=VALUE,...` text, e.g. "BLOCK=256,EPT=4,VEC=4".
 *
 * Thread safety: every function may be called from any thread. A handle may
 * be used from several threads at once, but must not be released while
 * another thread uses it.
 *
 * Example:
 *   jitk_kernel* k = NULL;
 *   if (jitk_get_kernel("scaled_add", "f32;n=1024", NULL, 0, &k) != JITK_OK) {
 *     fprintf(stderr, "%s\n", jitk_last_error_message());
 *     return 1;
 *   }
 *   jitk_arg args[] = {
 *       {.name = "out", .kind = JITK_ARG_POINTER, .pointer = out},
 *       {.name = "x", .kind = JITK_ARG_POINTER, .pointer = x},
 *       {.name = "y", .kind = JITK_ARG_POINTER, .pointer = y},
 *       {.name = "n", .kind = JITK_ARG_INT, .integer = 1024},
 *       {.name = "scale", .kind = JITK_ARG_FLOAT, .real = 0.5},
 *   };
 *   jitk_status st = jitk_kernel_launch(k, args, 5, stream);
 *   jitk_kernel_release(k);
 */
#ifndef JITK_JITK_C_H_
#define JITK_JITK_C_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define JITK_C_EXPORT __attribute__((visibility("default")))
#else
#define JITK_C_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a declaration below changes incompatibly; additions keep it. */
#define JITK_C_ABI_VERSION 1

/* ------------------------------------------------------------------------ */
/* Status codes: the values of absl::StatusCode.                            */

typedef enum jitk_status {
  JITK_OK = 0,
  JITK_CANCELLED = 1,
  JITK_UNKNOWN = 2,
  JITK_INVALID_ARGUMENT = 3,     /* bad name, shape, config, argument; compile error */
  JITK_DEADLINE_EXCEEDED = 4,    /* tuning budget spent */
  JITK_NOT_FOUND = 5,            /* no such GPU */
  JITK_ALREADY_EXISTS = 6,
  JITK_PERMISSION_DENIED = 7,
  JITK_RESOURCE_EXHAUSTED = 8,   /* out of device memory, shared memory, ... */
  JITK_FAILED_PRECONDITION = 9,  /* code object for another architecture */
  JITK_ABORTED = 10,
  JITK_OUT_OF_RANGE = 11,
  JITK_UNIMPLEMENTED = 12,
  JITK_INTERNAL = 13,
  JITK_UNAVAILABLE = 14,         /* a vendor library is missing (named) */
  JITK_DATA_LOSS = 15,           /* corrupt cache */
  JITK_UNAUTHENTICATED = 16
} jitk_status;

/* "OK", "INVALID_ARGUMENT", ...; "UNKNOWN_CODE" for other values. */
JITK_C_EXPORT const char* jitk_status_name(int status);

/* The result of the most recent status-returning call on this thread. */
JITK_C_EXPORT jitk_status jitk_last_error_code(void);
JITK_C_EXPORT const char* jitk_last_error_message(void);

/* ------------------------------------------------------------------------ */
/* Library and devices.                                                     */

/* "0.1.0" (JITK_VERSION_STRING of the library, not of this header). */
JITK_C_EXPORT const char* jitk_version(void);
/* JITK_C_ABI_VERSION the library was built with. */
JITK_C_EXPORT int jitk_abi_version(void);

/* Built-in kernel template names, comma-separated: "scaled_add,...". */
JITK_C_EXPORT const char* jitk_kernel_names(void);

/* What jitk-info --json prints: {"jitk_version", "backends": [...],
 * "devices": [{"ordinal", "backend", "backend_ordinal", "name", "arch",
 * "target", ...}]}. Never fails. Valid until the next call on this thread. */
JITK_C_EXPORT const char* jitk_discover_json(void);

/* Device memory on GPU `device` (ordinal in the discovery JSON), for C
 * programs and tests that have no framework of their own. jitk_malloc of 0
 * bytes gives NULL and JITK_OK; jitk_free(device, NULL) is a no-op. The
 * copies are synchronous. No GPU: JITK_NOT_FOUND. */
JITK_C_EXPORT jitk_status jitk_malloc(int device, size_t bytes, void** out);
JITK_C_EXPORT jitk_status jitk_free(int device, void* pointer);
JITK_C_EXPORT jitk_status jitk_copy_to_device(int device, void* device_dst, const void* host_src,
                                              size_t bytes);
JITK_C_EXPORT jitk_status jitk_copy_to_host(int device, void* host_dst, const void* device_src,
                                            size_t bytes);
/* Waits for `stream` (a hipStream_t / CUstream / cudaStream_t; NULL = the
 * default stream) on `device`. */
JITK_C_EXPORT jitk_status jitk_synchronize(int device, void* stream);

/* ------------------------------------------------------------------------ */
/* Launch arguments, by name.                                               */

typedef enum jitk_arg_kind {
  JITK_ARG_POINTER = 1, /* `pointer`: a device pointer */
  JITK_ARG_INT = 2,     /* `integer` */
  JITK_ARG_FLOAT = 3    /* `real`, passed to the kernel as a 32-bit float */
} jitk_arg_kind;

/* One named argument. Zero-initialise, then set name, kind and the one value
 * field the kind reads (kind 0 is rejected, so a forgotten kind is caught).
 * Layout (64-bit): name @0, kind @8, reserved @12, pointer @16, integer @24,
 * real @32; 40 bytes. */
typedef struct jitk_arg {
  const char* name;
  int32_t kind; /* jitk_arg_kind */
  int32_t reserved;
  const void* pointer;
  int64_t integer;
  double real;
} jitk_arg;

/* Grid and block of a planned launch. */
typedef struct jitk_launch_dims {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t dynamic_shared_bytes;
} jitk_launch_dims;

/* What a compiled kernel needs (per thread unless noted); see jitk::ResourceUsage. */
typedef struct jitk_resources {
  int32_t registers;        /* VGPRs (AMD; gfx908: max of VGPRs, AGPRs) / registers */
  int32_t scalar_registers; /* SGPRs (AMD) */
  int32_t accum_registers;  /* AGPRs (AMD CDNA) */
  int32_t lds_bytes;        /* static LDS / shared memory per block */
  int32_t scratch_bytes;
  int32_t spills;
  int32_t wave_size;
  int32_t max_threads_per_block;
} jitk_resources;

/* ------------------------------------------------------------------------ */
/* Compiling without a GPU.                                                 */

typedef struct jitk_compiled jitk_compiled;

/* Compiles kernel `name` for `shape_key` and architecture `arch` ("gfx90a",
 * "gfx942:sramecc+:xnack-", "sm_90"), with `config` ("BLOCK=256,...") or, when
 * NULL or "", the template's default for `arch`. On success *out is a new
 * handle; release it with jitk_compiled_release. Errors: unknown kernel, bad
 * shape key or shape, bad config, a malformed arch or one the compiler cannot
 * build for, and compile errors (the log in the message) are
 * JITK_INVALID_ARGUMENT; an arch missing from jitk's table is JITK_NOT_FOUND
 * listing the known ones; a backend not built in or a compiler library that
 * cannot be loaded is JITK_UNAVAILABLE naming it. */
JITK_C_EXPORT jitk_status jitk_compile_kernel(const char* name, const char* shape_key,
                                              const char* arch, const char* config,
                                              jitk_compiled** out);
JITK_C_EXPORT void jitk_compiled_release(jitk_compiled* compiled); /* NULL is fine */

/* The config actually compiled, "BLOCK=256,EPT=4,VEC=4"; NULL for NULL. */
JITK_C_EXPORT const char* jitk_compiled_config(const jitk_compiled* compiled);
/* {"kernel", "shape", "config", "symbol", "name_expression", "target",
 * "compiler", "compile_ms", "code_bytes", "log", "resources": {...}}. */
JITK_C_EXPORT const char* jitk_compiled_info_json(const jitk_compiled* compiled);
JITK_C_EXPORT jitk_status jitk_compiled_resources(const jitk_compiled* compiled,
                                                  jitk_resources* out);
/* The code object (HSA code object / cubin); valid while the handle lives. */
JITK_C_EXPORT jitk_status jitk_compiled_code_object(const jitk_compiled* compiled,
                                                    const void** data, size_t* size);
/* Checks `args` exactly as jitk_kernel_launch would for this kernel, shape
 * and config, and reports the grid and block it would use, without a GPU (of
 * a launch in two passes, sparse_attn's key-range split, the first).
 * Errors name the argument: missing, wrong kind, unknown kind, NULL name,
 * out of range for the shape, misaligned pointer. */
JITK_C_EXPORT jitk_status jitk_compiled_plan_launch(const jitk_compiled* compiled,
                                                    const jitk_arg* args, size_t num_args,
                                                    jitk_launch_dims* out);

/* ------------------------------------------------------------------------ */
/* Kernels on a GPU.                                                        */

typedef struct jitk_kernel jitk_kernel;

/* Gets kernel `name` for `shape_key` on GPU `device` with the best config
 * known (tuned, cached or default) or exactly `config` when it is neither
 * NULL nor "". Compiles or reuses the code object and loads it; repeated
 * calls with the same arguments are served from memory. On success *out is
 * a new handle; release it with jitk_kernel_release. Errors as for
 * jitk_compile_kernel, plus JITK_NOT_FOUND when there is no GPU `device`. */
JITK_C_EXPORT jitk_status jitk_get_kernel(const char* name, const char* shape_key,
                                          const char* config, int device, jitk_kernel** out);
JITK_C_EXPORT void jitk_kernel_release(jitk_kernel* kernel); /* NULL is fine */

/* The chosen config, "BLOCK=128,EPT=4,VEC=4"; NULL for NULL. */
JITK_C_EXPORT const char* jitk_kernel_config(const jitk_kernel* kernel);
/* Where it came from: "explicit", "memo", "user-db", "system-db",
 * "nearest-tuned" or "default"; NULL for NULL. */
JITK_C_EXPORT const char* jitk_kernel_config_source(const jitk_kernel* kernel);
/* {"kernel", "shape", "config", "config_source", "symbol", "target",
 * "compiler", "resources": {...}, "device": {"ordinal", "backend",
 * "backend_ordinal", "name", "arch", "target"}}. */
JITK_C_EXPORT const char* jitk_kernel_info_json(const jitk_kernel* kernel);
JITK_C_EXPORT jitk_status jitk_kernel_resources(const jitk_kernel* kernel, jitk_resources* out);

/* Enqueues the kernel on `stream` (hipStream_t / CUstream / cudaStream_t;
 * NULL = default stream) with the named arguments; asynchronous. Pointers
 * are raw device pointers of the kernel's device. Errors name the bad
 * argument (JITK_INVALID_ARGUMENT) or carry the driver's error. */
JITK_C_EXPORT jitk_status jitk_kernel_launch(const jitk_kernel* kernel, const jitk_arg* args,
                                             size_t num_args, void* stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* JITK_JITK_C_H_ */
