// irecv-send: receives pre-posted, then blocking MPI_Send; the receives
// complete in complete(), so end() still has work to hide.
#include "../staged.hpp"

namespace haloex {

namespace {

class IrecvSend final : public detail::Protocol {
 public:
  void start(detail::StageIo& io) override {
    io.irecv_all();
    io.pack();
    io.send_all();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_irecv_send(const Plan& plan, std::string_view name) {
  return detail::make_staged_with(plan, name, std::make_unique<IrecvSend>());
}

}  // namespace haloex
