/*
 * CilkNodeManager's privileged parent: keyboards and mice (DESIGN.md
 * §9: devices are the parent's; the engine, which reads the network,
 * never sees a keystroke).  The input devices named by the
 * input_devices key (a glob; by default /dev/input/event* with the
 * system sensors, none with a sensor file) are read from the parent's
 * event loop, never blocking it, and the engine is told only how many
 * devices are read and how long ago the last input was (INPUT): at
 * once when input comes after a quiet moment, so that a worker retreats
 * within the time it takes to signal it, and at most every
 * INPUT_EVERY seconds while it goes on.  Each measurement the engine
 * asks for (SENSE) looks for new devices first, and the time since
 * input is part of it (measure.c).  Any file that yields
 * struct input_event records works, so tests feed a FIFO.
 */
#include <errno.h>
#include <limits.h>
#include <glob.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mono.h"
#include "node.h"
#include "sensors.h"

#define INPUT_DEFAULT	"/dev/input/event*"
#define INPUT_EVERY	0.25	/* s between INPUTs while input goes on */

static void	on_input(struct evloop *, int, short, void *);

static double		 told_at = -1;	/* last INPUT sent */
static struct evtimer	*tell_timer;	/* a deferred INPUT */
static void		(*teller)(const struct nmpriv_msg *);	/* parent.c's */

/*
 * The last input, kept across restarts in STATE/last_input (wall-clock
 * seconds), so that a restarted node manager does not take opening the
 * devices for the owner's return and stop the worker it adopts.  Without
 * the file (a first start), opening counts as input: the owner may be
 * there.  Written at most once a second while input comes.
 */
static void
last_input_save(struct node *n)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 40];
	FILE *f;

	if (now_mono() - n->n_input_saved_at < 1)
		return;
	n->n_input_saved_at = now_mono();
	snprintf(path, sizeof(path), "%s/last_input", n->n_state_dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL) {
		log_warn("%s: %s", __func__, tmp);
		return;
	}
	fprintf(f, "%.3f\n", (double)now_real_ns() / 1e9);
	if (fclose(f) == EOF || rename(tmp, path) == -1)
		log_warn("%s: %s", __func__, path);
}

/* now_mono() of the last input before our start, or now if unknown. */
static double
last_input_before(const struct node *n)
{
	char path[PATH_MAX + 32];
	double when, ago, now = now_mono();
	FILE *f;
	int got;

	snprintf(path, sizeof(path), "%s/last_input", n->n_state_dir);
	if ((f = fopen(path, "r")) == NULL)
		return now;
	got = fscanf(f, "%lf", &when);
	fclose(f);
	ago = (double)now_real_ns() / 1e9 - when;
	if (got != 1 || !(ago >= 0) || ago > now)
		return now;
	return now - ago;
}

/* INPUT to the engine: the devices read, the time since input. */
void
node_input_tell(struct node *n)
{
	struct nmpriv_msg m;
	double idle = 0;
	size_t i;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_INPUT;
	for (i = 0; i < n->n_ninput; i++)
		if (n->n_input[i].ni_dev.inp_fd != -1)
			m.nm_devices++;
	if (node_input_idle(n, &idle))
		m.nm_idle_ms = (uint64_t)(idle * 1000);
	told_at = now_mono();
	if (teller != NULL)
		teller(&m);
}

void
node_input_teller(void (*tell)(const struct nmpriv_msg *))
{
	teller = tell;
}

static void
on_tell(struct evloop *loop, void *arg)
{
	(void)loop;
	tell_timer = NULL;
	node_input_tell(arg);
}

/* New input: told at once after a quiet moment, else a little later. */
static void
input_came(struct node *n)
{
	double since = now_mono() - told_at;

	if (tell_timer != NULL)
		return;
	if (told_at < 0 || since >= INPUT_EVERY) {
		node_input_tell(n);
		return;
	}
	if ((tell_timer = evloop_timer_add(n->n_dc.dc_loop, INPUT_EVERY -
	    since, on_tell, n)) == NULL)
		node_input_tell(n);
}

static struct node_input *
input_find(struct node *n, int fd)
{
	size_t i;

	for (i = 0; i < n->n_ninput; i++)
		if (n->n_input[i].ni_dev.inp_fd == fd)
			return &n->n_input[i];
	return NULL;
}

/*
 * A FIFO whose writer left reads end-of-file, and poll() would report
 * it for ever: open it again, which waits quietly for the next writer.
 * The time of the last input is kept.
 */
static void
input_reopen(struct node *n, struct node_input *ni)
{
	double last = ni->ni_dev.inp_last;

	(void)evloop_del_fd(n->n_dc.dc_loop, ni->ni_dev.inp_fd);
	sensors_input_close(&ni->ni_dev);
	if (sensors_input_open(&ni->ni_dev, ni->ni_path, last) == -1 ||
	    evloop_add_fd(n->n_dc.dc_loop, ni->ni_dev.inp_fd, POLLIN,
	    on_input, n) == -1) {
		log_warn("%s: %s", __func__, ni->ni_path);
		sensors_input_close(&ni->ni_dev);
	}
}

