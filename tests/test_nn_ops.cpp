// Every differentiable op against central finite differences, and a small model end to end.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <tuple>

#include "nn/ops.h"
#include "nn/optimizer.h"
#include "nn/reference_ops.h"

using namespace graphcost::nn;

namespace {

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, std::mt19937_64& random, float low = -1, float high = 1) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    m.data()[i] = low + (high - low) * static_cast<float>(random() % 100000) / 100000.0f;
  }
  return m;
}

// Checks d(loss)/d(parameter) of `build` (which returns a scalar Var) against central differences
// for every entry of every parameter.
void check_gradients(std::vector<Parameter*> parameters, const std::function<Var(Tape&)>& build, float step = 1e-2f,
                     float tolerance = 3e-3f) {
  for (Parameter* p : parameters) p->zero_grad();
  {
    Tape tape;
    tape.backward(build(tape));
  }
  for (Parameter* p : parameters) {
    for (Eigen::Index i = 0; i < p->value.size(); ++i) {
      const float original = p->value.data()[i];
      auto loss_at = [&](float value) {
        p->value.data()[i] = value;
        Tape tape;
        return static_cast<double>(build(tape).value()(0, 0));
      };
      const double numeric = (loss_at(original + step) - loss_at(original - step)) / (2.0 * step);
      p->value.data()[i] = original;
      const double analytic = p->grad.data()[i];
      INFO(p->name << "[" << i << "]: analytic " << analytic << ", numeric " << numeric);
      CHECK(std::fabs(analytic - numeric) <= tolerance * std::max({1.0, std::fabs(analytic), std::fabs(numeric)}));
    }
  }
}

// A fixed random projection to a scalar, so every output entry matters.
Var project(Tape& tape, Var out, uint64_t seed = 99) {
  std::mt19937_64 random(seed);
  return reference::sum_all(mul(out, tape.constant(random_matrix(out.rows(), out.cols(), random))));
}

}  // namespace

TEST_CASE("dense ops match finite differences", "[nn]") {
  std::mt19937_64 random(1);
  Parameter a("a", random_matrix(4, 3, random)), b("b", random_matrix(3, 5, random)), bias("bias", random_matrix(1, 5, random));
  check_gradients({&a, &b, &bias}, [&](Tape& t) { return project(t, add_row(matmul(t.parameter(a), t.parameter(b)), t.parameter(bias))); });
  Parameter c("c", random_matrix(4, 3, random));
  check_gradients({&a, &c}, [&](Tape& t) { return project(t, mul(add(t.parameter(a), t.parameter(c)), t.parameter(c))); });
  check_gradients({&a}, [&](Tape& t) { return project(t, scale(t.parameter(a), -2.5f)); });
  check_gradients({&a, &c}, [&](Tape& t) { return project(t, concat_columns({t.parameter(a), t.parameter(c), t.parameter(a)})); });
}

TEST_CASE("activations match finite differences", "[nn]") {
  std::mt19937_64 random(2);
  Matrix values = random_matrix(3, 4, random, 0.1f, 1.0f);
  for (Eigen::Index i = 0; i < values.size(); i += 2) values.data()[i] *= -1;
  Parameter x("x", values);
  check_gradients({&x}, [&](Tape& t) { return project(t, gelu(t.parameter(x))); });
  check_gradients({&x}, [&](Tape& t) { return project(t, reference::tanh(t.parameter(x))); });
}

TEST_CASE("embedding, aggregation, pooling, norm and softmax match finite differences", "[nn]") {
  std::mt19937_64 random(3);
  Parameter table("table", random_matrix(5, 3, random));
  check_gradients({&table}, [&](Tape& t) { return project(t, embedding(t.parameter(table), {4, 0, 4, 2})); });

  // 4 nodes: 0 <- {1, 2}, 1 <- {2}, 2 <- {}, 3 <- {0, 1, 2}; two stacked blocks (configs).
  const Adjacency adjacency{4, {0, 2, 3, 3, 6}, {1, 2, 2, 0, 1, 2}};
  Parameter x("x", random_matrix(8, 3, random));
  for (Aggregation kind : {Aggregation::Sum, Aggregation::Mean}) {
    check_gradients({&x}, [&](Tape& t) { return project(t, reference::aggregate(t.parameter(x), adjacency, kind)); });
  }
  for (Pool kind : {Pool::Sum, Pool::Mean}) {
    check_gradients({&x}, [&](Tape& t) { return project(t, segment_pool(t.parameter(x), 4, kind)); });
  }
  Parameter gain("gain", random_matrix(1, 3, random, 0.5f, 1.5f)), bias("bias", random_matrix(1, 3, random));
  check_gradients({&x, &gain, &bias},
                  [&](Tape& t) { return project(t, reference::layer_norm(t.parameter(x), t.parameter(gain), t.parameter(bias))); });
  check_gradients({&x}, [&](Tape& t) { return project(t, group_softmax(t.parameter(x), 2)); });
  check_gradients({&x}, [&](Tape& t) { return project(t, slice_rows(t.parameter(x), 2, 5)); });
  Parameter factor("factor", random_matrix(1, 1, random, 0.5f, 1.5f));
  check_gradients({&x, &factor}, [&](Tape& t) { return project(t, scale_by(t.parameter(x), t.parameter(factor))); });
}

