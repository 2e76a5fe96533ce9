/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CUPTI layer of libztcupti.so (glue.c). Its one export is
 * InitializeInjection(), which the CUDA driver calls when
 * CUDA_INJECTION64_PATH names this library. The entry points below are
 * hidden in the shared object: the unit tests and the benchmark link the
 * library's objects and drive the very code CUPTI calls, without a GPU.
 */
#ifndef ZT_CUPTI_GLUE_H
#define ZT_CUPTI_GLUE_H

#include <stddef.h>
#include <stdint.h>

#include <cupti.h>
#include <cupti_pcsampling.h>

struct zc;

/* Called by the driver (during cuInit) when CUDA_INJECTION64_PATH points
 * here. Never fails the host: returns 1; on any problem the library stays
 * inert and says why in the file (or on stderr with verbose=1). */
__attribute__((visibility("default"))) int InitializeInjection(void);

/* Set the library up as InitializeInjection does from ZT_GPU_DIR and
 * ZT_GPU_OPTS, but with dir and opts and without subscribing to CUPTI
 * (tests, benchmark): 0, or -errno (inert). */
int ztc_glue_start(const char *dir, const char *opts);
/* What the library does at exit (flush CUPTI, disable PC sampling, final
 * write), then free everything: the next start is a fresh library. */
void ztc_glue_stop(void);
/* The core (NULL when inert). */
struct zc *ztc_glue_core(void);

/* The callbacks CUPTI calls. */
void CUPTIAPI ztc_glue_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				const void *data);
void CUPTIAPI ztc_glue_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records);
void CUPTIAPI ztc_glue_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
					size_t size, size_t valid);
/* One cuptiPCSamplingGetData buffer of context ctx_id into the aggregator,
 * as the drains do: totals, then every PC's stall reasons. */
void ztc_glue_pcs_consume(uint32_t ctx_id, const CUpti_PCSamplingData *d);

#endif
