/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CUPTI layouts libztcupti.so reads, pinned to the CUDA 13 headers it
 * was written against (checked by hand there): a toolkit that moves a
 * field breaks the build here instead of filling records with garbage.
 * Every field glue.c reads is listed; records of other versions (older
 * CUpti_ActivityKernelN in cupti_activity_deprecated.h) are not read.
 * Included by glue.c only.
 */
#ifndef ZT_CUPTI_ABI_H
#define ZT_CUPTI_ABI_H

#include <stddef.h>

#include <cupti.h>
#include <cupti_pcsampling.h> /* cupti.h brings the generated *_params structs */

_Static_assert(sizeof(CUpti_Activity) == 8, "CUpti_Activity");
_Static_assert(offsetof(CUpti_Activity, kind) == 0, "CUpti_Activity.kind");
_Static_assert(sizeof(CUpti_ActivityKernel10) == 216, "CUpti_ActivityKernel10");
_Static_assert(offsetof(CUpti_ActivityKernel10, kind) == 0, "CUpti_ActivityKernel10.kind");
_Static_assert(offsetof(CUpti_ActivityKernel10, registersPerThread) == 6,
	       "CUpti_ActivityKernel10.registersPerThread");
_Static_assert(offsetof(CUpti_ActivityKernel10, start) == 16, "CUpti_ActivityKernel10.start");
_Static_assert(offsetof(CUpti_ActivityKernel10, end) == 24, "CUpti_ActivityKernel10.end");
_Static_assert(offsetof(CUpti_ActivityKernel10, deviceId) == 40, "CUpti_ActivityKernel10.deviceId");
_Static_assert(offsetof(CUpti_ActivityKernel10, contextId) == 44,
	       "CUpti_ActivityKernel10.contextId");
_Static_assert(offsetof(CUpti_ActivityKernel10, streamId) == 48, "CUpti_ActivityKernel10.streamId");
_Static_assert(offsetof(CUpti_ActivityKernel10, gridX) == 52, "CUpti_ActivityKernel10.gridX");
_Static_assert(offsetof(CUpti_ActivityKernel10, gridY) == 56, "CUpti_ActivityKernel10.gridY");
_Static_assert(offsetof(CUpti_ActivityKernel10, gridZ) == 60, "CUpti_ActivityKernel10.gridZ");
_Static_assert(offsetof(CUpti_ActivityKernel10, blockX) == 64, "CUpti_ActivityKernel10.blockX");
_Static_assert(offsetof(CUpti_ActivityKernel10, blockY) == 68, "CUpti_ActivityKernel10.blockY");
_Static_assert(offsetof(CUpti_ActivityKernel10, blockZ) == 72, "CUpti_ActivityKernel10.blockZ");
_Static_assert(offsetof(CUpti_ActivityKernel10, staticSharedMemory) == 76,
	       "CUpti_ActivityKernel10.staticSharedMemory");
_Static_assert(offsetof(CUpti_ActivityKernel10, dynamicSharedMemory) == 80,
	       "CUpti_ActivityKernel10.dynamicSharedMemory");
_Static_assert(offsetof(CUpti_ActivityKernel10, localMemoryPerThread) == 84,
	       "CUpti_ActivityKernel10.localMemoryPerThread");
_Static_assert(offsetof(CUpti_ActivityKernel10, correlationId) == 92,
	       "CUpti_ActivityKernel10.correlationId");
_Static_assert(offsetof(CUpti_ActivityKernel10, name) == 104, "CUpti_ActivityKernel10.name");
_Static_assert(offsetof(CUpti_ActivityKernel10, queued) == 120, "CUpti_ActivityKernel10.queued");
_Static_assert(offsetof(CUpti_ActivityKernel10, submitted) == 128,
	       "CUpti_ActivityKernel10.submitted");
_Static_assert(offsetof(CUpti_ActivityKernel10, graphNodeId) == 144,
	       "CUpti_ActivityKernel10.graphNodeId");
