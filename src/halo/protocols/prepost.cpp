// prepost (the stencil paper's "mpi" version): the receives of every
// dimension are posted before anything is sent. Their buffers are distinct and
// their tags name the direction, so an early message of a later dimension
// cannot land in the wrong place. Then one send phase per dimension.
#include "../staged.hpp"

namespace haloex {

namespace {

class Prepost final : public detail::Protocol {
 public:
  void prepare(std::span<detail::StageIo> stages) override {
    for (detail::StageIo& io : stages) io.irecv_all();
  }
  void start(detail::StageIo& io) override {
    io.pack();
    io.isend_all();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_prepost(const Plan& plan, std::string_view name) {
  return detail::make_staged_with(plan, name, std::make_unique<Prepost>());
}

}  // namespace haloex
