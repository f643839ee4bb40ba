// Prints the machine line (bench/machine.h) for the benchmark scripts (Python, shell, Node.js) to
// show beside their figures; --json for the JSON object.
#include <cstdio>
#include <cstring>

#include "machine.h"

int main(int argc, char** argv) {
  const graphcost::bench::Machine machine = graphcost::bench::measure_machine();
  if (argc > 1 && std::strcmp(argv[1], "--json") == 0) {
    std::printf("%s\n", graphcost::bench::machine_json(machine).dump().c_str());
  } else {
    std::printf("%s\n", graphcost::bench::machine_line(machine).c_str());
  }
  return 0;
}