_Static_assert(offsetof(CUpti_ActivityKernel10, graphId) == 156, "CUpti_ActivityKernel10.graphId");
_Static_assert(sizeof(CUpti_ActivityMemcpy6) == 96, "CUpti_ActivityMemcpy6");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, copyKind) == 4, "CUpti_ActivityMemcpy6.copyKind");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, srcKind) == 5, "CUpti_ActivityMemcpy6.srcKind");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, dstKind) == 6, "CUpti_ActivityMemcpy6.dstKind");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, bytes) == 8, "CUpti_ActivityMemcpy6.bytes");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, start) == 16, "CUpti_ActivityMemcpy6.start");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, end) == 24, "CUpti_ActivityMemcpy6.end");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, deviceId) == 32, "CUpti_ActivityMemcpy6.deviceId");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, contextId) == 36, "CUpti_ActivityMemcpy6.contextId");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, streamId) == 40, "CUpti_ActivityMemcpy6.streamId");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, correlationId) == 44,
	       "CUpti_ActivityMemcpy6.correlationId");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, graphId) == 72, "CUpti_ActivityMemcpy6.graphId");
_Static_assert(sizeof(CUpti_ActivityMemset4) == 88, "CUpti_ActivityMemset4");
_Static_assert(offsetof(CUpti_ActivityMemset4, value) == 4, "CUpti_ActivityMemset4.value");
_Static_assert(offsetof(CUpti_ActivityMemset4, bytes) == 8, "CUpti_ActivityMemset4.bytes");
_Static_assert(offsetof(CUpti_ActivityMemset4, start) == 16, "CUpti_ActivityMemset4.start");
_Static_assert(offsetof(CUpti_ActivityMemset4, end) == 24, "CUpti_ActivityMemset4.end");
_Static_assert(offsetof(CUpti_ActivityMemset4, deviceId) == 32, "CUpti_ActivityMemset4.deviceId");
_Static_assert(offsetof(CUpti_ActivityMemset4, contextId) == 36, "CUpti_ActivityMemset4.contextId");
_Static_assert(offsetof(CUpti_ActivityMemset4, streamId) == 40, "CUpti_ActivityMemset4.streamId");
_Static_assert(offsetof(CUpti_ActivityMemset4, correlationId) == 44,
	       "CUpti_ActivityMemset4.correlationId");
_Static_assert(offsetof(CUpti_ActivityMemset4, memoryKind) == 50,
	       "CUpti_ActivityMemset4.memoryKind");
_Static_assert(offsetof(CUpti_ActivityMemset4, graphId) == 72, "CUpti_ActivityMemset4.graphId");
_Static_assert(sizeof(CUpti_ActivityOverhead3) == 56, "CUpti_ActivityOverhead3");
_Static_assert(offsetof(CUpti_ActivityOverhead3, overheadKind) == 4,
	       "CUpti_ActivityOverhead3.overheadKind");
_Static_assert(offsetof(CUpti_ActivityOverhead3, objectKind) == 8,
	       "CUpti_ActivityOverhead3.objectKind");
_Static_assert(offsetof(CUpti_ActivityOverhead3, objectId) == 12,
	       "CUpti_ActivityOverhead3.objectId");
_Static_assert(offsetof(CUpti_ActivityOverhead3, start) == 24, "CUpti_ActivityOverhead3.start");
_Static_assert(offsetof(CUpti_ActivityOverhead3, end) == 32, "CUpti_ActivityOverhead3.end");
_Static_assert(sizeof(CUpti_ActivityObjectKindId) == 12, "CUpti_ActivityObjectKindId");
_Static_assert(sizeof(CUpti_CallbackData) == 72, "CUpti_CallbackData");
_Static_assert(offsetof(CUpti_CallbackData, callbackSite) == 0, "CUpti_CallbackData.callbackSite");
_Static_assert(offsetof(CUpti_CallbackData, functionParams) == 16,
	       "CUpti_CallbackData.functionParams");
_Static_assert(offsetof(CUpti_CallbackData, context) == 40, "CUpti_CallbackData.context");
_Static_assert(offsetof(CUpti_CallbackData, correlationId) == 64,
	       "CUpti_CallbackData.correlationId");
_Static_assert(sizeof(CUpti_ResourceData) == 24, "CUpti_ResourceData");
_Static_assert(offsetof(CUpti_ResourceData, context) == 0, "CUpti_ResourceData.context");
_Static_assert(offsetof(CUpti_ResourceData, resourceDescriptor) == 16,
	       "CUpti_ResourceData.resourceDescriptor");
_Static_assert(sizeof(CUpti_ModuleResourceData) == 24, "CUpti_ModuleResourceData");
_Static_assert(offsetof(CUpti_ModuleResourceData, moduleId) == 0,
	       "CUpti_ModuleResourceData.moduleId");
_Static_assert(offsetof(CUpti_ModuleResourceData, cubinSize) == 8,
	       "CUpti_ModuleResourceData.cubinSize");
