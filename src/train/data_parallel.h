// DataParallel: the processes that train one model together, and the few collective operations
// data-parallel training needs. With MPI (`mpirun -np N graphcost train ...`; built when CMake finds
// OpenMPI, GRAPHCOST_WITH_MPI) every rank is one process; otherwise, and in a process not started
// by mpirun, there is one rank and every operation is the identity. No transport of our own.
//
// How training uses it (train/trainer.cpp): the training files are cut into `shards` (file i goes
// to shard i % shards, the files in order of their step rows, which rank 0 reads and sums to every
// rank, or in path order with --independent-graphs); rank r loads and samples only the shards s with
// s % ranks == r; each step every shard contributes one sampled graph, and the gradients are
// summed over ranks (allreduce) and divided by the shard count, so every rank applies the same
// update. Rank 0 alone validates, reports progress and writes checkpoints.
#pragma once

#include <string>
#include <vector>

namespace graphcost {

class DataParallel {
 public:
  // The world of this process: MPI's when it was started by mpirun (MPI initialised here, finalised
  // at exit), else a single rank.
  static DataParallel& world();
  static bool built_with_mpi();
  // The ranks of the world if it was set up, else 1; never throws (for error paths).
  static int ranks_started();

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  bool root() const { return rank_ == 0; }

  // Element-wise sums over all ranks, in place.
  void sum(std::vector<double>& values) const;
  void sum(std::vector<float>& values) const;
  // Rank 0's value, everywhere.
  bool broadcast(bool value) const;
  // Every rank's text, on rank 0 (in rank order; empty elsewhere).
  std::vector<std::string> gather(const std::string& text) const;
  // Ends every rank's process when one fails (MPI_Abort), after its message is printed.
  [[noreturn]] void abort(int exit_code) const;

 private:
  DataParallel();
  int rank_ = 0, ranks_ = 1;
};

}  // namespace graphcost
