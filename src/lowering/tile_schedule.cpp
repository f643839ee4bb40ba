#include "lowering/tile_schedule.h"

#include <string>

#include "common/input_error.h"
#include "lowering/lowering_ops.h"
#include "lowering/run_lowered.h"

namespace graphcost {

namespace {

// A reduction computed per tile: stored, and its pure and update loops run, in C order (the last dimension
// innermost, vectorized), the update's reduction loops outside them, so a tile's accumulators stay
// in cache while the reduction streams past.
void schedule_reduction(Halide::Func& reduction, int lanes) {
  const int rank = reduction.dimensions();
  if (rank == 0) return;
  const std::vector<Halide::Var> v = lowering::index_vars(static_cast<size_t>(rank));
  std::vector<Halide::VarOrRVar> pure;
  for (int d = rank - 1; d >= 0; --d) pure.emplace_back(v[static_cast<size_t>(d)]);
  std::vector<Halide::Var> storage;  // C order too: the vectorized dimension is the dense one
  for (int d = rank - 1; d >= 0; --d) storage.push_back(v[static_cast<size_t>(d)]);
  if (rank >= 2) reduction.reorder_storage(storage);
  reduction.reorder(pure);
  // GuardWithIf: a tile narrower than a vector computes no more than the tile (rounding up would
  // read past the inputs' edges).
  reduction.vectorize(v[static_cast<size_t>(rank - 1)], lanes, Halide::TailStrategy::GuardWithIf);
  for (int stage = 0; stage < reduction.num_update_definitions(); ++stage) {
    std::vector<Halide::VarOrRVar> order = pure;
    for (const Halide::RVar& r : reduction.rvars(stage)) order.emplace_back(r);
    reduction.update(stage).reorder(order);
    reduction.update(stage).vectorize(v[static_cast<size_t>(rank - 1)], lanes, Halide::TailStrategy::GuardWithIf);
  }
}

}  // namespace

void schedule_tiles(LoweredComputation& lowered, const std::vector<int64_t>& tile) {
  if (lowered.outputs.empty()) throw InputError("tile schedule", "outputs", "one or more", "none");
  const HloShape& shape = lowered.output_shapes.front();
  const size_t rank = shape.dims.size();
  if (tile.size() != rank) {
    throw InputError("tile schedule", "tile", std::to_string(rank) + " sizes (the output's rank)", std::to_string(tile.size()));
  }
  for (size_t d = 0; d < rank; ++d) {
    if (tile[d] < 1 || tile[d] > shape.dims[d]) {
      throw InputError("tile schedule", "tile[" + std::to_string(d) + "]", "1 to " + std::to_string(shape.dims[d]),
                       std::to_string(tile[d]));
    }
  }
  Halide::Func output = lowered.outputs.front();
  std::vector<Halide::Func> per_tile = lowered.per_tile;
  const std::vector<Halide::Var> v = lowering::index_vars(rank);
  if (output.has_update_definition()) {  // the root is the reduction: a pure copy tiles it
    Halide::Func copy(output.name() + "_tiles");
    copy(v) = output(v);
    if (rank > 0) copy.output_buffer().dim(0).set_stride(Halide::Expr());
    per_tile.push_back(output);
    lowered.outputs.front() = copy;
    output = copy;
  }
  output.compute_root();
  // The measured buffers are dense in C order (run_lowered.h): the last dimension's stride is 1,
  // which the vector loads and stores need to know.
  for (Halide::ImageParam& parameter : lowered.parameters) {
    if (parameter.dimensions() > 0) parameter.dim(parameter.dimensions() - 1).set_stride(1);
  }
  if (rank == 0) return;
  output.output_buffer().dim(static_cast<int>(rank) - 1).set_stride(1);
  const int lanes = lowering_target().natural_vector_size(output.output_types().at(0));
  std::vector<Halide::VarOrRVar> inner, outer;
  for (size_t step = 0; step < rank; ++step) {  // C order: the last dimension innermost
    const size_t d = rank - 1 - step;
    if (tile[d] == shape.dims[d]) {
      inner.emplace_back(v[d]);
      continue;
    }
    const Halide::Var out(v[d].name() + "_tile"), in(v[d].name() + "_in_tile");
    output.split(v[d], out, in, static_cast<int>(tile[d]));
    inner.emplace_back(in);
    outer.emplace_back(out);
  }
  std::vector<Halide::VarOrRVar> order = inner;
  order.insert(order.end(), outer.begin(), outer.end());
  output.reorder(order);
  if (tile[rank - 1] >= lanes) output.vectorize(inner.front().var, lanes);
  for (Halide::Func& reduction : per_tile) {
    if (outer.empty()) {
      reduction.compute_root();
    } else {
      reduction.compute_at(output, outer.front().var);
    }
    schedule_reduction(reduction, lanes);
  }
}

}  // namespace graphcost
