/*
 * bigmem.h — big arrays in huge pages where the kernel lends them on
 * request (transparent huge pages in madvise mode): 512 times fewer
 * page faults than in 4 KiB pages.  A worker makes its program's input
 * before it can join the job, and on a virtual machine a page fault
 * may cost 16 us: 40 MB took 0.2 s in 4 KiB pages, 0.02 s in huge
 * ones.  Shared by the examples, their serial twins and the benchmark
 * twins, so that they all pay the same for memory.
 */
#ifndef CILKNOW_EXAMPLES_BIGMEM_H
#define CILKNOW_EXAMPLES_BIGMEM_H

#include <stdlib.h>
#include <sys/mman.h>

static inline void *
big_alloc(size_t len)
{
	size_t huge = (size_t)2 << 20;
	void *p;

	len = (len + huge - 1) / huge * huge;
	if (len == 0)
		len = huge;
	if (posix_memalign(&p, huge, len) != 0)
		return NULL;
	(void)madvise(p, len, MADV_HUGEPAGE);	/* advice: may be refused */
	return p;
}

#endif