TEST_CASE("group softmax normalises across configurations", "[nn]") {
  std::mt19937_64 random(4);
  Tape tape;
  const Var y = group_softmax(tape.constant(random_matrix(6, 2, random, -30, 30)), 3);
  for (Eigen::Index i = 0; i < 2; ++i) {
    for (Eigen::Index c = 0; c < 2; ++c) CHECK(y.value()(i, c) + y.value()(2 + i, c) + y.value()(4 + i, c) == Approx(1.0f));
  }
}

TEST_CASE("ranking losses match finite differences and order correctly", "[nn]") {
  std::mt19937_64 random(5);
  const std::vector<double> runtimes = {3.0, 1.0, 2.0, 5.0, 4.0, 2.0};
  Parameter cost("cost", random_matrix(6, 1, random, -2, 2));
  check_gradients({&cost}, [&](Tape& t) { return listmle_loss(t.parameter(cost), runtimes); });
  check_gradients({&cost}, [&](Tape& t) { return mse_loss(t.parameter(cost), Matrix::Constant(6, 1, 0.5f)); });
  // The hinge is piecewise linear: check away from its kinks with a small step.
  check_gradients(
      {&cost}, [&](Tape& t) { return pairwise_hinge_loss(t.parameter(cost), runtimes, 0.37f); }, 1e-3f, 5e-3f);
  check_gradients(
      {&cost}, [&](Tape& t) { return gap_margin_hinge_loss(t.parameter(cost), runtimes); }, 1e-3f, 5e-3f);
  // A perfectly ordered cost has lower loss than the reverse order.
  Matrix good(6, 1), bad(6, 1);
  for (int i = 0; i < 6; ++i) {
    good(i, 0) = static_cast<float>(runtimes[static_cast<size_t>(i)]);
    bad(i, 0) = -static_cast<float>(runtimes[static_cast<size_t>(i)]);
  }
  Tape tape;
  CHECK(listmle_loss(tape.constant(good), runtimes).value()(0, 0) < listmle_loss(tape.constant(bad), runtimes).value()(0, 0));
  CHECK(pairwise_hinge_loss(tape.constant(good * 10), runtimes).value()(0, 0) == 0.0f);
  // The gap margin: costs equal to standardised log runtimes meet every margin exactly; halving
  // them leaves every ordered pair short by half its gap; equal runtimes give no pairs.
  Matrix standardised(6, 1);
  double mean = 0, variance = 0;
  for (double r : runtimes) mean += std::log(r) / 6;
  for (double r : runtimes) variance += (std::log(r) - mean) * (std::log(r) - mean) / 6;
  for (int i = 0; i < 6; ++i)
    standardised(i, 0) = static_cast<float>((std::log(runtimes[static_cast<size_t>(i)]) - mean) / std::sqrt(variance));
  CHECK(gap_margin_hinge_loss(tape.constant(standardised), runtimes).value()(0, 0) == Approx(0.0f).margin(1e-5));
  CHECK(gap_margin_hinge_loss(tape.constant(standardised * 0.5f), runtimes).value()(0, 0) > 0.1f);
  CHECK(gap_margin_hinge_loss(tape.constant(bad), std::vector<double>(6, 2.0)).value()(0, 0) == 0.0f);
  // ListMLE stays finite for huge costs.
  CHECK(std::isfinite(listmle_loss(tape.constant(good * 1e4f), runtimes).value()(0, 0)));
}

