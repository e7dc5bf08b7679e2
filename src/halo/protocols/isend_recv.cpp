// isend-recv: MPI_Isend first, then blocking MPI_Recv; the sends complete
// in complete().
#include "../staged.hpp"

namespace haloex {

namespace {

class IsendRecv final : public detail::Protocol {
 public:
  void start(detail::StageIo& io) override {
    io.pack();
    io.isend_all();
    io.recv_all();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_isend_recv(const Plan& plan, std::string_view name) {
  return detail::make_staged_with(plan, name, std::make_unique<IsendRecv>());
}

}  // namespace haloex
