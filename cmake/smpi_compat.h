// Forced into every translation unit of a build against SimGrid's SMPI
// (-DHALOEX_SMPI=ON), after SMPI's own smpi_helpers.h. SMPI turns exit(x)
// into a macro so that one simulated rank can leave without ending the
// process; that macro also rewrites CLI11's App::exit method and breaks its
// header. haloex leaves through return codes and MPI_Abort, never exit().
#ifdef exit
#undef exit
#endif
