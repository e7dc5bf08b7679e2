#pragma once
// Constructors of the registered strategies (internal: users go through
// make_strategy). One line per strategy here and in registry.cpp.
#include <memory>

#include "haloex/halo/strategy.hpp"

namespace haloex {

std::unique_ptr<Strategy> make_staged(const Plan&);
std::unique_ptr<Strategy> make_staged_types(const Plan&);
std::unique_ptr<Strategy> make_direct(const Plan&);
std::unique_ptr<Strategy> make_direct_waitany(const Plan&);
std::unique_ptr<Strategy> make_persistent(const Plan&);
std::unique_ptr<Strategy> make_neighbor(const Plan&);
std::unique_ptr<Strategy> make_sendrecv(const Plan&);
std::unique_ptr<Strategy> make_irecv_send(const Plan&);
std::unique_ptr<Strategy> make_isend_recv(const Plan&);
std::unique_ptr<Strategy> make_irecv_isend(const Plan&);
std::unique_ptr<Strategy> make_red_black(const Plan&);
std::unique_ptr<Strategy> make_prepost(const Plan&);
std::unique_ptr<Strategy> make_auto_default(const Plan&);

}  // namespace haloex
