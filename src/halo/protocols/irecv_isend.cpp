// irecv-isend: the receives are posted before packing, so a message that
// arrives early finds its buffer; then Isend and wait.
#include "../staged.hpp"

namespace haloex {

namespace {

class IrecvIsend final : public detail::Protocol {
 public:
  void start(detail::StageIo& io) override {
    io.irecv_all();
    io.pack();
    io.isend_all();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_irecv_isend(const Plan& plan, std::string_view name) {
  return detail::make_staged_with(plan, name, std::make_unique<IrecvIsend>());
}

}  // namespace haloex
