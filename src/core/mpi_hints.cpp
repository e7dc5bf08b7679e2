#include "haloex/core/mpi_hints.hpp"

#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"

namespace haloex {

IoHints parse_io_hints(const std::string& text, const std::string& what) {
  IoHints out;
  if (text.empty() || text == "none") return out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const bool key_ok =
        !key.empty() && key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
    if (eq == std::string::npos || !key_ok || eq + 1 == item.size())
      throw InputError(what + ": '" + item +
                       "' is not a hint (key=value, the key in lower case, e.g. striping_factor=4)");
    for (const auto& [k, v] : out)
      if (k == key) throw InputError(what + ": hint " + key + " is given twice");
    out.emplace_back(key, item.substr(eq + 1));
    at = comma + 1;
  }
  return out;
}

std::string io_hints_text(const IoHints& hints) {
  if (hints.empty()) return "none";
  std::string s;
  for (const auto& [k, v] : hints) s.append(s.empty() ? "" : ",").append(k).append("=").append(v);
  return s;
}

InfoHints::InfoHints(const IoHints& hints) {
  if (hints.empty()) return;
  mpi_check(MPI_Info_create(&info_), "MPI_Info_create");
  for (const auto& [k, v] : hints) mpi_check(MPI_Info_set(info_, k.c_str(), v.c_str()), "MPI_Info_set");
}

InfoHints::~InfoHints() {
  if (info_ != MPI_INFO_NULL) MPI_Info_free(&info_);
}

nlohmann::json applied_hints(MPI_File fh, const IoHints& requested) {
  nlohmann::json out = nlohmann::json::object();
  MPI_Info info = MPI_INFO_NULL;
  if (requested.empty() || MPI_File_get_info(fh, &info) != MPI_SUCCESS) return out;
  for (const auto& [k, v] : requested) {
    char value[MPI_MAX_INFO_VAL + 1] = {0};
    int flag = 0;
    MPI_Info_get(info, k.c_str(), MPI_MAX_INFO_VAL, value, &flag);
    out[k] = flag ? nlohmann::json(value) : nlohmann::json(nullptr);
  }
  MPI_Info_free(&info);
  return out;
}

}  // namespace haloex
