// red-black: ranks are coloured by the parity of their grid coordinates;
// even ranks send (+ then -) and then receive, odd ranks receive first, so
// blocking MPI_Send and MPI_Recv always meet a partner. Blocking: nothing is
// left for complete().
#include <string>

#include "../staged.hpp"

namespace haloex {

namespace {

class RedBlack final : public detail::Protocol {
 public:
  RedBlack(const Decomposition& dec, std::string_view name) {
    // Neighbours along a dimension must have opposite colours, which a
    // periodic ring of odd length breaks.
    for (int d = 0; d < dec.ndim(); ++d)
      if (dec.periodic(d) && dec.procs(d) > 1 && dec.procs(d) % 2 != 0)
        throw InputError(std::string(name) +
                         " needs an even number of ranks along every periodic dimension, but the "
                         "process grid has " +
                         std::to_string(dec.procs(d)) + " along " + std::string(1, "xyz"[d]) +
                         "; choose another grid (--procs) or another strategy");
    int sum = 0;
    for (int d = 0; d < dec.ndim(); ++d) sum += dec.coord(d);
    red_ = sum % 2 == 0;
  }

  void start(detail::StageIo& io) override {
    io.pack();
    if (red_) {
      sends(io);
      receives(io);
    } else {
      receives(io);
      sends(io);
    }
  }

 private:
  // A red rank's + neighbour is black and receives from its - side first.
  static void sends(detail::StageIo& io) {
    io.send(+1);
    io.send(-1);
  }
  static void receives(detail::StageIo& io) {
    io.recv(-1);
    io.recv(+1);
  }

  bool red_ = true;
};

}  // namespace

std::unique_ptr<Strategy> make_red_black(const Plan& plan, std::string_view name) {
  return detail::make_staged_with(plan, name, std::make_unique<RedBlack>(plan.decomposition(), name));
}

}  // namespace haloex