_Static_assert(offsetof(CUpti_ModuleResourceData, pCubin) == 16, "CUpti_ModuleResourceData.pCubin");
_Static_assert(sizeof(CUpti_GraphData) == 56, "CUpti_GraphData");
_Static_assert(offsetof(CUpti_GraphData, graph) == 0, "CUpti_GraphData.graph");
_Static_assert(offsetof(CUpti_GraphData, graphExec) == 48, "CUpti_GraphData.graphExec");
_Static_assert(sizeof(CUpti_PCSamplingData) == 80, "CUpti_PCSamplingData");
_Static_assert(offsetof(CUpti_PCSamplingData, collectNumPcs) == 8,
	       "CUpti_PCSamplingData.collectNumPcs");
_Static_assert(offsetof(CUpti_PCSamplingData, totalSamples) == 16,
	       "CUpti_PCSamplingData.totalSamples");
_Static_assert(offsetof(CUpti_PCSamplingData, droppedSamples) == 24,
	       "CUpti_PCSamplingData.droppedSamples");
_Static_assert(offsetof(CUpti_PCSamplingData, totalNumPcs) == 32,
	       "CUpti_PCSamplingData.totalNumPcs");
_Static_assert(offsetof(CUpti_PCSamplingData, remainingNumPcs) == 40,
	       "CUpti_PCSamplingData.remainingNumPcs");
_Static_assert(offsetof(CUpti_PCSamplingData, pPcData) == 56, "CUpti_PCSamplingData.pPcData");
_Static_assert(offsetof(CUpti_PCSamplingData, nonUsrKernelsTotalSamples) == 64,
	       "CUpti_PCSamplingData.nonUsrKernelsTotalSamples");
_Static_assert(offsetof(CUpti_PCSamplingData, hardwareBufferFull) == 72,
	       "CUpti_PCSamplingData.hardwareBufferFull");
_Static_assert(sizeof(CUpti_PCSamplingPCData) == 64, "CUpti_PCSamplingPCData");
_Static_assert(offsetof(CUpti_PCSamplingPCData, cubinCrc) == 8, "CUpti_PCSamplingPCData.cubinCrc");
_Static_assert(offsetof(CUpti_PCSamplingPCData, pcOffset) == 16, "CUpti_PCSamplingPCData.pcOffset");
_Static_assert(offsetof(CUpti_PCSamplingPCData, functionIndex) == 24,
	       "CUpti_PCSamplingPCData.functionIndex");
_Static_assert(offsetof(CUpti_PCSamplingPCData, functionName) == 32,
	       "CUpti_PCSamplingPCData.functionName");
_Static_assert(offsetof(CUpti_PCSamplingPCData, stallReasonCount) == 40,
	       "CUpti_PCSamplingPCData.stallReasonCount");
_Static_assert(offsetof(CUpti_PCSamplingPCData, stallReason) == 48,
	       "CUpti_PCSamplingPCData.stallReason");
_Static_assert(offsetof(CUpti_PCSamplingPCData, correlationId) == 56,
	       "CUpti_PCSamplingPCData.correlationId");
_Static_assert(sizeof(CUpti_PCSamplingStallReason) == 8, "CUpti_PCSamplingStallReason");
_Static_assert(offsetof(CUpti_PCSamplingStallReason, pcSamplingStallReasonIndex) == 0,
	       "CUpti_PCSamplingStallReason.pcSamplingStallReasonIndex");
_Static_assert(offsetof(CUpti_PCSamplingStallReason, samples) == 4,
	       "CUpti_PCSamplingStallReason.samples");
_Static_assert(sizeof(CUpti_SubscriberParams) == 32, "CUpti_SubscriberParams");

/* graph launches: the executable graph is the first parameter of all four */
_Static_assert(offsetof(cuGraphLaunch_params, hGraph) == 0, "cuGraphLaunch_params");
_Static_assert(offsetof(cuGraphLaunch_ptsz_params, hGraphExec) == 0, "cuGraphLaunch_ptsz_params");
_Static_assert(offsetof(cudaGraphLaunch_v10000_params, graphExec) == 0,
	       "cudaGraphLaunch_v10000_params");
_Static_assert(offsetof(cudaGraphLaunch_ptsz_v10000_params, graphExec) == 0,
	       "cudaGraphLaunch_ptsz_v10000_params");

/* a PC's stall reasons are read as uint32 {index, samples} pairs */
_Static_assert(sizeof(CUpti_PCSamplingStallReason) == 2 * sizeof(uint32_t), "stall pair");

#endif
