/*
 * lpad_usage_test — what a worker used (lpad_usage.c): a cgroup's
 * cpu.stat and memory.peak, read from a folder that looks like one, and
 * the fallback to getrusage(RUSAGE_CHILDREN) of what we reaped.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contain.h"
#include "lpad.h"
#include "tap.h"

static char	dir[] = "/tmp/lpad_usage_test.XXXXXX";

static void
put(const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "w")) == NULL)
		abort();
	fputs(text, fp);
	fclose(fp);
}

static void
drop(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	(void)unlink(path);
}

static uint64_t
children_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) == -1)
		return 0;
	return (uint64_t)ru.ru_utime.tv_sec * 1000 +
	    (uint64_t)ru.ru_utime.tv_usec / 1000 +
	    (uint64_t)ru.ru_stime.tv_sec * 1000 +
	    (uint64_t)ru.ru_stime.tv_usec / 1000;
}

/* A child that uses ms of CPU and touches mb MiB; reaped. */
static int
burn(long ms, size_t mb)
{
	struct rusage ru;
	volatile char *p;
	pid_t pid;
	size_t i;
	int status;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		if ((p = malloc(mb << 20)) == NULL)
			_exit(1);
		for (i = 0; i < mb << 20; i += 4096)
			p[i] = 1;
		do {
			if (getrusage(RUSAGE_SELF, &ru) == -1)
				_exit(1);
		} while (ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec /
		    1000 + ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec /
		    1000 < ms);
		_exit(p[4096] == 1 ? 0 : 2);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	return 0;
}

static void
test_cgroup_files(void)
{
	struct lpad_usage u;
	uint64_t b;
	char text[128];

	put("cpu.stat", "usage_usec 2500999\nuser_usec 2000000\n"
	    "system_usec 500999\n");
	put("memory.peak", "104857600\n");
	lpad_usage_measure(dir, &u);
	ok(u.lu_cpu_ms == 2500 && u.lu_maxrss_kb == 102400 &&
	    u.lu_from == (LPAD_USAGE_CG_CPU | LPAD_USAGE_CG_MEM),
	    "a cgroup: cpu.stat usage_usec and memory.peak");
	lpad_usage_str(&u, text, sizeof(text));
	is_str(text, "CPU 2.50 s, peak 102400 KiB (cgroup)",
	    "... described for the log");
	ok(contain_mem_peak(dir, &b) == 0 && b == 104857600,
	    "contain_mem_peak reads memory.peak");
	errno = 0;
	ok(contain_mem_peak("", &b) == -1 && errno == ENOTSUP,
	    "contain_mem_peak: no cgroup, ENOTSUP");

	/* No memory controller: the memory from what we reaped. */
	drop("memory.peak");
	errno = 0;
	ok(contain_mem_peak(dir, &b) == -1 && errno == ENOENT,
	    "contain_mem_peak: no memory.peak, ENOENT");
	lpad_usage_measure(dir, &u);
	ok(u.lu_cpu_ms == 2500 && u.lu_maxrss_kb != LPAD_USAGE_NONE &&
	    u.lu_from == LPAD_USAGE_CG_CPU,
	    "no memory.peak: CPU from the cgroup, memory from rusage");
	put("memory.peak", "lots\n");
	ok(contain_mem_peak(dir, &b) == -1, "a malformed memory.peak refused");
	put("memory.peak", "12 34\n");
	ok(contain_mem_peak(dir, &b) == -1, "two numbers refused");
	put("memory.peak", "99999999999999999999999\n");
	ok(contain_mem_peak(dir, &b) == -1, "a number past 2^64 refused");
	lpad_usage_measure(dir, &u);
	ok(u.lu_from == LPAD_USAGE_CG_CPU && u.lu_maxrss_kb != LPAD_USAGE_NONE,
	    "a malformed memory.peak: memory from rusage");
	drop("memory.peak");
	drop("cpu.stat");
	lpad_usage_measure(dir, &u);
	ok(u.lu_from == 0 && u.lu_cpu_ms != LPAD_USAGE_NONE &&
	    u.lu_maxrss_kb != LPAD_USAGE_NONE,
	    "a cgroup with neither file: both from rusage");
}

static void
test_rusage(void)
{
	struct lpad_usage u0, u1;
	uint64_t before = children_ms();

	lpad_usage_measure("", &u0);
	ok(u0.lu_from == 0 && u0.lu_cpu_ms != LPAD_USAGE_NONE &&
	    u0.lu_cpu_ms + 20 >= before,
	    "no cgroup: getrusage of our children (%llu ms so far)",
	    (unsigned long long)u0.lu_cpu_ms);
	if (!ok(burn(300, 96) == 0, "a child used 0.3 s of CPU and 96 MiB"))
		return;
	lpad_usage_measure(NULL, &u1);
	ok(u1.lu_cpu_ms >= u0.lu_cpu_ms + 280,
	    "its CPU time is counted once reaped (%llu ms more)",
	    (unsigned long long)(u1.lu_cpu_ms - u0.lu_cpu_ms));
	ok(u1.lu_maxrss_kb >= 90 * 1024 && u1.lu_maxrss_kb < 8ULL << 20,
	    "its peak memory too (%llu KiB)",
	    (unsigned long long)u1.lu_maxrss_kb);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return tap_done();
	}
	test_cgroup_files();
	test_rusage();
	drop("cpu.stat");
	drop("memory.peak");
	rmdir(dir);
	return tap_done();
}
