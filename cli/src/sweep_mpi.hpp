// `mpirun -n K alloclab sweep ...`: the sweep's (point, backend) jobs dealt to K processes (MPI
// ranks) as they ask for work, so fast and slow points balance. Every rank builds the same grid
// and backends from the same arguments; rank 0 alone reads sweep.csv (resume), deals the jobs,
// runs jobs itself between its messages (on a second thread), writes every job's rows as they
// arrive and prints the progress; the other ranks only evaluate. A job's rows depend only on
// (seed, point, trial), so the file holds the rows of a one-process run, in another order.
//
// Built where CMake finds MPI (ALLOCLAB_HAVE_MPI); without it, or started without mpirun, the
// sweep runs in one process as before.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alloclab/validation/sweep.hpp"

namespace alloclab::cli {

// The rank and the number of ranks mpirun gave this process (Open MPI's and PMIx's environment
// variables), before MPI starts: {0, 1} when not started by mpirun.
struct MpiPlace {
  int rank = 0, size = 1;
  bool distributed() const { return size > 1; }
};
MpiPlace mpi_place_from_environment();

// Whether this build can run a sweep over MPI ranks.
bool built_with_mpi();

// A distributed sweep in this process: starts MPI (the constructor) and ends it (the destructor,
// MPI_Finalize, which waits for every rank; `abort` ends the whole job at once instead).
class MpiSweep {
 public:
  MpiSweep();
  ~MpiSweep();
  MpiSweep(const MpiSweep&) = delete;
  MpiSweep& operator=(const MpiSweep&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Gives each rank the GPU of its local rank (its number among the ranks of its host, from MPI's
  // shared-memory communicator): device `local rank` where the host has that many; where it has
  // fewer, device `local rank mod count`, unless a lower rank of the host already has that GPU
  // (the same PCI bus id), so that two ranks never time kernels on one GPU. A launcher that shows
  // each rank a GPU of its own (CUDA_VISIBLE_DEVICES per rank) gives each its device 0. Returns
  // this rank's device ordinal, -1 for none; collective: every rank calls it, once.
  int place_gpus();
  // After place_gpus: how many ranks have a GPU.
  int ranks_with_gpu() const;
  // The job's ranks and hosts (and after place_gpus, each rank's GPU), for sweep.json (rank 0;
  // collective: every rank calls it).
  nlohmann::json metadata();
  // Rank 0: the executor run_sweep calls. Other ranks: serve jobs until rank 0 says stop. Jobs of
  // a backend that needs a device go only to ranks place_gpus gave one.
  validation::SweepExecutor executor(const std::vector<Scenario>& points,
                                     const std::vector<validation::Backend>& backends);
  void serve(const std::vector<Scenario>& points, const std::vector<validation::Backend>& backends);
  // Ends the job after an error: every rank stops with `exit_code` (MPI_Abort).
  [[noreturn]] void abort(int exit_code);

 private:
  int rank_ = 0, size_ = 1;
  bool finalize_ = true;
  std::vector<std::string> gpu_of_rank_;  // device labels ("" none); empty before place_gpus
};

}  // namespace alloclab::cli
