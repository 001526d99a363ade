/*
 * usage_burn CPU_MS MIB — a task of known usage, for CilkHist's CPU
 * and MAXRSS (tests/integration/1025-hist-usage.sh): touches every page
 * of MIB MiB, then spins until it has used CPU_MS of CPU time (user and
 * system), at most 300 s of wall time (a worker runs at nice 19: on a
 * loaded machine that is slow), and says what it used.
 */
#include <sys/resource.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long
used_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == -1)
		return -1;
	return ru.ru_utime.tv_sec * 1000L + ru.ru_utime.tv_usec / 1000 +
	    ru.ru_stime.tv_sec * 1000L + ru.ru_stime.tv_usec / 1000;
}

int
main(int argc, char **argv)
{
	volatile unsigned long spin = 0;
	volatile char *touch;
	char *mem = NULL, *end;
	long cpu_ms, mib, used;
	size_t i, len;
	time_t deadline;

	if (argc != 3) {
		fprintf(stderr, "usage: usage_burn CPU_MS MIB\n");
		return 2;
	}
	cpu_ms = strtol(argv[1], &end, 10);
	if (*end != '\0' || cpu_ms < 0 || cpu_ms > 60000)
		return 2;
	mib = strtol(argv[2], &end, 10);
	if (*end != '\0' || mib < 0 || mib > 4096)
		return 2;
	len = (size_t)mib << 20;
	if (len > 0) {
		if ((mem = malloc(len)) == NULL) {
			perror("usage_burn: malloc");
			return 1;
		}
		touch = mem;
		for (i = 0; i < len; i += 4096)
			touch[i] = 1;
	}
	deadline = time(NULL) + 300;
	while ((used = used_ms()) >= 0 && used < cpu_ms &&
	    time(NULL) < deadline)
		for (i = 0; i < 100000; i++)
			spin++;
	printf("used %ld ms of CPU, touched %ld MiB\n", used, mib);
	free(mem);
	return used >= cpu_ms ? 0 : 1;
}
