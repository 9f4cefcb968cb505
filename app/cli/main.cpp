#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  return lego::cli::run(std::vector<std::string>(argv, argv + argc), std::cout, std::cerr);
}
