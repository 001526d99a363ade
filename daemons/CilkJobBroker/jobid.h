/*
 * CilkJobBroker's last job id, kept in state_dir/broker/last_job: a
 * restarted broker goes on from it instead of from 1, so that it never
 * gives a job an id that logs and scripts already name another job by.
 */
#ifndef CILKJOBBROKER_JOBID_H
#define CILKJOBBROKER_JOBID_H

#include <limits.h>
#include <stdint.h>

#include "broker.h"
#include "dctx.h"

#define JOBID_FILE	"last_job"	/* in state_dir/broker */

struct jobid {
	char		 ji_path[PATH_MAX];
	uint32_t	 ji_saved;	/* the last id on disk */
};

/*
 * Reads the file into ji_saved (none: a first start, 0); the broker's
 * next id is ji_saved + 1.  -1 with err.
 */
int	jobid_init(struct jobid *, struct dctx *, char *err, size_t errlen);
/* Writes the last id given, if it grew; failures are logged. */
void	jobid_save(struct jobid *, const struct broker *);

#endif
