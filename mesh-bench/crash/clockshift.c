// LD_PRELOAD shim for mesh-bench/crash (run.sh): the wall clock, read SHIFT_S seconds off.
// CLOCK_REALTIME (and gettimeofday/time) read SHIFT_S seconds off the real clock.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
static long long shift_ns(void) {
  static long long s = -1; static int done = 0;
  if (!done) { const char *e = getenv("SHIFT_S"); s = e ? (long long)(atof(e) * 1e9) : 0; done = 1; }
  return s;
}
int clock_gettime(clockid_t c, struct timespec *ts) {
  static int (*real)(clockid_t, struct timespec *) = 0;
  if (!real) real = dlsym(RTLD_NEXT, "clock_gettime");
  int r = real(c, ts);
  if (r == 0 && (c == CLOCK_REALTIME || c == CLOCK_REALTIME_COARSE)) {
    long long t = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + shift_ns();
    ts->tv_sec = t / 1000000000LL; ts->tv_nsec = t % 1000000000LL;
  }
  return r;
}
int gettimeofday(struct timeval *tv, void *tz) {
  struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
  if (tv) { tv->tv_sec = ts.tv_sec; tv->tv_usec = ts.tv_nsec / 1000; }
  return 0;
}
time_t time(time_t *t) { struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts); if (t) *t = ts.tv_sec; return ts.tv_sec; }