static void
on_input(struct evloop *loop, int fd, short revents, void *arg)
{
	struct node *n = arg;
	struct node_input *ni = input_find(n, fd);
	int nev;

	(void)loop;
	(void)revents;
	if (ni == NULL) {
		(void)evloop_del_fd(n->n_dc.dc_loop, fd);
		return;
	}
	if ((nev = sensors_input_read(&ni->ni_dev, now_mono())) == -1) {
		log_warn("%s: %s; no longer read", __func__, ni->ni_path);
		(void)evloop_del_fd(n->n_dc.dc_loop, fd);
		sensors_input_close(&ni->ni_dev);
		return;
	}
	if (ni->ni_dev.inp_eof)
		input_reopen(n, ni);
	if (nev > 0) {
		last_input_save(n);
		input_came(n);
	}
}

/* 1 if path is read already. */
static int
input_open_already(const struct node *n, const char *path)
{
	size_t i;

	for (i = 0; i < n->n_ninput; i++)
		if (n->n_input[i].ni_dev.inp_fd != -1 &&
		    strcmp(n->n_input[i].ni_path, path) == 0)
			return 1;
	return 0;
}

/* A slot for a new device: a closed one (unplugged), else a new one. */
static struct node_input *
input_slot(struct node *n)
{
	size_t i;

	for (i = 0; i < n->n_ninput; i++)
		if (n->n_input[i].ni_dev.inp_fd == -1)
			return &n->n_input[i];
	if (n->n_ninput == NODE_INPUT_MAX)
		return NULL;
	return &n->n_input[n->n_ninput++];
}

/*
 * Opens the devices the input_devices glob names that are not read yet.
 * Called at start and every idle poll, so a keyboard plugged in later
 * is read too; one that is unplugged fails its read and is closed.
 */
void
node_input_scan(struct node *n)
{
	const char *pat = conf_get(n->n_dc.dc_conf, "input_devices");
	struct node_input *ni;
	glob_t g;
	size_t i;
	int rc, first = !n->n_input_scanned;

	n->n_input_scanned = 1;
	if (pat[0] == '\0')
		pat = n->n_sensor_path[0] == '\0' ? INPUT_DEFAULT : "";
	if (pat[0] == '\0' || strcmp(pat, "none") == 0)
		return;
	memset(&g, 0, sizeof(g));
	if ((rc = glob(pat, 0, NULL, &g)) != 0) {
		if (rc != GLOB_NOMATCH)
			log_warnx("input_devices %s: cannot expand", pat);
		else if (first)
			log_info("input_devices %s: none yet; idleness from "
			    "terminals only", pat);
		globfree(&g);
		return;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		if (input_open_already(n, g.gl_pathv[i]))
			continue;
		if ((ni = input_slot(n)) == NULL)
			break;
		/* One plugged in later is the owner's doing: input now. */
		if (strlcpy(ni->ni_path, g.gl_pathv[i], sizeof(ni->ni_path)) >=
		    sizeof(ni->ni_path) || sensors_input_open(&ni->ni_dev,
		    ni->ni_path, first ? last_input_before(n) :
		    now_mono()) == -1) {
			/* not ours to read (permissions): the ttys remain */
			if (first)
				log_warning("input device %s: %s", g.gl_pathv[i],
				    strerror(errno));
			ni->ni_dev.inp_fd = -1;
			continue;
		}
		if (evloop_add_fd(n->n_dc.dc_loop, ni->ni_dev.inp_fd, POLLIN,
		    on_input, n) == -1) {
			log_warn("input device %s", ni->ni_path);
			sensors_input_close(&ni->ni_dev);
			continue;
		}
		log_info("reading input device %s", ni->ni_path);
	}
	globfree(&g);
}

/* The seconds since input on the devices read: 0 if none is read. */
int
node_input_idle(const struct node *n, double *idle)
{
	double now = now_mono(), d;
	size_t i;
	int any = 0;

	for (i = 0; i < n->n_ninput; i++) {
		if (n->n_input[i].ni_dev.inp_fd == -1)
			continue;
		d = sensors_input_idle(&n->n_input[i].ni_dev, now);
		if (!any || d < *idle)
			*idle = d;
		any = 1;
	}
	return any;
}

void
node_input_stop(struct node *n)
{
	size_t i;

	if (tell_timer != NULL)
		evloop_timer_cancel(n->n_dc.dc_loop, tell_timer);
	tell_timer = NULL;
	for (i = 0; i < n->n_ninput; i++)
		sensors_input_close(&n->n_input[i].ni_dev);
	n->n_ninput = 0;
}
