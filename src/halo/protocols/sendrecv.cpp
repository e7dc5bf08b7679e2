// sendrecv: each dimension by two MPI_Sendrecv half-steps, towards + then
// towards - (the 2-D stencil study's blocking version). Blocking: nothing is
// left for complete().
#include "../staged.hpp"

namespace haloex {

namespace {

class SendrecvPair final : public detail::Protocol {
 public:
  void start(detail::StageIo& io) override {
    io.pack();
    io.sendrecv(+1);
    io.sendrecv(-1);
  }
};

}  // namespace

std::unique_ptr<Strategy> make_sendrecv(const Plan& plan, std::string_view name) {
  return detail::make_staged_with(plan, name, std::make_unique<SendrecvPair>());
}

}  // namespace haloex
