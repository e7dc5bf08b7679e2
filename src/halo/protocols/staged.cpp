// staged (Ludwig's exchange): pack, post the receives, post the sends, wait.
#include "../staged.hpp"

namespace haloex {

namespace {

class Staged final : public detail::Protocol {
 public:
  void start(detail::StageIo& io) override {
    io.pack();
    io.irecv_all();
    io.isend_all();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_staged(const Plan& plan, std::string_view name) {
  return detail::make_staged_with(plan, name, std::make_unique<Staged>());
}

}  // namespace haloex