TEST_CASE("a two-layer model end to end matches finite differences", "[nn]") {
  std::mt19937_64 random(6);
  const Adjacency adjacency{5, {0, 0, 1, 2, 4, 5}, {0, 1, 1, 2, 3}};
  Parameter table("opcode_embedding", random_matrix(4, 3, random)), w1("w1", random_matrix(6, 4, random)),
      b1("b1", random_matrix(1, 4, random)), gain("gain", random_matrix(1, 4, random, 0.5f, 1.5f)),
      shift("shift", random_matrix(1, 4, random)), w2("w2", random_matrix(4, 1, random));
  const std::vector<int32_t> opcodes = {0, 1, 2, 3, 1, 0, 1, 2, 3, 1};  // two configs of 5 nodes
  const Matrix features = random_matrix(10, 3, random);
  const std::vector<double> runtimes = {2.0, 1.0};
  check_gradients({&table, &w1, &b1, &gain, &shift, &w2}, [&](Tape& t) {
    const Var h0 = concat_columns({embedding(t.parameter(table), opcodes), t.constant(features)});
    Var h = gelu(add_row(matmul(h0, t.parameter(w1)), t.parameter(b1)));
    h = reference::layer_norm(add(h, reference::aggregate(h, adjacency, Aggregation::Mean)), t.parameter(gain), t.parameter(shift));
    const Var graph = segment_pool(h, 5, Pool::Sum);
    return listmle_loss(matmul(graph, t.parameter(w2)), runtimes);
  });
}

TEST_CASE("Adam fits a linear ranking model; clipping and the schedule behave", "[nn][optimizer]") {
  std::mt19937_64 random(7);
  // Configs with 4 features; the true cost is a fixed linear function of them.
  const Matrix features = random_matrix(32, 4, random);
  Matrix truth(4, 1);
  truth << 1.5f, -2.0f, 0.5f, 3.0f;
  const Matrix true_cost = features * truth;
  std::vector<double> runtimes(32);
  for (int i = 0; i < 32; ++i) runtimes[static_cast<size_t>(i)] = true_cost(i, 0);
  Parameter w("w", Matrix::Zero(4, 1));
  Adam adam({&w}, AdamOptions{0.05f, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f});
  float first_loss = 0, last_loss = 0;
  for (int step = 0; step < 300; ++step) {
    Tape tape;
    const Var loss = listmle_loss(matmul(tape.constant(features), tape.parameter(w)), runtimes);
    if (step == 0) first_loss = loss.value()(0, 0);
    last_loss = loss.value()(0, 0);
    tape.backward(loss);
    adam.step(cosine_schedule(step, 300, 20, 0.1f));
  }
  CHECK(last_loss < 0.5f * first_loss);
  // The learned direction ranks like the truth: positive correlation with the true weights.
  CHECK(w.value.col(0).dot(truth.col(0)) / (w.value.norm() * truth.norm()) > 0.9f);

  Parameter big("big", Matrix::Zero(1, 1));
  big.grad(0, 0) = 100.0f;
  Adam clipped({&big}, AdamOptions{0.1f, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f});
  CHECK(clipped.step() == Approx(100.0f));
  CHECK(big.grad(0, 0) == 0.0f);  // zeroed after the step
  CHECK(cosine_schedule(0, 100, 10) == Approx(0.1f));
  CHECK(cosine_schedule(10, 100, 10) == Approx(1.0f));
  CHECK(cosine_schedule(100, 100, 10, 0.05f) == Approx(0.05f));
}

TEST_CASE("row scatter, repeat and reshape match finite differences", "[nn]") {
  std::mt19937_64 random(8);
  Parameter x("x", random_matrix(3, 4, random));
  check_gradients({&x}, [&](Tape& t) { return project(t, reference::scatter_rows(t.parameter(x), {4, 0, 4}, 6)); });
  check_gradients({&x}, [&](Tape& t) { return project(t, repeat_rows(t.parameter(x), 3)); });
  check_gradients({&x}, [&](Tape& t) { return project(t, reshape(t.parameter(x), 2, 6)); });
  Tape tape;
  const Var r = reshape(tape.constant(x.value), 6, 2);
  CHECK(r.value()(1, 0) == x.value(0, 2));
}

