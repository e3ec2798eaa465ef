// Prints every scalar function signature of the registry, one a line, tab
// separated: name, the argument types ("..." after the type of a variadic
// function's arguments), "->" and the return type; sorted. Its output is tests/corpus/functions.txt,
// which gen_corpus.py reads; regenerate it after adding functions:
//
//   g++ -std=c++20 -Isrc tests/corpus/dump_functions.cc build/libfreshet_expr.a \
//       build/libfreshet_common.a $(pkg-config --libs re2 libcrypto) -lfmt -lspdlog \
//       -ldate-tz -lxxhash -o /tmp/dump_functions && /tmp/dump_functions > tests/corpus/functions.txt
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "expr/function_registry.h"

int main() {
  std::vector<std::string> lines;
  for (const auto& [name, sigs] : freshet::FunctionRegistry::Instance().functions()) {
    for (const auto& f : sigs) {
      std::string line = name;
      for (const auto& t : f.arg_types) line += "\t" + t.ToString();
      if (f.variadic) line += "\t...";
      line += "\t->\t" + f.return_type.ToString();
      lines.push_back(line);
    }
  }
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  for (const auto& l : lines) std::cout << l << "\n";
}
