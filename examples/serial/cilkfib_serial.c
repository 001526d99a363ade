/* cilkfib_serial — the serial twin of cilkfib: fib_serial. */
#include "fib_serial.c"
