#include "common/process_memory.h"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/resource.h>
#endif

namespace graphcost {

double peak_resident_mib() {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) == 0) return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
#endif
  return 0;
}

}  // namespace graphcost
