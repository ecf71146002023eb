// Runs an executable as a child process with a time bound, for end-to-end tests of `alloclab`:
// its stdout, stderr, exit status or signal, and whether it had to be killed.
#pragma once

#include <string>
#include <vector>

namespace alloclab::testing {

struct ChildResult {
  int exit_code = -1;      // where it exited
  int signal = 0;          // the signal that ended it (0: it exited)
  bool timed_out = false;  // killed (SIGKILL, with its process group) at the time bound
  double seconds = 0;
  std::string out, err;  // the first 1 MiB of each
};

// Runs `argv` (argv[0] the executable's path) in `cwd` with stdin from /dev/null; kills it and
// its process group after `timeout_s` seconds.
ChildResult run_child(const std::vector<std::string>& argv, const std::string& cwd,
                      double timeout_s);

}  // namespace alloclab::testing
