// The D3Q19 kernels of every layout, forcing and monitoring choice
// (kernel_set.hpp says why each velocity set has a file of its own).
#include "kernel_set.hpp"

namespace haloex::lb::detail {

template KernelSet pick<D3Q19>(bool soa, bool forced, bool mon);

}  // namespace haloex::lb::detail
