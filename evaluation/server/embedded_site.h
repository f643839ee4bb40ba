// The leaderboard and submission pages (site/), built into graphcost-eval so that `serve` needs
// nothing beside its database file. Generated from site/ by evaluation/CMakeLists.txt at configure
// time (re-run whenever a page changes).
#pragma once

#include <cstddef>

namespace graphcost {

struct EmbeddedFile {
  const char* name;          // "index.html", served at /index.html (and / for index.html)
  const char* content_type;  // without the charset: every page is UTF-8
  const unsigned char* bytes;
  size_t size;
};

extern const EmbeddedFile kEmbeddedSite[];
extern const size_t kEmbeddedSiteCount;

}  // namespace graphcost
