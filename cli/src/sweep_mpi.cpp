#include "sweep_mpi.hpp"

#include <cstdlib>
#include <stdexcept>

#include "alloclab/gpu/measure.hpp"
#include "alloclab/validation/backends.hpp"

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
int MpiSweep::place_gpus() {
  return -1;
}
int MpiSweep::ranks_with_gpu() const {
  return 0;
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
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& label : gpu_of_rank_)
    gpus.push_back(label.empty() ? nlohmann::json(nullptr) : nlohmann::json(label));
  return {{"ranks", size_},
          {"hosts", distinct.size()},
          {"host_of_rank", hosts},
          {"gpu_of_rank", gpus},
          {"dealing",
           "dynamic: a rank gets its next (point, backend) job when it reports one "
           "done; rank 0 runs jobs too and writes every row"}};
}

namespace {
// Every rank's text (at most `width` - 1 characters), gathered to every rank.
std::vector<std::string> all_gather_text(const std::string& mine, std::size_t width, int size) {
  std::vector<char> out(width * static_cast<std::size_t>(size)), in(width, '\0');
  mine.copy(in.data(), width - 1);
  MPI_Allgather(in.data(), static_cast<int>(width), MPI_CHAR, out.data(), static_cast<int>(width),
                MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> texts;
  for (int r = 0; r < size; ++r)
    texts.emplace_back(out.data() + width * static_cast<std::size_t>(r));
  return texts;
}
}  // namespace

int MpiSweep::place_gpus() {
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int local_rank = 0;
  MPI_Comm_rank(host, &local_rank);
  MPI_Comm_free(&host);
  const int count = gpu::device_count();
  int device = count > 0 ? local_rank % count : -1;
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  // One GPU is one (host, PCI bus id); the lowest rank that would use it keeps it.
  const std::string bus = device >= 0 ? gpu::pci_bus_id(device) : std::string();
  const auto physical = all_gather_text(bus.empty() ? "" : std::string(name) + "/" + bus,
                                        MPI_MAX_PROCESSOR_NAME + 64, size_);
  for (int r = 0; r < rank_ && device >= 0; ++r)
    if (physical[static_cast<std::size_t>(r)] == physical[static_cast<std::size_t>(rank_)])
      device = -1;
  std::string label;
  if (device >= 0) {
    gpu::use_device(device);
    label = validation::gpu_device_label();
  }
  gpu_of_rank_ = all_gather_text(label, 256, size_);
  return device;
}

int MpiSweep::ranks_with_gpu() const {
  int n = 0;
  for (const auto& label : gpu_of_rank_) n += !label.empty();
  return n;
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
                                    const validation::SweepStarted& started,
                                    const validation::SweepDone& done) {
    std::mutex mutex;  // guards `waiting`, `local` and `local_error`
    validation::SweepDealer waiting(jobs, backends);
    auto has_gpu = [this](int rank) {
      return gpu_of_rank_.empty() || !gpu_of_rank_[static_cast<std::size_t>(rank)].empty();
    };
    std::atomic<bool> failed{false};
    // The next job for `rank`, started; jobs.size() when none is left for it.
    auto take = [&](int rank) {
      std::optional<std::size_t> i;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!failed) i = waiting.take(has_gpu(rank));
      }
      if (!i) return jobs.size();
      started(*i);
      return *i;
    };
    std::deque<std::pair<std::size_t, std::string> > local;
    std::string local_error;
    std::atomic<bool> local_finished{false};
    std::thread own([&] {
      try {
        for (std::size_t i; (i = take(0)) < jobs.size();) {
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
      const std::size_t i = take(to);
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
