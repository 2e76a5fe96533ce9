/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zt script's lines for GPU records: perf script's header, then key=value fields. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/gpuscript.h"
#include "formats/perfscript.h"

__attribute__((format(printf, 2, 3))) static void put_f(struct zbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || zbuf_reserve(b, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* s with control characters as '?' (a name from a profiled process). */
static void put_clean(struct zbuf *b, const char *s)
{
	size_t n = strlen(s), i;

	if (zbuf_reserve(b, n))
		return;
	for (i = 0; i < n; i++)
		b->data[b->len + i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	b->len += n;
}

void gpuscript_header(struct zbuf *b, const struct gpuscript_fmt *f, const char *comm, uint32_t pid,
		      uint32_t tid, uint64_t ts)
{
	unsigned keep = PERFSCRIPT_F_COMM | PERFSCRIPT_F_TID | PERFSCRIPT_F_PID | PERFSCRIPT_F_TIME;
	struct perfscript_fmt pf = {.fields = f->fields & keep, .ns = f->ns, .event = ""};
	struct prof_sample smp = {.ts = ts, .pid = pid, .tid = tid};

	if (ts == GPUSCRIPT_NO_TIME)
		pf.fields &= ~(unsigned)PERFSCRIPT_F_TIME;
	if (zbuf_reserve(b, PERFSCRIPT_HEADER_ROOM + strlen(comm)))
		return;
	b->len += perfscript_header(&pf, &smp, comm, (char *)b->data + b->len);
}

/* " dur=12.345us" */
static void put_dur(struct zbuf *b, uint64_t start, uint64_t end)
{
	uint64_t d = end >= start ? end - start : 0;

	put_f(b, " dur=%llu.%03lluus", (unsigned long long)(d / 1000),
	      (unsigned long long)(d % 1000));
}

void gpuscript_kernel(struct zbuf *b, const struct prof_gpu_kernel *k, const char *name,
		      const char *note)
{
	put_f(b, "cuda:kernel: dev=%u ctx=%u stream=%u", k->device, k->context, k->stream);
	put_dur(b, k->start, k->end);
	put_f(b, " grid=%u,%u,%u block=%u,%u,%u regs=%u smem=%u+%u lmem=%u corr=%u", k->grid[0],
	      k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->regs,
	      k->smem_static, k->smem_dynamic, k->local_mem, k->corr);
	if (k->graph_id)
		put_f(b, " graph=%u node=%llu", k->graph_id, (unsigned long long)k->graph_node_id);
	if (note)
		put_f(b, " %s", note);
	put_f(b, " name=");
	put_clean(b, name);
	zbuf_put_u8(b, '\n');
}

const char *gpuscript_copy_kind(unsigned kind)
{
	static const char *const names[] = {NULL,   "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					    "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : NULL;
}

const char *gpuscript_mem_kind(unsigned kind)
{
	static const char *const names[] = {NULL,    "pageable", "pinned",	  "device",
					    "array", "managed",	 "device_static", "managed_static"};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : NULL;
}

/* " key=NAME", or " key=N" without a name */
static void put_kind(struct zbuf *b, const char *key, const char *name, unsigned v)
{
	if (name)
		put_f(b, " %s=%s", key, name);
	else
		put_f(b, " %s=%u", key, v);
}

void gpuscript_memop(struct zbuf *b, const struct prof_gpu_memop *m)
{
	uint64_t d = m->end >= m->start ? m->end - m->start : 0;

	if (m->kind == PROF_GPU_MEMCPY)
		put_f(b, "cuda:memcpy:");
	else if (m->kind == PROF_GPU_MEMSET)
		put_f(b, "cuda:memset:");
	else
		put_f(b, "cuda:memop: op=%u", m->kind);
	put_f(b, " dev=%u ctx=%u stream=%u", m->device, m->context, m->stream);
	put_dur(b, m->start, m->end);
	if (m->kind == PROF_GPU_MEMCPY) {
		put_kind(b, "kind", gpuscript_copy_kind(m->copy_kind), m->copy_kind);
		put_kind(b, "src", gpuscript_mem_kind(m->src_kind), m->src_kind);
		put_kind(b, "dst", gpuscript_mem_kind(m->dst_kind), m->dst_kind);
	} else {
		put_kind(b, "dst", gpuscript_mem_kind(m->dst_kind), m->dst_kind);
	}
	put_f(b, " bytes=%llu", (unsigned long long)m->bytes);
	if (m->kind == PROF_GPU_MEMSET)
		put_f(b, " value=%u", m->value);
	if (d) /* bytes per ns: GB/s */
		put_f(b, " rate=%.2fGB/s", (double)m->bytes / (double)d);
	put_f(b, " corr=%u", m->corr);
	if (m->graph_id)
		put_f(b, " graph=%u", m->graph_id);
	zbuf_put_u8(b, '\n');
}

void gpuscript_overhead(struct zbuf *b, const struct prof_gpu_overhead *o)
{
	/* CUpti_ActivityOverheadKind and CUpti_ActivityObjectKind */
	static const char *const objects[] = {NULL,	"process", "thread",
					      "device", "context", "stream"};
	/* CUDA 13's cupti_activity.h: 1, then n << 16 for n = 1..8 */
	static const char *const cupti_kinds[] = {
		NULL, "cupti_buffer_flush", "cupti_instrumentation", "cupti_resource",
		"runtime_triggered_module_loading", "lazy_function_loading", "command_buffer_full",
		"activity_buffer_request", "uvm_activity_init",
	};
	const char *kind = o->kind == 1 ? "driver_compiler"
			   : !(o->kind & 0xffff) && (o->kind >> 16) < 9 ? cupti_kinds[o->kind >> 16]
									 : NULL;

	put_f(b, "cuda:overhead:");
	put_kind(b, "kind", kind, o->kind);
	if (o->object_kind < sizeof(objects) / sizeof(objects[0]) && objects[o->object_kind])
		put_f(b, " object=%s:%u,%u", objects[o->object_kind], o->object_id[0],
		      o->object_id[1]);
	else
		put_f(b, " object=%u:%u,%u", o->object_kind, o->object_id[0], o->object_id[1]);
	put_dur(b, o->start, o->end);
	zbuf_put_u8(b, '\n');
}

void gpuscript_pcsample(struct zbuf *b, const struct gpu_pcsum *s, const char *function,
			const char *stall)
{
	put_f(b, "cuda:pcsample: cubin=0x%016llx pc=0x%llx stall=", (unsigned long long)s->crc,
	      (unsigned long long)s->pc);
	if (stall)
		put_clean(b, stall);
	else
		put_f(b, "stall_%u", s->stall);
	put_f(b, " samples=%llu function=", (unsigned long long)s->samples);
	put_clean(b, function);
	zbuf_put_u8(b, '\n');
}

void gpuscript_pcframes(struct zbuf *b, const struct gpu_pcsum *s, const struct gpu_frame *f,
			uint32_t n)
{
	char line[256];
	uint32_t i;

	for (i = 0; i < n; i++) {
		put_f(b, "\t%16llx ", (unsigned long long)s->pc);
		put_clean(b, f[i].func);
		put_f(b, " (");
		put_clean(b, gpu_frame_srcline(&f[i], line, sizeof(line)));
		put_f(b, ")%s\n", f[i].inlined ? " (inlined)" : "");
	}
}

void gpuscript_cubin(struct zbuf *b, const struct prof_gpu_cubin *c)
{
	put_f(b, "cuda:cubin: crc=0x%016llx size=%zu module=%u ctx=%u\n",
	      (unsigned long long)c->crc, c->len, c->module_id, c->context);
}

void gpuscript_counters(struct zbuf *b, const struct prof_gpu_counters *c)
{
	put_f(b,
	      "cuda:counters: launches=%llu launch_stacks=%llu launch_ratelimited=%llu "
	      "dropped_records=%llu mem_dropped=%llu pc_total_samples=%llu "
	      "pc_dropped_samples=%llu pc_nonuser_samples=%llu pc_hw_buffer_full=%llu "
	      "cubins=%llu\n",
	      (unsigned long long)c->launches, (unsigned long long)c->launch_stacks,
	      (unsigned long long)c->launch_ratelimited, (unsigned long long)c->dropped_records,
	      (unsigned long long)c->mem_dropped, (unsigned long long)c->pc_total_samples,
	      (unsigned long long)c->pc_dropped_samples, (unsigned long long)c->pc_nonuser_samples,
	      (unsigned long long)c->pc_hw_buffer_full, (unsigned long long)c->cubins);
}

void gpuscript_info(struct zbuf *b, const char *key, const char *value)
{
	if (!strcmp(key, "warning")) {
		put_f(b, "cuda:warning: ");
	} else {
		put_f(b, "cuda:info: ");
		put_clean(b, key);
		zbuf_put_u8(b, '=');
	}
	put_clean(b, value);
	zbuf_put_u8(b, '\n');
}
