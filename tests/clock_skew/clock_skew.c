// clock_skew: an LD_PRELOAD library that makes one process's clocks run at another rate (and its
// wall clock stand at an offset), for the fault suite's clock scenarios.
//
//   LD_PRELOAD=libtenure_clock_skew.so TENURE_CLOCK_RATE=0.95 TENURE_CLOCK_OFFSET=-300 prog
//
// Every clock (monotonic, boot time, wall) advances RATE seconds per real second from the moment
// the process started; the wall clock is also OFFSET seconds off. Timed waits are translated
// back, so a wait until a (skewed) deadline ends when the skewed clock reaches it: absolute
// deadlines of pthread_cond_clockwait / pthread_cond_timedwait / clock_nanosleep, and relative
// timeouts of nanosleep, poll, ppoll, epoll_wait and timerfd_settime. libfaketime (0.9.10) can
// skew the wall clock but not the monotonic one: with a rate it moves CLOCK_MONOTONIC to the
// wall clock's epoch and does not translate pthread_cond_clockwait, so a process's timed waits
// never end. Nothing here allocates memory (allocators call clock_gettime too).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec*);
typedef int (*clockwait_fn)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);
typedef int (*timedwait_fn)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*);
typedef int (*clock_nanosleep_fn)(clockid_t, int, const struct timespec*, struct timespec*);
typedef int (*nanosleep_fn)(const struct timespec*, struct timespec*);
typedef int (*poll_fn)(struct pollfd*, nfds_t, int);
typedef int (*ppoll_fn)(struct pollfd*, nfds_t, const struct timespec*, const sigset_t*);
typedef int (*epoll_wait_fn)(int, struct epoll_event*, int, int);
typedef int (*timerfd_settime_fn)(int, int, const struct itimerspec*, struct itimerspec*);
typedef int (*sem_clockwait_fn)(sem_t*, clockid_t, const struct timespec*);
typedef int (*sem_timedwait_fn)(sem_t*, const struct timespec*);

static double rate = 1.0;
static int64_t offset_ns = 0;
// Real readings of each clock at start: the skewed clock equals the real one there.
static int64_t start_mono, start_boot, start_wall, start_raw;
static clock_gettime_fn real_clock_gettime;
static int initialized;

static int64_t ToNs(const struct timespec* ts) { return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec; }
static struct timespec FromNs(int64_t ns) {
  struct timespec ts;
  if (ns < 0) ns = 0;
  ts.tv_sec = ns / 1000000000;
  ts.tv_nsec = ns % 1000000000;
  return ts;
}

static int64_t* StartOf(clockid_t clock, int64_t* offset) {
  *offset = 0;
  switch (clock) {
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_COARSE:
      return &start_mono;
    case CLOCK_MONOTONIC_RAW:
      return &start_raw;
    case CLOCK_BOOTTIME:
      return &start_boot;
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
      *offset = offset_ns;
      return &start_wall;
    default:
      return NULL;  // CPU-time clocks and others stay real
  }
}

static int64_t RealNow(clockid_t clock) {
  struct timespec ts;
  real_clock_gettime(clock, &ts);
  return ToNs(&ts);
}

// Runs as a constructor, or earlier from the first clock_gettime (another library's constructor,
// an allocator): once only, so the clocks never jump.
__attribute__((constructor)) static void Init(void) {
  if (initialized) return;
  initialized = 1;
  real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
  const char* r = getenv("TENURE_CLOCK_RATE");
  const char* o = getenv("TENURE_CLOCK_OFFSET");
  if (r != NULL && atof(r) > 0) rate = atof(r);
  if (o != NULL) offset_ns = (int64_t)(atof(o) * 1e9);
  start_mono = RealNow(CLOCK_MONOTONIC);
  start_raw = RealNow(CLOCK_MONOTONIC_RAW);
  start_boot = RealNow(CLOCK_BOOTTIME);
  start_wall = RealNow(CLOCK_REALTIME);
}

// Real -> skewed and back, for a clock that is skewed.
static int64_t Skew(int64_t start, int64_t offset, int64_t real) {
  return start + (int64_t)((double)(real - start) * rate) + offset;
}
static int64_t Unskew(int64_t start, int64_t offset, int64_t skewed) {
  return start + (int64_t)((double)(skewed - offset - start) / rate);
}
static int64_t RealDuration(int64_t skewed_ns) { return (int64_t)((double)skewed_ns / rate); }
static int RealMillis(int timeout_ms) {
  if (timeout_ms <= 0) return timeout_ms;
  double ms = (double)timeout_ms / rate;
  return ms > 2147483647.0 ? 2147483647 : (int)(ms + 0.999);
}

