/*
 * lpad_usage — the CPU time and peak memory of a worker that has
 * exited (lpad.h): its cgroup's own count where there is one, else the
 * launch pad's getrusage(RUSAGE_CHILDREN), which holds every process
 * it reaped.  Called once all of them are reaped and before the cgroup
 * is removed; a figure neither source has stays LPAD_USAGE_NONE.
 */
#include "lpad.h"

#include <sys/resource.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "contain.h"
#include "log.h"

void
lpad_usage_measure(const char *cg, struct lpad_usage *u)
{
	struct rusage ru;
	uint64_t usec, bytes, ms;

	u->lu_cpu_ms = u->lu_maxrss_kb = LPAD_USAGE_NONE;
	u->lu_from = 0;
	if (cg != NULL && cg[0] != '\0') {
		if (contain_cpu_usec(cg, &usec) == 0) {
			u->lu_cpu_ms = usec / 1000;
			u->lu_from |= LPAD_USAGE_CG_CPU;
		} else
			log_debug("%s: %s/cpu.stat: %s", __func__, cg,
			    strerror(errno));
		if (contain_mem_peak(cg, &bytes) == 0) {
			u->lu_maxrss_kb = bytes / 1024;
			u->lu_from |= LPAD_USAGE_CG_MEM;
		} else
			log_debug("%s: %s/memory.peak: %s", __func__, cg,
			    strerror(errno));
	}
	if (u->lu_cpu_ms != LPAD_USAGE_NONE &&
	    u->lu_maxrss_kb != LPAD_USAGE_NONE)
		return;
	if (getrusage(RUSAGE_CHILDREN, &ru) == -1) {
		log_warn("%s: getrusage", __func__);
		return;
	}
	if (u->lu_cpu_ms == LPAD_USAGE_NONE) {
		ms = (uint64_t)ru.ru_utime.tv_sec * 1000 +
		    (uint64_t)ru.ru_utime.tv_usec / 1000 +
		    (uint64_t)ru.ru_stime.tv_sec * 1000 +
		    (uint64_t)ru.ru_stime.tv_usec / 1000;
		u->lu_cpu_ms = ms;
	}
	if (u->lu_maxrss_kb == LPAD_USAGE_NONE && ru.ru_maxrss >= 0)
		u->lu_maxrss_kb = (uint64_t)ru.ru_maxrss;	/* KiB */
}

const char *
lpad_usage_str(const struct lpad_usage *u, char *buf, size_t bufsz)
{
	char cpu[32], mem[32];

	if (u->lu_cpu_ms == LPAD_USAGE_NONE)
		snprintf(cpu, sizeof(cpu), "?");
	else
		snprintf(cpu, sizeof(cpu), "%llu.%02llu s",
		    (unsigned long long)(u->lu_cpu_ms / 1000),
		    (unsigned long long)(u->lu_cpu_ms % 1000 / 10));
	if (u->lu_maxrss_kb == LPAD_USAGE_NONE)
		snprintf(mem, sizeof(mem), "?");
	else
		snprintf(mem, sizeof(mem), "%llu KiB",
		    (unsigned long long)u->lu_maxrss_kb);
	snprintf(buf, bufsz, "CPU %s, peak %s (%s)", cpu, mem,
	    u->lu_from == (LPAD_USAGE_CG_CPU | LPAD_USAGE_CG_MEM) ? "cgroup" :
	    u->lu_from == 0 ? "rusage" : u->lu_from == LPAD_USAGE_CG_CPU ?
	    "cgroup CPU, rusage memory" : "cgroup memory, rusage CPU");
	return buf;
}
