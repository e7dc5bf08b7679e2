#include "haloex/lb/velocity_set.hpp"

namespace haloex::lb {

std::vector<Offset> VelocitySet::reversed() const {
  std::vector<Offset> r;
  for (const Offset& v : c) r.push_back(opposite(v));
  return r;
}

std::vector<std::string> velocity_set_names() { return {"D2Q9", "D3Q15", "D3Q19", "D3Q27"}; }

VelocitySet velocity_set(const std::string& name) {
  if (name == "D2Q9") return describe<D2Q9>();
  if (name == "D3Q15") return describe<D3Q15>();
  if (name == "D3Q19") return describe<D3Q19>();
  if (name == "D3Q27") return describe<D3Q27>();
  throw InputError("unknown velocity set '" + name + "'; valid sets: D2Q9, D3Q15, D3Q19, D3Q27");
}

}  // namespace haloex::lb
