/* A wall clock off by LANTEST_CLOCK_OFFSET_S seconds, for lan-test's
 * clock-skew scenario: LD_PRELOAD this into a process and its
 * CLOCK_REALTIME (clock_gettime, gettimeofday, time) is shifted, as on a
 * machine whose clock is wrong. Monotonic and boot-time clocks, and so
 * every timer, stay true. libfaketime is not used because its timerfd
 * wrapper also shifts CLOCK_MONOTONIC/CLOCK_BOOTTIME timers (with
 * DONT_FAKE_MONOTONIC=1 too): under -1h a Swift Task.sleep lasts an hour
 * longer. Built by the harness with cc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static long long offset_ns(void) {
    static int read;
    static long long offset;
    if (!read) {
        const char *text = getenv("LANTEST_CLOCK_OFFSET_S");
        offset = text ? atoll(text) * 1000000000LL : 0;
        read = 1;
    }
    return offset;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    static clock_gettime_fn real;
    if (!real) real = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    int result = real(id, ts);
    if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + offset_ns();
        ts->tv_sec = ns / 1000000000LL;
        ts->tv_nsec = ns % 1000000000LL;
    }
    return result;
}

/* glibc declares tv nonnull, but the kernel allows NULL: keep the check. */
#pragma GCC diagnostic ignored "-Wnonnull-compare"
int gettimeofday(struct timeval *tv, void *tz) {
    (void)tz;
    struct timespec ts;
    int result = clock_gettime(CLOCK_REALTIME, &ts);
    if (result == 0 && tv) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return result;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}
