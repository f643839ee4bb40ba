#include <catch2/catch.hpp>

#include "data/dataset_path.h"

using namespace graphcost;

TEST_CASE("collection, split, stem and Kaggle ID come from the path", "[dataset]") {
  const DatasetPath layout = parse_dataset_path("/data/npz/layout/xla/default/valid/x.npz");
  CHECK(layout.collection == "layout:xla:default");
  CHECK(layout.split == "valid");
  CHECK(layout.stem == "x");
  CHECK(layout.kaggle_id() == "layout:xla:default:x");
  CHECK(layout.is_layout());

  const DatasetPath tile = parse_dataset_path("npz/tile/xla/test/0a1c5dcfa9f1f4ebcc1282a1d1ca8ecb.npz");
  CHECK(tile.kaggle_id() == "tile:xla:0a1c5dcfa9f1f4ebcc1282a1d1ca8ecb");
  CHECK(tile.split == "test");
  CHECK(tile.is_tile());

  const DatasetPath nlp = parse_dataset_path("a\\layout\\nlp\\random\\train\\bert.npz");
  CHECK(nlp.kaggle_id() == "layout:nlp:random:bert");

  const DatasetPath dotted = parse_dataset_path("layout/xla/random/valid/unet_3d.4x4.bf16.npz");
  CHECK(dotted.stem == "unet_3d.4x4.bf16");

  for (const char* outside : {"alexnet.npz", "npz/layout/xla/default/x.npz", "npz/tile/nlp/train/x.npz", "layout/xla/fast/test/x.npz",
                              "tile/xla/validation/x.npz"}) {
    INFO(outside);
    CHECK_FALSE(parse_dataset_path(outside).in_tree());
    CHECK(parse_dataset_path(outside).kaggle_id().empty());
  }
}
