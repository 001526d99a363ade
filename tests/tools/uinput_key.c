/*
 * uinput_key — a virtual keyboard for the input-device tests: creates
 * it through /dev/uinput, prints the /dev/input/eventN node the kernel
 * made for it, then presses and releases KEY_A on every SIGUSR1 until
 * SIGTERM, or for at most 60 seconds.
 *	uinput_key
 */
#include <sys/ioctl.h>
#include <sys/time.h>

#include <err.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/uinput.h>

#define LIFETIME	60	/* seconds: a test that forgets us is bounded */

static volatile sig_atomic_t presses, stop;

static void
on_usr1(int sig)
{
	(void)sig;
	presses++;
}

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void
emit(int fd, unsigned short type, unsigned short code, int value)
{
	struct input_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.code = code;
	ev.value = value;
	if (write(fd, &ev, sizeof(ev)) != (ssize_t)sizeof(ev))
		err(1, "write /dev/uinput");
}

int
main(void)
{
	struct uinput_setup us;
	struct sigaction sa;
	char sysname[64], pat[PATH_MAX];
	glob_t g;
	time_t until = time(NULL) + LIFETIME;
	int fd, done = 0;

	if ((fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK)) == -1)
		err(1, "/dev/uinput");
	if (ioctl(fd, UI_SET_EVBIT, EV_KEY) == -1 ||
	    ioctl(fd, UI_SET_KEYBIT, KEY_A) == -1)
		err(1, "UI_SET_*BIT");
	memset(&us, 0, sizeof(us));
	us.id.bustype = BUS_VIRTUAL;
	strlcpy(us.name, "cilknow test keyboard", sizeof(us.name));
	if (ioctl(fd, UI_DEV_SETUP, &us) == -1 ||
	    ioctl(fd, UI_DEV_CREATE) == -1)
		err(1, "UI_DEV_SETUP/CREATE");
	if (ioctl(fd, UI_GET_SYSNAME(sizeof(sysname)), sysname) == -1)
		err(1, "UI_GET_SYSNAME");
	snprintf(pat, sizeof(pat), "/sys/devices/virtual/input/%s/event*",
	    sysname);
	/* the kernel may take a moment to make the event node */
	for (;;) {
		memset(&g, 0, sizeof(g));
		if (glob(pat, 0, NULL, &g) == 0)
			break;
		globfree(&g);
		if (time(NULL) >= until)
			errx(1, "no event node under %s", pat);
		usleep(50000);
	}
	printf("/dev/input/%s\n", strrchr(g.gl_pathv[0], '/') + 1);
	fflush(stdout);
	globfree(&g);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop && time(NULL) < until) {
		for (; done < presses; done++) {
			emit(fd, EV_KEY, KEY_A, 1);
			emit(fd, EV_SYN, SYN_REPORT, 0);
			emit(fd, EV_KEY, KEY_A, 0);
			emit(fd, EV_SYN, SYN_REPORT, 0);
		}
		usleep(20000);
	}
	(void)ioctl(fd, UI_DEV_DESTROY);
	close(fd);
	return 0;
}
