// LayeredDrawing: a layered (Sugiyama-style) drawing of a dataflow graph, computed without GL so the
// browser app, tests and benchmarks share it. Iterative throughout (no recursion: 20k-node graphs
// must not overflow a stack), O((V + E) log V) per stage, with progress and cancellation:
//   1. stubs: producers with more than `stub_fanout` consumers (parameters, constants,
//      broadcasts) are detached: their out-edges do not constrain layers or order, and the app
//      draws a short stub at each consumer instead of long edges;
//   2. order + cycles: Kahn's algorithm with a stack (depth-first flavour, keeps chains together);
//      if it stalls on a cycle (malformed input) the lowest remaining node is forced and the edges
//      into it from later nodes are ignored (counted in `ignored_edges`);
//   3. layers: longest path from the sources, then a promotion pass: a node without producers
//      moves down to just above its first consumer (HLO parameters and constants otherwise all
//      pile up in layer 0, far from their use);
//   4. order within layers: `sweeps` barycenter sweeps (down by producers, up by consumers) on
//      positions normalised by layer width, so neighbours in any layer pull, not only adjacent ones;
//   5. coordinates: each node pulled towards the median x of its neighbours, order-preserving
//      left and right compactions averaged (in the spirit of Brandes-Koepf's balanced alignments,
//      not the full algorithm: no vertical blocks), then layers centred.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace graphcost {

struct DrawingOptions {
  int stub_fanout = 24;       // detach producers with more consumers than this (0: never)
  int sweeps = 4;             // barycenter sweeps (each: down then up)
  int coordinate_rounds = 4;  // median-pull rounds
  float node_width = 1.0f, node_height = 0.5f;
  float horizontal_gap = 0.25f, layer_gap = 1.0f;
};

struct LayeredDrawing {
  std::vector<int32_t> layer;     // per node, 0 = top
  std::vector<int32_t> position;  // index within its layer, left to right
  std::vector<float> x, y;        // node centre
  std::vector<uint8_t> stub;      // 1: detached high fan-out producer
  int32_t layer_count = 0;
  int64_t ignored_edges = 0;    // edges dropped to break cycles (0 for a DAG)
  float width = 0, height = 0;  // bounding box (x from 0, y from 0)
  bool cancelled = false;       // progress() asked to stop: the other fields are not filled
  bool stopped_early = false;   // LayeredDrawingJob::finish_early(): some sweeps/rounds were skipped
};

// `edges`: (producer, consumer) pairs over node ids 0..nodes-1 (out-of-range ids throw
// std::invalid_argument; self-loops and duplicates are allowed and ignored for layering).
// `progress(fraction, stage)` is called between stages and sweeps; returning false cancels.
using DrawingProgress = std::function<bool(double fraction, const char* stage)>;
LayeredDrawing draw_layered(int32_t nodes, const std::vector<std::pair<int32_t, int32_t>>& edges, const DrawingOptions& options = {},
                            const DrawingProgress& progress = nullptr);

// The same drawing a unit of work at a time, for callers that must not block (the browser app
// draws its progress bar between units). A unit is a stage (stubs, order, layers), one half of a
// barycenter sweep or one coordinate round: for the 21,918-node nlp graph about 10 units of 1-5 ms.
// Stepping to the end gives exactly draw_layered()'s result. finish_early() ends it now with the
// order and coordinates reached so far (the cheap stages up to layering still run: a drawing needs
// layers), so a user who stops a slow drawing still gets a drawable one.
class LayeredDrawingJob {
 public:
  // Checks the edges (std::invalid_argument as draw_layered) and copies them.
  LayeredDrawingJob(int32_t nodes, std::vector<std::pair<int32_t, int32_t>> edges, const DrawingOptions& options = {});
  ~LayeredDrawingJob();
  LayeredDrawingJob(const LayeredDrawingJob&) = delete;
  LayeredDrawingJob& operator=(const LayeredDrawingJob&) = delete;

  void step();  // one unit; nothing once done()
  bool done() const;
  double fraction() const;    // of the work, 0..1 (1 when done)
  const char* stage() const;  // what the next unit does ("done" when done)
  void finish_early();        // skip the remaining sweeps and coordinate rounds
  LayeredDrawing take();      // the result, once done() (the job is spent afterwards)

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace graphcost
