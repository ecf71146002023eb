#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace alloclab::testing {
namespace {

constexpr std::size_t kKeptBytes = std::size_t{1} << 20;

// Reads what is there; false at end of file.
bool drain(int fd, std::string& into) {
  char buffer[65536];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n <= 0) return n < 0 && errno == EINTR;
  if (into.size() < kKeptBytes)
    into.append(buffer, std::min(static_cast<std::size_t>(n), kKeptBytes - into.size()));
  return true;
}

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, const std::string& cwd,
                      double timeout_s) {
  int out_pipe[2], err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) throw std::runtime_error("pipe failed");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {  // the child: its own process group, so that a kill reaches what it starts
    ::setpgid(0, 0);
    const int null_in = ::open("/dev/null", O_RDONLY);
    ::dup2(null_in, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ChildResult r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  bool open[2] = {true, true};
  const auto deadline = start + std::chrono::duration<double>(timeout_s);
  while (open[0] || open[1]) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      break;
    }
    for (int i = 0; i < 2; ++i) fds[i].fd = open[i] ? (i ? err_pipe[0] : out_pipe[0]) : -1;
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i)
      if (open[i] && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        open[i] = drain(fds[i].fd, i ? r.err : r.out);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace alloclab::testing