int clock_gettime(clockid_t clock, struct timespec* ts) {
  if (!initialized) Init();
  int rc = real_clock_gettime(clock, ts);
  int64_t offset;
  int64_t* start = StartOf(clock, &offset);
  if (rc == 0 && start != NULL) *ts = FromNs(Skew(*start, offset, ToNs(ts)));
  return rc;
}

int gettimeofday(struct timeval* tv, void* tz) {
  (void)tz;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = ts.tv_nsec / 1000;
  return 0;
}

time_t time(time_t* out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out != NULL) *out = ts.tv_sec;
  return ts.tv_sec;
}

// An absolute deadline on `clock` in skewed time, as the real clock's deadline.
static struct timespec RealDeadline(clockid_t clock, const struct timespec* skewed) {
  int64_t offset;
  int64_t* start = StartOf(clock, &offset);
  if (start == NULL) return *skewed;
  return FromNs(Unskew(*start, offset, ToNs(skewed)));
}

int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                           const struct timespec* abstime) {
  static clockwait_fn real;
  if (real == NULL) real = (clockwait_fn)dlsym(RTLD_NEXT, "pthread_cond_clockwait");
  struct timespec deadline = RealDeadline(clock, abstime);
  return real(cond, mutex, clock, &deadline);
}

// Without a clock attribute the condition variable counts on CLOCK_REALTIME (glibc's default;
// libstdc++ uses pthread_cond_clockwait for its steady clock).
int pthread_cond_timedwait(pthread_cond_t* cond, pthread_mutex_t* mutex,
                           const struct timespec* abstime) {
  static timedwait_fn real;
  if (real == NULL) real = (timedwait_fn)dlvsym(RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
  struct timespec deadline = RealDeadline(CLOCK_REALTIME, abstime);
  return real(cond, mutex, &deadline);
}

int sem_clockwait(sem_t* sem, clockid_t clock, const struct timespec* abstime) {
  static sem_clockwait_fn real;
  if (real == NULL) real = (sem_clockwait_fn)dlsym(RTLD_NEXT, "sem_clockwait");
  struct timespec deadline = RealDeadline(clock, abstime);
  return real(sem, clock, &deadline);
}

int sem_timedwait(sem_t* sem, const struct timespec* abstime) {
  static sem_timedwait_fn real;
  if (real == NULL) real = (sem_timedwait_fn)dlsym(RTLD_NEXT, "sem_timedwait");
  struct timespec deadline = RealDeadline(CLOCK_REALTIME, abstime);
  return real(sem, &deadline);
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec* request,
                    struct timespec* remain) {
  static clock_nanosleep_fn real;
  if (real == NULL) real = (clock_nanosleep_fn)dlsym(RTLD_NEXT, "clock_nanosleep");
  struct timespec t =
      (flags & TIMER_ABSTIME) ? RealDeadline(clock, request) : FromNs(RealDuration(ToNs(request)));
  return real(clock, flags, &t, remain);
}

int nanosleep(const struct timespec* request, struct timespec* remain) {
  static nanosleep_fn real;
  if (real == NULL) real = (nanosleep_fn)dlsym(RTLD_NEXT, "nanosleep");
  struct timespec t = FromNs(RealDuration(ToNs(request)));
  return real(&t, remain);
}

int poll(struct pollfd* fds, nfds_t n, int timeout_ms) {
  static poll_fn real;
  if (real == NULL) real = (poll_fn)dlsym(RTLD_NEXT, "poll");
  return real(fds, n, RealMillis(timeout_ms));
}

int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* timeout, const sigset_t* mask) {
  static ppoll_fn real;
  if (real == NULL) real = (ppoll_fn)dlsym(RTLD_NEXT, "ppoll");
  if (timeout == NULL) return real(fds, n, NULL, mask);
  struct timespec t = FromNs(RealDuration(ToNs(timeout)));
  return real(fds, n, &t, mask);
}

int epoll_wait(int fd, struct epoll_event* events, int max, int timeout_ms) {
  static epoll_wait_fn real;
  if (real == NULL) real = (epoll_wait_fn)dlsym(RTLD_NEXT, "epoll_wait");
  return real(fd, events, max, RealMillis(timeout_ms));
}

int timerfd_settime(int fd, int flags, const struct itimerspec* value, struct itimerspec* old) {
  static timerfd_settime_fn real;
  if (real == NULL) real = (timerfd_settime_fn)dlsym(RTLD_NEXT, "timerfd_settime");
  if (flags & TFD_TIMER_ABSTIME) return real(fd, flags, value, old);  // clock unknown here: left
  struct itimerspec t = *value;
  t.it_value = FromNs(RealDuration(ToNs(&value->it_value)));
  t.it_interval = FromNs(RealDuration(ToNs(&value->it_interval)));
  return real(fd, flags, &t, old);
}
