#include "haloex/stencil/diffusion.hpp"

#include <utility>

#include "haloex/core/mpi.hpp"

namespace haloex::stencil {

void validate(const DiffusionConfig& cfg, int ranks) {
  if (cfg.nx < 1 || cfg.ny < 1 || cfg.nz < 1)
    throw InputError("the stencil grid must be at least 1 site in each of nx, ny, nz, got " +
                     std::to_string(cfg.nx) + "x" + std::to_string(cfg.ny) + "x" + std::to_string(cfg.nz));
  if (cfg.nz > (1L << 24))
    throw InputError("--nz " + std::to_string(cfg.nz) + " is too large (at most 16777216)");
  if (cfg.strategy == "serial" && ranks != 1)
    throw InputError("the serial reference runs on one rank, but this run has " + std::to_string(ranks) +
                     "; run it without mpirun (or with -np 1)");
}

template <class T>
Diffusion<T>::Diffusion(MPI_Comm comm, const DiffusionConfig& cfg) : cfg_(cfg) {
  const bool serial = cfg.strategy == "serial";
  validate(cfg, comm_size(comm));
  DecompositionSpec spec;
  spec.ndim = 2;
  spec.global = {cfg.nx, cfg.ny, 1};
  spec.procs = {serial ? 1 : cfg.procs[0], serial ? 1 : cfg.procs[1], 1};
  spec.periodic = {true, true, true};
  dec_ = std::make_unique<Decomposition>(comm, spec);
  in_ = std::make_unique<Field<T>>(*dec_, static_cast<int>(cfg.nz), halo_width, Layout::aos);
  out_ = std::make_unique<Field<T>>(*dec_, static_cast<int>(cfg.nz), halo_width, Layout::aos);
  cols_ = Columns::of(in_->shape());
  scratch_ = std::make_unique<Scratch<T>>(cols_);
  if (!serial) {
    plan_ = std::make_unique<Plan>(*dec_, std::vector<FieldSpec>{FieldSpec::of(*in_)});
    strategy_ = make_strategy(cfg.strategy, *plan_);
  }
  reset();
}

template <class T>
void Diffusion<T>::reset() {
  for (Field<T>* f : {in_.get(), out_.get()}) std::fill(f->elements().begin(), f->elements().end(), T(0));
  for (long i = 0; i < cols_.nx; ++i)
    for (long j = 0; j < cols_.ny; ++j)
      for (long k = 0; k < cols_.nz; ++k)
        if (in_central_block(dec_->offset(0) + i, dec_->offset(1) + j, k, cfg_.nx, cfg_.ny, cfg_.nz))
          in_->data()[cols_.at(i, j, k)] = T(1);
  times_ = DiffusionTimes{};
  if (strategy_) strategy_->reset_times();
}

template <class T>
void Diffusion<T>::exchange() {
  if (strategy_) {
    const FieldView v = in_->view();
    strategy_->exchange({&v, 1});
  } else {
    fill_periodic_halo(in_->data(), cols_);
  }
}

template <class T>
void Diffusion<T>::run(long iterations) {
  const T alpha = static_cast<T>(cfg_.alpha);
  const double start = MPI_Wtime();
  for (long it = 0; it < iterations; ++it) {
    const double t0 = MPI_Wtime();
    exchange();
    const double t1 = MPI_Wtime();
    diffusion_step(in_->data(), out_->data(), cols_, alpha, *scratch_);
    times_.halo_s += t1 - t0;
    times_.work_s += MPI_Wtime() - t1;
    std::swap(in_, out_);
  }
  times_.total_s += MPI_Wtime() - start;
  times_.iterations += iterations;
}

template class Diffusion<double>;
template class Diffusion<float>;

}  // namespace haloex::stencil
