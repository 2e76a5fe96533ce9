/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transport between libztcupti.so (inside each CUDA process) and
 * zt record: one append-only file per process, $ZT_GPU_DIR/gpu-PID-NS.zg,
 * created O_EXCL|O_NOFOLLOW mode 0600 by the process. The library appends
 * frames as it runs (every flush period, at most a second apart, and at
 * exit); zt record reads the complete frames of every file each second and
 * merges them into zt.data as GPU chunks. A process that crashes leaves a
 * file whose complete frames are all good: a frame is only ever appended
 * whole by one write(2), its CRC covers the payload, and a reader stops
 * at the first frame that is short or fails its CRC.
 *
 * This header is shared by the writer (cupti/) and the reader
 * (formats/ztgpu.c). Both run on the same machine: fields are in native
 * byte order (little-endian x86-64 only, asserted), fixed-size structs with
 * explicit padding. The reader trusts nothing in a file: it may have been
 * written by any process of any user.
 *
 * File:   struct zg_file_hdr, then frames back to back.
 * Frame:  struct zg_frame_hdr, then len payload bytes.
 *         payload = count fixed records of the type's struct, then (types
 *         that name strings) a string pool: the bytes that name_off/name_len
 *         fields index, relative to the pool's start (the pool is the rest
 *         of the payload). Strings are not NUL-terminated in the pool.
 */
#ifndef ZT_CUPTI_WIRE_H
#define ZT_CUPTI_WIRE_H

#include <stdint.h>

#define ZG_MAGIC "ZTGPU\r\n" /* 8 bytes with its NUL */
#define ZG_VERSION 1
#define ZG_FRAME_MAX (64u << 20) /* a reader refuses longer frames */
#define ZG_ENV_DIR "ZT_GPU_DIR"  /* where the library writes its file */
#define ZG_ENV_OPTS "ZT_GPU_OPTS" /* options, see below */

/*
 * ZT_GPU_OPTS: comma-separated key=value options zt record passes to the
 * library (unknown keys ignored):
 *   pcs=continuous|serialized|off   PC sampling mode (default continuous)
 *   pcs_period=N                    sampling period 2^N cycles (5..31; 0: CUPTI's default)
 *   pcs_hwbuf_mb=N                  CUPTI's PC-sampling hardware buffer (0: CUPTI's, 512)
 *   pcs_scratch_mb=N                CUPTI's buffer of decoded PCs (0: CUPTI's, 1)
 *   pcs_sleep_ms=N                  CUPTI's PC-sampling worker threads' sleep (0: CUPTI's, 100)
 *   stacks=usdt|unwind|off          launch stacks: fire the USDT probe zt:launch (zt's BPF
 *                                   sampler captures the stack), capture in-process with
 *                                   libunwind, or none (default: usdt when a tracer is
 *                                   attached to the probe, else unwind)
 *   stack_rate=N                    launch stacks per second per thread (default 100)
 *   flush_ms=N                      flush period (default 500, at most 1000)
 *   mem_mb=N                        hard cap on the library's buffers (default 64)
 *   verbose=1                       print warnings to the host's stderr (default: only
 *                                   into the file, as ZG_INFO "warning" entries)
 */

struct zg_file_hdr {
	char magic[8];      /* ZG_MAGIC */
	uint32_t version;   /* ZG_VERSION */
	uint32_t hdr_size;  /* sizeof(struct zg_file_hdr); a reader skips what it does not know */
	uint32_t pid;
	uint32_t reserved;
	uint64_t start_ns;  /* CLOCK_MONOTONIC when the library started */
};

enum zg_type {
	ZG_INFO = 1,     /* strings: count key/value pairs, each "key\0value\0" (no fixed part) */
	ZG_KERNEL = 2,   /* struct zg_kernel + pool (names) */
	ZG_MEMOP = 3,    /* struct zg_memop */
	ZG_LAUNCH = 4,   /* struct zg_launch */
	ZG_STACK = 5,    /* count x { uint32 id, uint32 n, uint64 ips[n] } (no pool) */
	ZG_PCS = 6,      /* struct zg_pcs + pool (function names) */
	ZG_STALLS = 7,   /* struct zg_stall + pool (stall reason names) */
	ZG_CUBIN = 8,    /* count = 1: struct zg_cubin, then size bytes of the cubin (ELF) */
	ZG_COUNTERS = 9, /* count = 1: struct zg_counters, running totals (the last one wins) */
	ZG_OVERHEAD = 10,/* struct zg_overhead */
};

struct zg_frame_hdr {
	uint32_t type;  /* enum zg_type; unknown types are skipped */
	uint32_t len;   /* payload bytes, at most ZG_FRAME_MAX */
	uint32_t crc;   /* zlib crc32 (initial 0) of the payload */
	uint32_t count; /* records in the payload */
};

/* A kernel execution (CUpti_ActivityKernel10). Times on the CPU samples'
 * clock (CLOCK_MONOTONIC, through CUPTI's timestamp callback). */
struct zg_kernel {
	uint64_t start, end;         /* ns */
	uint64_t queued, submitted;  /* ns, 0 when CUPTI did not collect them */
	uint64_t graph_node_id;      /* 0 unless launched from a graph */
	uint32_t corr;               /* correlation id: the launch's */
	uint32_t device, context, stream;
	uint32_t graph_id;           /* 0 unless launched from a graph */
	uint32_t grid[3], block[3];
	uint32_t regs;               /* registers per thread */
	uint32_t smem_static, smem_dynamic; /* bytes per block */
	uint32_t local_mem;          /* local memory bytes per thread */
	uint32_t name_off, name_len; /* mangled name, in the pool */
	uint32_t reserved;
};

