/*
 * CilkNodeManager: a task's stage-in, as stagein.c fetches it into its
 * spool and spool.c frees it (with its worker, whatever became of it).
 */
#ifndef CILKNODEMANAGER_STAGEIN_H
#define CILKNODEMANAGER_STAGEIN_H

#include "node.h"
#include "proto_stage.h"

struct stagein {
	struct node		*si_node;
	struct worker		*si_w;
	uint8_t			*si_desc;	/* as the job manager sent it */
	size_t			 si_desclen;
	struct stage_list	 si_list;
	uint16_t		 si_file;	/* being fetched */
	uint64_t		 si_base;	/* its start in the spool */
	struct stage_fetch	 si_f;
	crypto_generichash_state si_hash;
	int			 si_fd;
	char			 si_spool[NMPRIV_TAG_MAX + 1];
	struct evtimer		*si_timer;
	uint64_t		 si_got, si_got_seen;	/* chunks taken */
	double			 si_started;
	int			 si_refetch;	/* asking for a fresh description */
	int			 si_tries;	/* silences in a row */
};

/* The spool's path: name in the engine's stage folder. */
void	node_stagein_path(const struct node *, const char *name, char *buf,
	    size_t len);

#endif
