// Errors caused by what a user asked for. The CLI prints what() as one line on stderr and exits 2;
// the message always names the offending parameter ("--N: ...").
#pragma once

#include <stdexcept>
#include <string>

namespace alloclab {

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& parameter, const std::string& problem)
      : std::runtime_error(parameter + ": " + problem), parameter_(parameter) {}
  const std::string& parameter() const noexcept { return parameter_; }

 private:
  std::string parameter_;
};

// A broken invariant of a run (a page handed out twice, pages not conserved): never a warning.
class VerificationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A validation that completed but found an unexplained disagreement: the verdict table has been
// printed; the CLI exits with status 1 and prints nothing more.
class ValidationFailed : public std::exception {
 public:
  const char* what() const noexcept override { return "validation found unexplained failures"; }
};

}  // namespace alloclab
