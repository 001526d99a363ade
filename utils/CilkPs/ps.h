/* CilkPs's parts. */
#ifndef CILKPS_H
#define CILKPS_H

#include "cli.h"
#include "proto.h"

/*
 * CilkPs -j: the task table of the job in row, from its job manager
 * (proto_tasks.h), printed as text or JSON.  An exit code of cli.h.
 */
int	ps_tasks(const struct cli_common *, const struct proto_job_row *row);

#endif