namespace {

// Each case: a fused op (Build) and the composition of elementary ops it replaces, over the given
// parameters. The fused one matches finite differences; values and every gradient agree.
using Build = std::function<Var(Tape&)>;
using FusedCase = std::tuple<const char*, std::vector<Parameter*>, Build, Build>;

void check_fused_cases(const std::vector<FusedCase>& cases) {
  for (const auto& [name, parameters, fused, composed] : cases) {
    INFO(name);
    check_gradients(parameters, [&](Tape& t) { return project(t, fused(t)); });
    // Values and every gradient agree with the composition of elementary ops.
    std::vector<Matrix> fused_grads;
    Matrix fused_value;
    for (const Build* build : {&fused, &composed}) {
      for (Parameter* p : parameters) p->zero_grad();
      Tape tape;
      const Var out = (*build)(tape);
      tape.backward(project(tape, out));
      if (build == &fused) {
        fused_value = out.value();
        for (Parameter* p : parameters) fused_grads.push_back(p->grad);
        continue;
      }
      CHECK((out.value() - fused_value).cwiseAbs().maxCoeff() <= 1e-5f);
      for (size_t k = 0; k < parameters.size(); ++k) {
        INFO(parameters[k]->name);
        CHECK((parameters[k]->grad - fused_grads[k]).cwiseAbs().maxCoeff() <= 1e-5f);
      }
    }
  }
}

}  // namespace