enum zg_memop_kind { ZG_MEMCPY = 1, ZG_MEMSET = 2 };

/* A memory copy (CUpti_ActivityMemcpy6) or set (CUpti_ActivityMemset4). */
struct zg_memop {
	uint64_t start, end, bytes;
	uint32_t corr, device, context, stream;
	uint8_t kind;                /* enum zg_memop_kind */
	uint8_t copy_kind;           /* CUpti_ActivityMemcpyKind (HtoD 1, DtoH 2, ... DtoD 8, PtoP 10) */
	uint8_t src_kind, dst_kind;  /* CUpti_ActivityMemoryKind (pageable 1, pinned 2, device 3, ...) */
	uint32_t value;              /* memset: the value */
	uint32_t graph_id;
	uint32_t reserved;
};

/* zg_launch.flags */
#define ZG_L_STACK 1       /* stack names a ZG_STACK (captured in-process) */
#define ZG_L_USDT 2        /* the probe zt:launch fired: the BPF sampler has the stack */
#define ZG_L_RATELIMITED 4 /* no stack: this thread was over its stack rate */
#define ZG_L_GRAPH 8       /* a graph launch (its kernels carry graph ids, not this corr) */
#define ZG_L_NESTED 16     /* an inner (driver) launch inside an outer (runtime) one:
			      outer_corr is the outer launch's correlation id */

/* A kernel or graph launch seen at CUPTI_API_ENTER. */
struct zg_launch {
	uint64_t ts;         /* ns */
	uint32_t tid;
	uint32_t corr;       /* this callback's correlation id */
	uint32_t outer_corr; /* ZG_L_NESTED: the outer launch's; else 0 */
	uint32_t cbid;       /* CUPTI callback id in its domain */
	uint32_t domain;     /* CUpti_CallbackDomain: 1 driver API, 2 runtime API */
	uint32_t flags;      /* ZG_L_* */
	uint32_t stack;      /* ZG_L_STACK: the ZG_STACK id (ids are per file) */
	uint32_t graph_id;   /* ZG_L_GRAPH: the graph's id, when known; else 0 */
};

/* A PC-sampling bucket: samples added since the previous drain. */
struct zg_pcs {
	uint64_t cubin_crc;
	uint64_t pc_offset;   /* from the start of the function's (kernel's) section */
	uint64_t samples;
	uint32_t function_index;
	uint32_t stall;       /* stall reason index (ZG_STALLS) */
	uint32_t corr;        /* serialized mode only; else 0 */
	uint32_t context;
	uint32_t name_off, name_len; /* function name, in the pool */
};

/* One entry of CUPTI's stall-reason table for a context. */
struct zg_stall {
	uint32_t context;
	uint32_t index;
	uint32_t name_off, name_len;
};

struct zg_cubin {
	uint64_t crc;        /* cuptiGetCubinCrc: what PC samples carry as cubin_crc */
	uint32_t module_id;
	uint32_t context;
	uint64_t size;       /* cubin bytes after this struct */
};

/* Running totals since the library started. */
struct zg_counters {
	uint64_t dropped_records;     /* cuptiActivityGetNumDroppedRecords, summed */
	uint64_t pc_total_samples;    /* totalSamples of every GetData */
	uint64_t pc_dropped_samples;  /* droppedSamples */
	uint64_t pc_nonuser_samples;  /* nonUsrKernelsTotalSamples */
	uint64_t pc_hw_buffer_full;   /* GetData calls that reported hardwareBufferFull */
	uint64_t launches;            /* launch callbacks seen (outermost) */
	uint64_t launch_stacks;       /* of which got a stack (in-process or USDT) */
	uint64_t launch_ratelimited;  /* of which were over the rate */
	uint64_t mem_dropped;         /* records dropped at the memory cap */
	uint64_t cubins;              /* distinct cubins written */
	uint64_t reserved[6];
};

/* CUpti_ActivityOverhead3: time CUPTI or the driver spent on its own work. */
struct zg_overhead {
	uint64_t start, end;
	uint32_t kind;         /* CUpti_ActivityOverheadKind */
	uint32_t object_kind;  /* CUpti_ActivityObjectKind */
	uint32_t object_id[2]; /* process/thread ids or device/context/stream, per object_kind */
};

_Static_assert(sizeof(struct zg_file_hdr) == 32, "zg_file_hdr");
_Static_assert(sizeof(struct zg_frame_hdr) == 16, "zg_frame_hdr");
_Static_assert(sizeof(struct zg_kernel) == 112, "zg_kernel");
_Static_assert(sizeof(struct zg_memop) == 56, "zg_memop");
_Static_assert(sizeof(struct zg_launch) == 40, "zg_launch");
_Static_assert(sizeof(struct zg_pcs) == 48, "zg_pcs");
_Static_assert(sizeof(struct zg_stall) == 16, "zg_stall");
_Static_assert(sizeof(struct zg_cubin) == 24, "zg_cubin");
_Static_assert(sizeof(struct zg_counters) == 128, "zg_counters");
_Static_assert(sizeof(struct zg_overhead) == 32, "zg_overhead");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "zt's GPU transport is little-endian only"
#endif

#endif
