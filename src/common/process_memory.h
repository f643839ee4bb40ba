// How much memory this process has used: for the reports of long commands (train, import).
#pragma once

namespace graphcost {

// The process's peak resident set size so far, in MiB (Linux); 0 where unknown (WebAssembly).
double peak_resident_mib();

}  // namespace graphcost
