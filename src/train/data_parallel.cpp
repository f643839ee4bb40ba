#include "train/data_parallel.h"

#include <cstdlib>

#include "common/input_error.h"

#ifdef GRAPHCOST_WITH_MPI
#include <mpi.h>
#endif

namespace graphcost {

namespace {

int g_ranks_started = 1;

#ifdef GRAPHCOST_WITH_MPI
// Started by mpirun (OpenMPI sets these); a plain run must not pay for, or print from, MPI_Init.
bool launched_by_mpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr; }

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}
#endif

}  // namespace

DataParallel::DataParallel() {
#ifndef GRAPHCOST_WITH_MPI
  // N copies of a build without MPI would each train alone and overwrite each other's model.
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size != nullptr && std::atoi(size) > 1) {
    throw InputError("", "mpirun", "a graphcost built with MPI (install libopenmpi-dev, then rebuild)", "one built without");
  }
#else
  if (!launched_by_mpirun()) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);  // MPI calls come from the main thread only
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  g_ranks_started = ranks_;
  std::atexit(finalize_at_exit);
#endif
}

DataParallel& DataParallel::world() {
  static DataParallel world;
  return world;
}

int DataParallel::ranks_started() { return g_ranks_started; }

bool DataParallel::built_with_mpi() {
#ifdef GRAPHCOST_WITH_MPI
  return true;
#else
  return false;
#endif
}

void DataParallel::sum(std::vector<double>& values) const {
#ifdef GRAPHCOST_WITH_MPI
  if (ranks_ > 1) MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#else
  (void)values;
#endif
}

void DataParallel::sum(std::vector<float>& values) const {
#ifdef GRAPHCOST_WITH_MPI
  if (ranks_ > 1) MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
#else
  (void)values;
#endif
}

bool DataParallel::broadcast(bool value) const {
#ifdef GRAPHCOST_WITH_MPI
  if (ranks_ > 1) {
    int flag = value ? 1 : 0;
    MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return flag != 0;
  }
#endif
  return value;
}

std::vector<std::string> DataParallel::gather(const std::string& text) const {
#ifdef GRAPHCOST_WITH_MPI
  if (ranks_ > 1) {
    int length = static_cast<int>(text.size());
    std::vector<int> lengths(static_cast<size_t>(ranks_));
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(static_cast<size_t>(ranks_), 0);
    int total = 0;
    for (int r = 0; r < ranks_; ++r) offsets[static_cast<size_t>(r)] = total, total += lengths[static_cast<size_t>(r)];
    std::string all(static_cast<size_t>(root() ? total : 0), '\0');
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> texts;
    if (root()) {
      for (int r = 0; r < ranks_; ++r)
        texts.push_back(
            all.substr(static_cast<size_t>(offsets[static_cast<size_t>(r)]), static_cast<size_t>(lengths[static_cast<size_t>(r)])));
    }
    return texts;
  }
#endif
  return {text};
}

void DataParallel::abort(int exit_code) const {
#ifdef GRAPHCOST_WITH_MPI
  if (ranks_ > 1) MPI_Abort(MPI_COMM_WORLD, exit_code);
#endif
  std::exit(exit_code);
}

}  // namespace graphcost
