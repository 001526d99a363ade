/* CilkLocal stop and status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "local.h"

int
local_stop(struct local *lo)
{
	char path[PATH_MAX];
	int had = local_pids_read(lo) == 0;

	if (!had && local_path(lo, path, sizeof(path), "pids") == 0)
		printf("no %s: no daemons to stop; looking for launch pads "
		    "and workers\n", path);
	if (local_stop_all(lo, 0) == -1) {
		local_munge_stop(lo);
		fprintf(stderr, "CilkLocal: some processes are still alive; "
		    "%s/pids is kept\n", lo->lo_dir);
		return CLI_EXIT_FAILURE;
	}
	local_munge_stop(lo);
	if (local_pids_remove(lo) == -1)
		return CLI_EXIT_FAILURE;
	return CLI_EXIT_OK;
}

static void
print_json(const struct local *lo)
{
	const struct local_daemon *d;
	size_t i;

	printf("{\"schema\": 1, \"daemons\": [");
	for (i = 0; i < lo->lo_nd; i++) {
		d = &lo->lo_d[i];
		printf("%s{\"role\": ", i ? ", " : "");
		json_put_str(stdout, local_role_name(d->ld_role));
		printf(", \"pid\": %ld, \"address\": ", (long)d->ld_pid);
		json_put_str(stdout, d->ld_addr);
		printf(", \"alive\": %s, \"answers\": %s}",
		    d->ld_alive ? "true" : "false",
		    d->ld_answers ? "true" : "false");
	}
	printf("]}\n");
}

int
local_status(struct local *lo)
{
	const struct local_daemon *d;
	struct local_daemon *w;
	char ping[32], pids[PATH_MAX];
	size_t i, up = 0;

	if (local_pids_read(lo) == -1) {
		if (lo->lo_json)
			printf("{\"schema\": 1, \"daemons\": []}\n");
		else
			printf("no cluster runs in %s (no pids file)\n",
			    lo->lo_dir);
		return CLI_EXIT_FAILURE;
	}
	if (local_path(lo, pids, sizeof(pids), "pids") == -1)
		return CLI_EXIT_FAILURE;
	for (i = 0; i < lo->lo_nd; i++) {
		w = &lo->lo_d[i];
		w->ld_alive = local_proc_alive(w->ld_pid) &&
		    local_proc_started_before(w->ld_pid, pids) &&
		    local_proc_ours(lo, w->ld_pid, 0);
		w->ld_exited = !w->ld_alive;	/* no use pinging it */
	}
	(void)local_ping(lo, LOCAL_STATUS_WAIT, NULL, NULL);
	for (i = 0; i < lo->lo_nd; i++)
		if (lo->lo_d[i].ld_alive && lo->lo_d[i].ld_answers)
			up++;
	if (lo->lo_json) {
		print_json(lo);
		return up == lo->lo_nd && up > 0 ? CLI_EXIT_OK :
		    CLI_EXIT_FAILURE;
	}
	printf("%-6s %7s %-21s %-5s %s\n", "ROLE", "PID", "ADDRESS", "ALIVE",
	    "PING");
	for (i = 0; i < lo->lo_nd; i++) {
		d = &lo->lo_d[i];
		if (d->ld_answers)
			snprintf(ping, sizeof(ping), "%.1f ms",
			    d->ld_rtt * 1e3);
		else
			strlcpy(ping, d->ld_alive ? "no answer within 1 s" :
			    "-", sizeof(ping));
		printf("%-6s %7ld %-21s %-5s %s\n",
		    local_role_name(d->ld_role), (long)d->ld_pid, d->ld_addr,
		    d->ld_alive ? "yes" : "no", ping);
	}
	if (up == lo->lo_nd && up > 0) {
		printf("all %zu daemons are up\n", up);
		return CLI_EXIT_OK;
	}
	printf("%zu of %zu daemons are not up\n", lo->lo_nd - up, lo->lo_nd);
	return CLI_EXIT_FAILURE;
}
