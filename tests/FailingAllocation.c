/* One memory allocation that fails, in one process: for tests of a failure on some ranks only.
 *
 * Contract: preloaded (LD_PRELOAD) into the process of one rank, with KOLMO_TEST_FAIL_BYTES=B and
 * KOLMO_TEST_FAIL_AFTER_OPEN=S in its environment, this library makes malloc return NULL (so that operator
 * new throws std::bad_alloc) for the first request of exactly B bytes that comes after the process opened a
 * file whose path ends with S (open, open64 or openat, as MPI-IO and HDF5 open their files); it says so on
 * stderr in one line that starts with "[failing allocation]". Every other call is glibc's. Without both
 * variables it changes nothing. The tests give it to one rank of an MPMD launch
 * (tests/app/test_rank_failures.py): an allocation made after a file was opened by every rank stands for
 * memory that ran out on that rank alone.
 *
 * Not for builds with AddressSanitizer, whose own malloc this one would displace. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void* __libc_malloc(size_t size);

static long fail_bytes = -1;          /* B; -1: nothing to fail */
static const char* after_open = NULL; /* S */
static int armed = 0;                 /* the file was opened */
static int done = 0;                  /* the allocation failed once */
static int configured = 0;

static void configure(void) {
  if (configured) return;
  configured = 1;
  const char* bytes = getenv("KOLMO_TEST_FAIL_BYTES");
  after_open = getenv("KOLMO_TEST_FAIL_AFTER_OPEN");
  if (bytes != NULL && after_open != NULL && after_open[0] != '\0') fail_bytes = atol(bytes);
}

static void saw_open(const char* path) {
  configure();
  if (fail_bytes < 0 || armed || path == NULL) return;
  const size_t length = strlen(path), suffix = strlen(after_open);
  if (length >= suffix && strcmp(path + length - suffix, after_open) == 0) armed = 1;
}

void* malloc(size_t size) {
  if (armed && !done && (long)size == fail_bytes) {
    static const char message[] = "[failing allocation] malloc of KOLMO_TEST_FAIL_BYTES returns NULL\n";
    done = 1;
    (void)!write(STDERR_FILENO, message, sizeof message - 1);
    return NULL;
  }
  return __libc_malloc(size);
}

typedef int (*OpenFunction)(const char*, int, ...);
typedef int (*OpenAtFunction)(int, const char*, int, ...);

static mode_t mode_of(int flags, va_list arguments) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(arguments, int) : 0;
}

int open(const char* path, int flags, ...) {
  va_list arguments;
  va_start(arguments, flags);
  const mode_t mode = mode_of(flags, arguments);
  va_end(arguments);
  saw_open(path);
  static OpenFunction next = NULL;
  if (next == NULL) next = (OpenFunction)dlsym(RTLD_NEXT, "open");
  return next(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list arguments;
  va_start(arguments, flags);
  const mode_t mode = mode_of(flags, arguments);
  va_end(arguments);
  saw_open(path);
  static OpenFunction next = NULL;
  if (next == NULL) next = (OpenFunction)dlsym(RTLD_NEXT, "open64");
  return next(path, flags, mode);
}

int openat(int directory, const char* path, int flags, ...) {
  va_list arguments;
  va_start(arguments, flags);
  const mode_t mode = mode_of(flags, arguments);
  va_end(arguments);
  saw_open(path);
  static OpenAtFunction next = NULL;
  if (next == NULL) next = (OpenAtFunction)dlsym(RTLD_NEXT, "openat");
  return next(directory, path, flags, mode);
}
