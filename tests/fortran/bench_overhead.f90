! What the Fortran module costs over the C API: the same exchange (L^3 sites
! per rank, 19 real64 each, AoS, halo 1) through haloex_exchange_run on the
! array (checked every call) and through the C function itself, interleaved
! in one process; medians per call (rank 0). tests/capi/bench_overhead.cpp
! measures the C API against the C++ call.
!   mpirun -np 2 build/tests/haloex_bench_fortran_overhead [strategy] [L] [calls] [repeats]
program bench_overhead
  use mpi_f08
  use haloex
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: real64
  implicit none
  interface
    function c_run(x, data) bind(c, name="haloex_exchange_run")
      import :: c_int, c_ptr
      type(c_ptr), value :: x
      type(c_ptr), intent(in) :: data(*)
      integer(c_int) :: c_run
    end function
  end interface
  type(haloex_decomp) :: d
  type(haloex_plan) :: p
  type(haloex_exchange) :: x
  real(real64), allocatable, target :: f(:, :, :, :)
  real(real64), allocatable :: t_f(:), t_c(:)
  character(len=64) :: arg, strategy = "direct"
  integer :: n = 32, calls = 2000, repeats = 7, rank, nranks, r, i, rc, local(3), offset(3), procs(3), coords(3)
  type(c_ptr) :: ptrs(1)
  real(real64) :: t0, t, worst

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  if (command_argument_count() >= 1) call get_command_argument(1, strategy)
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read (arg, *) calls
  end if
  if (command_argument_count() >= 4) then
    call get_command_argument(4, arg)
    read (arg, *) repeats
  end if
  rc = haloex_decomp_create(MPI_COMM_WORLD, [n * nranks, n, n], [nranks, 1, 1], [.true., .true., .true.], d)
  if (rc == HALOEX_OK) rc = haloex_plan_create(d, 3, [haloex_field(HALOEX_DOUBLE, 19, 1, HALOEX_AOS)], p)
  if (rc == HALOEX_OK) rc = haloex_exchange_create(p, trim(strategy), x)
  if (rc /= HALOEX_OK) then
    print *, "bench_overhead: ", haloex_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  rc = haloex_decomp_info(d, 3, r, i, procs, coords, local, offset)
  allocate (f(19, 0:local(1) + 1, 0:local(2) + 1, 0:local(3) + 1), source=1.0_real64)
  ptrs(1) = c_loc(f)
  allocate (t_f(repeats), t_c(repeats))
  do i = 1, calls / 10 + 1  ! warm-up of both
    rc = haloex_exchange_run(x, f)
    rc = c_run(x%h, ptrs)
  end do
  do r = 1, repeats
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, calls
      rc = haloex_exchange_run(x, f)
    end do
    t = (MPI_Wtime() - t0) / calls
    call MPI_Allreduce(t, worst, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
    t_f(r) = worst
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, calls
      rc = c_run(x%h, ptrs)
    end do
    t = (MPI_Wtime() - t0) / calls
    call MPI_Allreduce(t, worst, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
    t_c(r) = worst
  end do
  ! (list-directed output: see test_fortran.f90)
  if (rank == 0) then
    print *, trim(strategy), n, "^3 x 19 real64 per rank,", nranks, "ranks, median of", repeats, "x", calls, "calls"
    print *, "  C haloex_exchange_run (us)        ", median(t_c) * 1e6
    print *, "  Fortran haloex_exchange_run (us)  ", median(t_f) * 1e6
    print *, "  difference (us, %)                ", (median(t_f) - median(t_c)) * 1e6, &
      100 * (median(t_f) - median(t_c)) / median(t_c)
  end if
  rc = haloex_exchange_free(x)
  rc = haloex_plan_free(p)
  rc = haloex_decomp_free(d)
  call MPI_Finalize()

contains

  real(real64) function median(v)
    real(real64), intent(in) :: v(:)
    real(real64) :: s(size(v)), tmp
    integer :: a, b
    s = v
    do a = 2, size(s)  ! insertion sort: a handful of samples
      tmp = s(a)
      b = a - 1
      do while (b >= 1)
        if (s(b) <= tmp) exit
        s(b + 1) = s(b)
        b = b - 1
      end do
      s(b + 1) = tmp
    end do
    median = s(size(s) / 2 + 1)
  end function

end program bench_overhead
