#include "app/StopRequest.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "core/Error.hpp"

namespace kolmo::app {

namespace {

// A signal handler can only talk to the program through variables of static storage: this flag, the first
// signal's time and second_stop below are the only global state kolmo has, and only the handlers act on them.
volatile std::sig_atomic_t signals_seen = 0;

// One stop request often arrives twice within microseconds: GNU timeout signals kolmo (or mpiexec, which
// forwards each) and then its whole process group, and batch systems signal every process of a job step,
// mpiexec among them, which forwards its copy to the ranks as well. A second signal counts only this long
// after the first; one sooner is the same request, which must not cost the run its stop's checkpoint.
constexpr long long kSameRequestNs = 100'000'000;  // 0.1 s
std::atomic<long long> first_signal_ns{0};
static_assert(std::atomic<long long>::is_always_lock_free, "a signal handler may only use lock-free atomics");

// CLOCK_MONOTONIC's time (clock_gettime is async-signal-safe).
long long monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1'000'000'000LL + now.tv_nsec;
}

// What a second signal writes. The paths are set once (second_stop_directory), before any description, and
// never change after, so the handler reads them in place. The line changes every step
// (describe_second_stop): each goes into the slot the handler would not read, then `published` counts it
// (the newest is lines[published % 2]), so a handler that runs on another thread while the run describes
// the next step copies a whole one: it copies, and checks that `published` has not moved meanwhile.
struct SecondStop {
  using Line = char[1024];   // the line, with its newline
  bool speaks = false;       // rank 0, set before the handlers are installed
  bool located = false;      // status and temporary hold the run's paths
  char status[PATH_MAX];     // <directory>/status
  char temporary[PATH_MAX];  // <directory>/status.stop.tmp (not status.tmp, which the run itself writes)
  Line lines[2];
  std::atomic<unsigned long> published{0};
  std::atomic<bool> described{false};
};
static_assert(std::atomic<unsigned long>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "a signal handler may only read lock-free atomics");
SecondStop second_stop;

bool write_all(int fd, const char* bytes, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

// The newest description, copied whole into out; false when there is none (or it kept changing under the
// copy).
bool newest_description(SecondStop::Line& out) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (!second_stop.described.load(std::memory_order_acquire)) return false;
    const unsigned long before = second_stop.published.load(std::memory_order_acquire);
    std::memcpy(&out, &second_stop.lines[before % 2], sizeof out);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (second_stop.published.load(std::memory_order_relaxed) == before) return true;
  }
  return false;
}

// Async-signal-safe only: what the second signal did, on stderr and in the run's status.
void say_stopped_at_once() {
  if (!second_stop.speaks) return;
  static constexpr char prefix[] = "kolmo: ", plain[] = "kolmo: interrupted twice: stopped at once\n";
  SecondStop::Line line;
  if (!newest_description(line)) {
    write_all(STDERR_FILENO, plain, sizeof plain - 1);
    return;
  }
  const std::size_t length = std::strlen(line);
  write_all(STDERR_FILENO, prefix, sizeof prefix - 1);
  write_all(STDERR_FILENO, line, length);
  const int fd = ::open(second_stop.temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return;
  const bool written = write_all(fd, line, length);
  if (::close(fd) == 0 && written)
    ::rename(second_stop.temporary, second_stop.status);
  else
    ::unlink(second_stop.temporary);  // a status half written is never put in place
}

extern "C" void on_stop_signal(int signal) {
  const long long now = monotonic_ns();
  if (signals_seen > 0) {
    if (now - first_signal_ns.load() < kSameRequestNs) return;  // the first one's copy
    say_stopped_at_once();
    std::_Exit(128 + signal);
  }
  first_signal_ns.store(now);
  signals_seen = signals_seen + 1;
}

// The reader of the run's output went away (kolmo run | head): a stop as by the first Ctrl-C, but never the
// second's end at once, since every line printed after it raises SIGPIPE again (the writes then fail
// quietly).
extern "C" void on_broken_pipe(int) {
  if (signals_seen == 0) signals_seen = 1;  // first_signal_ns stays 0: a Ctrl-C after it is a second signal
}

// text into a buffer of size bytes with its terminating zero; false where it does not fit.
bool copy_text(char* buffer, std::size_t size, const std::string& text) {
  if (text.size() >= size) return false;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return true;
}

}  // namespace

void install_stop_handlers(MPI_Comm comm) {
  int rank = 0;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  second_stop.speaks = rank == 0;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGPIPE, on_broken_pipe);
}

bool stop_requested(MPI_Comm comm) {
  int local = signals_seen > 0 ? 1 : 0, any = 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm));
  return any != 0;
}

void second_stop_directory(const std::filesystem::path& directory) {
  if (!second_stop.speaks) return;
  const std::string status = (directory / "status").string(),
                    temporary = (directory / "status.stop.tmp").string();
  if (second_stop.located) {  // set once: a handler may be reading them
    KOLMO_REQUIRE(status == second_stop.status, "internal: the second signal's directory was set to " +
                                                    std::string(second_stop.status) + ", then to " + status);
    return;
  }
  second_stop.located = copy_text(second_stop.status, sizeof second_stop.status, status) &&
                        copy_text(second_stop.temporary, sizeof second_stop.temporary, temporary);
}

void describe_second_stop(const std::string& line) {
  if (!second_stop.speaks) return;
  // The slot the handler does not read: the newest is the other one.
  const unsigned long next = second_stop.published.load(std::memory_order_relaxed) + 1;
  SecondStop::Line& slot = second_stop.lines[next % 2];
  if (!second_stop.located || !copy_text(slot, sizeof slot, line + '\n')) {
    forget_second_stop();
    return;
  }
  second_stop.published.store(next, std::memory_order_release);
  second_stop.described.store(true, std::memory_order_release);
}

void forget_second_stop() {
  second_stop.described.store(false, std::memory_order_release);
}

}  // namespace kolmo::app
