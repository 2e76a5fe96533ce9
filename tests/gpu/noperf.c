// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for the GPU checks: perf_event_open and bpf fail with
 * EPERM, as in a container whose seccomp filter refuses them, so that
 * zt record --gpu's GPU-only path can be tried on any machine.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	if (nr == SYS_perf_event_open || nr == SYS_bpf) {
		errno = EPERM;
		return -1;
	}
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	/* the raw system call (no recursion into this function) */
	long ret;
	register long r10 __asm__("r10") = a[3];
	register long r8 __asm__("r8") = a[4];
	register long r9 __asm__("r9") = a[5];
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}
