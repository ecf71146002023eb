#include "sweep_mpi.hpp"

#include <cstdlib>
#include <stdexcept>

#ifdef ALLOCLAB_HAVE_MPI
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#endif

namespace alloclab::cli {

namespace {
int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : -1;
}
}  // namespace

MpiPlace mpi_place_from_environment() {
  MpiPlace p;
  // Open MPI sets OMPI_COMM_WORLD_*; PMIx launchers (Open MPI 5, Slurm) PMIX_RANK and
  // PMI_SIZE or OMPI_COMM_WORLD_SIZE.
  int size = env_int("OMPI_COMM_WORLD_SIZE");
  if (size < 0) size = env_int("PMI_SIZE");
  int rank = env_int("OMPI_COMM_WORLD_RANK");
  if (rank < 0) rank = env_int("PMIX_RANK");
  if (rank < 0) rank = env_int("PMI_RANK");
  if (size > 1 && rank >= 0 && rank < size) {
    p.rank = rank;
    p.size = size;
  }
  return p;
}

#ifndef ALLOCLAB_HAVE_MPI

bool built_with_mpi() {
  return false;
}
MpiSweep::MpiSweep() {
  throw std::logic_error("MpiSweep without MPI");
}
MpiSweep::~MpiSweep() = default;
nlohmann::json MpiSweep::metadata() {
  return {};
}
validation::SweepExecutor MpiSweep::executor(const std::vector<Scenario>&,
                                             const std::vector<validation::Backend>&) {
  return {};
}
void MpiSweep::serve(const std::vector<Scenario>&, const std::vector<validation::Backend>&) {}
void MpiSweep::abort(int exit_code) {
  std::exit(exit_code);
}

#else

namespace {

// Messages. A worker sends kReady once, then kResult (the job it finished, and its rows) or
// kError (what its job threw); rank 0 answers each with kJob (the next job's index) or kStop.
enum Tag : int { kReady = 1, kResult = 2, kError = 3, kJob = 4, kStop = 5 };

void send_text(int to, int tag, long long job, const std::string& text) {
  std::string message = std::to_string(job) + '\n' + text;
  MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

struct Received {
  int from = 0, tag = 0;
  long long job = -1;
  std::string text;
};
Received receive_text(const MPI_Status& probed) {
  int count = 0;
  MPI_Get_count(&probed, MPI_CHAR, &count);
  std::string message(static_cast<std::size_t>(count), '\0');
  MPI_Recv(message.data(), count, MPI_CHAR, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  Received r;
  r.from = probed.MPI_SOURCE;
  r.tag = probed.MPI_TAG;
  const auto nl = message.find('\n');
  r.job = std::atoll(message.substr(0, nl).c_str());
  if (nl != std::string::npos) r.text = message.substr(nl + 1);
  return r;
}

}  // namespace

bool built_with_mpi() {
  return true;
}

MpiSweep::MpiSweep() {
  int provided = 0;
  // Only the main thread calls MPI; rank 0's own jobs run on a second thread that does not.
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSweep::~MpiSweep() {
  if (finalize_) MPI_Finalize();
}

void MpiSweep::abort(int exit_code) {
  finalize_ = false;
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);
}

nlohmann::json MpiSweep::metadata() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
             0, MPI_COMM_WORLD);
  nlohmann::json hosts = nlohmann::json::array();
  std::set<std::string> distinct;
  for (int r = 0; r < size_; ++r) {
    const std::string host(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
    hosts.push_back(host);
    distinct.insert(host);
  }
  return {{"ranks", size_},
          {"hosts", distinct.size()},
          {"host_of_rank", hosts},
          {"dealing",
           "dynamic: a rank gets its next (point, backend) job when it reports one "
           "done; rank 0 runs jobs too and writes every row"}};
}

void MpiSweep::serve(const std::vector<Scenario>& points,
                     const std::vector<validation::Backend>& backends) {
  send_text(0, kReady, -1, "");
  while (true) {
    MPI_Status st;
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    const Received r = receive_text(st);
    if (r.tag == kStop) return;
    // The job's indices into points and backends: "point backend".
    const auto space = r.text.find(' ');
    const validation::SweepJob job{
        static_cast<std::size_t>(std::atoll(r.text.c_str())),
        static_cast<std::size_t>(std::atoll(r.text.c_str() + space + 1))};
    try {
      send_text(0, kResult, r.job, validation::sweep_job_lines(points, backends, job));
    } catch (const std::exception& e) {
      send_text(0, kError, r.job, e.what());
      return;
    }
  }
}

validation::SweepExecutor MpiSweep::executor(const std::vector<Scenario>& points,
                                             const std::vector<validation::Backend>& backends) {
  return [this, &points, &backends](const std::vector<validation::SweepJob>& jobs,
                                    const validation::SweepDone& done) {
    // Jobs are taken in order from `next`, by the workers' requests and by rank 0's own thread.
    std::atomic<std::size_t> next{0};
    std::mutex mutex;  // guards `local` and `local_error`
    std::deque<std::pair<std::size_t, std::string> > local;
    std::string local_error;
    std::atomic<bool> local_finished{false}, failed{false};
    std::thread own([&] {
      try {
        for (std::size_t i; !failed && (i = next.fetch_add(1)) < jobs.size();) {
          std::string lines = validation::sweep_job_lines(points, backends, jobs[i]);
          const std::lock_guard<std::mutex> lock(mutex);
          local.emplace_back(i, std::move(lines));
        }
      } catch (const std::exception& e) {
        const std::lock_guard<std::mutex> lock(mutex);
        local_error = e.what();
      }
      local_finished = true;
    });
    int working = size_ - 1;  // workers not yet told to stop
    std::string error;
    auto deal = [&](int to) {
      if (!error.empty()) failed = true;
      const std::size_t i = error.empty() ? next.fetch_add(1) : jobs.size();
      if (i >= jobs.size()) {
        send_text(to, kStop, -1, "");
        --working;
        return;
      }
      send_text(to, kJob, static_cast<long long>(i),
                std::to_string(jobs[i].point) + ' ' + std::to_string(jobs[i].backend));
    };
    while (working > 0 || !local_finished) {
      {
        std::deque<std::pair<std::size_t, std::string> > ready;
        {
          const std::lock_guard<std::mutex> lock(mutex);
          ready.swap(local);
          if (!local_error.empty() && error.empty()) {
            error = "rank 0: " + local_error;
            failed = true;
          }
        }
        for (const auto& [i, lines] : ready) done(i, lines);
      }
      int flag = 0;
      MPI_Status st;
      if (working > 0) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      const Received r = receive_text(st);
      if (r.tag == kResult) done(static_cast<std::size_t>(r.job), r.text);
      if (r.tag == kError) {
        if (error.empty()) error = "rank " + std::to_string(r.from) + ": " + r.text;
        failed = true;
        --working;  // it has stopped serving
        continue;
      }
      deal(r.from);
    }
    own.join();
    {
      const std::lock_guard<std::mutex> lock(mutex);
      for (const auto& [i, lines] : local) done(i, lines);
    }
    if (!error.empty()) throw std::runtime_error(error);
  };
}

#endif

}  // namespace alloclab::cli
