/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zt report --gpu's interactive views over the GPU report model: kernels,
 * a kernel's hot lines and device functions, its launch stacks. */
#ifndef ZT_REPORT_GPU_TUI_H
#define ZT_REPORT_GPU_TUI_H

#include "libprof/gpureport.h"
#include "libprof/rmodel.h"

struct report_gpu_tui_opts {
	struct rmodel_opts mo; /* what launches was last built with */
	const char *input;     /* file name, for the title */
};

/* Browse gr until the user quits; launches is the launch-site model
 * (gpureport_launches()), rebuilt here to show one kernel's launch
 * stacks. Restores the terminal on every way out. Returns an exit code
 * (0, or 1 after an error message). */
int report_gpu_tui(const struct gpureport *gr, struct rmodel *launches,
		   const struct report_gpu_tui_opts *o);

#endif
