// irecv-issend: as irecv-isend with synchronous sends (MPI_Issend). A send
// completes only once the receive has matched it, so the library never
// buffers a message eagerly. It is the one protocol that asks for Issend: to
// see what eager buffering gains or costs on a machine, against irecv-isend.
#include "../staged.hpp"

namespace haloex {

namespace {

class IrecvIssend final : public detail::Protocol {
 public:
  void start(detail::StageIo& io) override {
    io.irecv_all();
    io.pack();
    io.isend_all(/*synchronous=*/true);
  }
};

}  // namespace

std::unique_ptr<Strategy> make_irecv_issend(const Plan& plan, std::string_view name) {
  return detail::make_staged_with(plan, name, std::make_unique<IrecvIssend>());
}

}  // namespace haloex