TEST_CASE("fused layer ops equal their compositions and match finite differences", "[nn]") {
  std::mt19937_64 random(8);
  // 4 nodes: producers 0 <- {1, 2}, 1 <- {2}, 2 <- {}, 3 <- {0, 1, 2}; consumers the reverse.
  const Adjacency producers{4, {0, 2, 3, 3, 6}, {1, 2, 2, 0, 1, 2}};
  const Adjacency consumers{4, {0, 1, 3, 6, 6}, {3, 0, 3, 0, 1, 3}};
  Parameter x("x", random_matrix(8, 3, random)), update("update", random_matrix(8, 3, random, -3, 3));
  Parameter w_self("w_self", random_matrix(3, 3, random)), w_producers("w_producers", random_matrix(3, 3, random)),
      w_consumers("w_consumers", random_matrix(3, 3, random)), bias("bias", random_matrix(1, 3, random));
  Parameter gain("gain", random_matrix(1, 3, random, 0.5f, 1.5f)), shift("shift", random_matrix(1, 3, random));
  Parameter shared("shared", random_matrix(4, 3, random)), sparse("sparse", random_matrix(3, 3, random));
  // For max: values at least 0.1 apart, so finite differences never cross a tie between neighbours.
  Matrix spread(8, 3);
  for (Eigen::Index i = 0; i < spread.size(); ++i) spread.data()[i] = -1.2f + 0.1f * static_cast<float>((i * 7) % spread.size());
  Parameter x_max("x_max", spread);
  const std::vector<int32_t> rows = {5, 0, 5};  // row 5 twice: both add
  // 3 rows over the 8 of x: row 0 reads x[1] and producers x[3], x[4], consumer x[2]; row 1 reads
  // x[0] and no neighbours; row 2 reads x[7], producer x[0], consumers x[5], x[6] (x[0] twice over).
  const auto sources = std::make_shared<RowSources>(RowSources{{1, 0, 7}, {3, {0, 2, 2, 3}, {3, 4, 0}}, {3, {0, 1, 1, 3}, {2, 5, 6}}});
  Matrix producer_means = Matrix::Zero(3, 8), consumer_means = Matrix::Zero(3, 8);
  producer_means(0, 3) = producer_means(0, 4) = 0.5f;
  producer_means(2, 0) = 1.0f;
  consumer_means(0, 2) = 1.0f;
  consumer_means(2, 5) = consumer_means(2, 6) = 0.5f;
  const std::vector<int32_t> picked = {7, 0, 0, 1, 2, 3, 3, 5};  // x's row under each update row
  const std::vector<FusedCase> cases = {
      {"gelu_of_shared_and_sparse",
       {&shared, &sparse, &bias},
       [&](Tape& t) { return gelu_of_shared_and_sparse(t.parameter(shared), 2, t.parameter(sparse), rows, t.parameter(bias)); },
       [&](Tape& t) {
         return gelu(
             add_row(add(repeat_rows(t.parameter(shared), 2), reference::scatter_rows(t.parameter(sparse), rows, 8)), t.parameter(bias)));
       }},
      {"sage_message",
       {&x, &w_self, &w_producers, &w_consumers, &bias},
       [&](Tape& t) {
         return sage_message(t.parameter(x), producers, consumers, Aggregation::Mean, t.parameter(w_self), t.parameter(w_producers),
                             t.parameter(w_consumers), t.parameter(bias));
       },
       [&](Tape& t) {
         const Var h = t.parameter(x);
         const Var message = add(
             add(matmul(h, t.parameter(w_self)), matmul(reference::aggregate(h, producers, Aggregation::Mean), t.parameter(w_producers))),
             matmul(reference::aggregate(h, consumers, Aggregation::Mean), t.parameter(w_consumers)));
         return gelu(add_row(message, t.parameter(bias)));
       }},
      {"sage_message, max aggregation",
       {&x_max, &w_self, &w_producers, &w_consumers, &bias},
       [&](Tape& t) {
         return sage_message(t.parameter(x_max), producers, consumers, Aggregation::Max, t.parameter(w_self), t.parameter(w_producers),
                             t.parameter(w_consumers), t.parameter(bias));
       },
       [&](Tape& t) {
         const Var h = t.parameter(x_max);
         const Var message = add(
             add(matmul(h, t.parameter(w_self)), matmul(reference::aggregate(h, producers, Aggregation::Max), t.parameter(w_producers))),
             matmul(reference::aggregate(h, consumers, Aggregation::Max), t.parameter(w_consumers)));
         return gelu(add_row(message, t.parameter(bias)));
       }},
      {"sage_message, sum aggregation",
       {&x, &w_self, &w_producers, &w_consumers, &bias},
       [&](Tape& t) {
         return sage_message(t.parameter(x), producers, consumers, Aggregation::Sum, t.parameter(w_self), t.parameter(w_producers),
                             t.parameter(w_consumers), t.parameter(bias));
       },
       [&](Tape& t) {
         const Var h = t.parameter(x);
         const Var message = add(
             add(matmul(h, t.parameter(w_self)), matmul(reference::aggregate(h, producers, Aggregation::Sum), t.parameter(w_producers))),
             matmul(reference::aggregate(h, consumers, Aggregation::Sum), t.parameter(w_consumers)));
         return gelu(add_row(message, t.parameter(bias)));
       }},
      {"add_layer_norm",
       {&x, &update, &gain, &shift},
       [&](Tape& t) { return add_layer_norm(t.parameter(x), t.parameter(update), t.parameter(gain), t.parameter(shift)); },
       [&](Tape& t) { return add(t.parameter(x), reference::layer_norm(t.parameter(update), t.parameter(gain), t.parameter(shift))); }},
      // The gathered variants (a deduplicated batch: rows read given rows one layer down).
      {"gelu_of_gathered_and_sparse",
       {&shared, &sparse, &bias},
       [&](Tape& t) {
         return gelu_of_gathered_and_sparse(t.parameter(shared), {0, 2, 2, 1, 3, 0}, t.parameter(sparse), rows, t.parameter(bias));
       },
       [&](Tape& t) {
         return gelu(add_row(add(embedding(t.parameter(shared), {0, 2, 2, 1, 3, 0}), reference::scatter_rows(t.parameter(sparse), rows, 6)),
                             t.parameter(bias)));
       }},
      {"sage_message over row sources",
       {&x, &w_self, &w_producers, &w_consumers, &bias},
       [&](Tape& t) {
         return sage_message(t.parameter(x), sources, Aggregation::Mean, t.parameter(w_self), t.parameter(w_producers),
                             t.parameter(w_consumers), t.parameter(bias));
       },
       [&](Tape& t) {
         const Var h = t.parameter(x);
         const Var message = add(add(matmul(embedding(h, sources->self), t.parameter(w_self)),
                                     matmul(matmul(t.constant(producer_means), h), t.parameter(w_producers))),
                                 matmul(matmul(t.constant(consumer_means), h), t.parameter(w_consumers)));
         return gelu(add_row(message, t.parameter(bias)));
       }},
      {"add_layer_norm with picked rows",
       {&x, &update, &gain, &shift},
       [&](Tape& t) { return add_layer_norm(t.parameter(x), picked, t.parameter(update), t.parameter(gain), t.parameter(shift)); },
       [&](Tape& t) {
         return add(embedding(t.parameter(x), picked), reference::layer_norm(t.parameter(update), t.parameter(gain), t.parameter(shift)));
       }},
      {"pool_rows",
       {&x},
       [&](Tape& t) {
         return pool_rows(t.parameter(x), {0, 1, 1, 7, 3, 3}, 2);
       },
       [&](Tape& t) {
         return segment_pool(embedding(t.parameter(x), {0, 1, 1, 7, 3, 3}), 3, Pool::Sum);
       }},
  };
  check_fused_cases(cases);
}
