/* msg_kept — a message kept to be answered later (msg.h). */
#include "msg.h"

#include <string.h>

void
msg_keep(struct msg_kept *k, const struct msg_in *in)
{
	k->mk_in = *in;
	k->mk_hdr = *in->mi_hdr;
	strlcpy(k->mk_name, in->mi_name, sizeof(k->mk_name));
	k->mk_in.mi_hdr = &k->mk_hdr;
	k->mk_in.mi_name = k->mk_name;
	k->mk_in.mi_data = NULL;
}
