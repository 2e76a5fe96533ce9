// SPDX-License-Identifier: GPL-2.0-or-later
/* Test workload that never runs: sleeps in pause() until killed. */
#include <unistd.h>

int main(void)
{
	for (;;)
		pause();
}
