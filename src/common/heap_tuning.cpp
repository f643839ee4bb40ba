#include "common/heap_tuning.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems (checked below)

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace graphcost {

void keep_large_allocations_in_heap() {
#if defined(__GLIBC__)
  // M_MMAP_THRESHOLD cannot exceed 32 MiB, and one config batch of a big graph holds 40 MiB
  // matrices: turn mmap off altogether, and keep freed memory instead of trimming it.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);  // never give memory back mid-run (man mallopt: -1 disables)
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

}  // namespace graphcost
