! The 2-D fourth-order diffusion stencil (the 2022 stencil paper's code, and
! `haloex stencil`) in Fortran over the haloex module:
!
!   mpirun -n 4 build/examples/stencil2d_f --nx 128 --ny 128 --nz 64 -i 64 -o out.npy
!
! An nx x ny x nz field (z not decomposed, a halo of 2 in x and y, periodic)
! f(nz, 1-2:lx+2, 1-2:ly+2) starts at 1 in the central block and 0
! elsewhere; each iteration exchanges the halo and applies
! out = in - alpha lap(lap(in)), alpha = 1/32, with the additions
! parenthesised in the order of haloex's C++ kernel, so that the result is
! the same to the last bit as `haloex stencil --serial`. -o writes the
! field, [x, y, z] without halo, as .npy (rank 0 gathers it).
program stencil2d
  use mpi_f08
  use haloex
  use, intrinsic :: iso_fortran_env, only: real64, int64, error_unit
  implicit none
  integer, parameter :: h = 2
  real(real64), parameter :: alpha = 1.0_real64 / 32.0_real64
  integer :: nx = 128, ny = 128, nz = 64, iters = 64, rank, nranks, rc, it, i, j, r
  character(len=256) :: strategy = "auto", out = ""
  type(haloex_decomp) :: d
  type(haloex_plan) :: p
  type(haloex_exchange) :: x
  integer :: procs(3), coords(3), local(3), offset(3), meta(4), me, ranks
  real(real64), allocatable :: u(:, :, :), v(:, :, :), lap(:, :, :), block(:, :, :), field(:, :, :), b(:, :, :)
  real(real64) :: t0
  character(len=:), allocatable :: name

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  if (.not. parse()) then
    if (rank == 0) write (error_unit, "(a)") &
      "usage: stencil2d_f [--nx N] [--ny N] [--nz N] [-i ITERS] [-s STRATEGY] [-o FILE.npy] (sizes >= 1)"
    call MPI_Finalize()
    error stop 2
  end if
  rc = haloex_decomp_create(MPI_COMM_WORLD, [nx, ny], [0, 0], [.true., .true.], d)
  if (rc == HALOEX_OK) rc = haloex_plan_create(d, 2, [haloex_field(HALOEX_DOUBLE, nz, h, HALOEX_AOS)], p)
  if (rc == HALOEX_OK) rc = haloex_exchange_create(p, trim(strategy), x)
  if (rc /= HALOEX_OK) then
    if (rank == 0) write (error_unit, "(a)") "stencil2d_f: "//haloex_last_error()
    call MPI_Finalize()
    error stop 2
  end if
  rc = haloex_decomp_info(d, 2, me, ranks, procs, coords, local, offset)
  allocate (u(nz, 1 - h:local(1) + h, 1 - h:local(2) + h), source=0.0_real64)
  allocate (v, lap, mold=u)
  v = 0
  lap = 0
  do j = 1, local(2)
    do i = 1, local(1)
      if (central(offset(1) + i - 1, nx) .and. central(offset(2) + j - 1, ny)) &
        u(:, i, j) = merge(1.0_real64, 0.0_real64, [(central(r, nz), r=0, nz - 1)])
    end do
  end do

  t0 = MPI_Wtime()
  do it = 1, iters
    rc = haloex_exchange_run(x, u)
    if (rc /= HALOEX_OK) then
      write (error_unit, "(a)") "stencil2d_f: "//haloex_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    do j = 0, local(2) + 1  ! lap on the interior and one ring around it
      do i = 0, local(1) + 1
        lap(:, i, j) = ((((-4.0_real64 * u(:, i, j) + u(:, i - 1, j)) + u(:, i + 1, j)) + u(:, i, j - 1)) + &
                        u(:, i, j + 1))
      end do
    end do
    do j = 1, local(2)
      do i = 1, local(1)
        v(:, i, j) = u(:, i, j) - alpha * ((((-4.0_real64 * lap(:, i, j) + lap(:, i - 1, j)) + lap(:, i + 1, j)) + &
                                            lap(:, i, j - 1)) + lap(:, i, j + 1))
      end do
    end do
    call swap(u, v)
  end do

  ! Rank 0 gathers every block, [z, y, x] in memory, i.e. [x, y, z] in C order.
  allocate (block(nz, local(2), local(1)))
  do i = 1, local(1)
    block(:, :, i) = u(:, i, 1:local(2))
  end do
  meta = [offset(1), offset(2), local(1), local(2)]
  if (rank /= 0) then
    call MPI_Send(meta, 4, MPI_INTEGER, 0, 0, MPI_COMM_WORLD)
    call MPI_Send(block, size(block), MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD)
  else
    rc = haloex_exchange_strategy(x, name)
    print "(a, i0, a, i0, a, i0, a, i0, a, i0, a, a, a, f8.3, a)", "stencil2d_f: ", nranks, " ranks, ", nx, "x", ny, &
      "x", nz, ", ", iters, " iterations, ", name, ": ", MPI_Wtime() - t0, " s"
    allocate (field(nz, ny, nx))
    field(:, offset(2) + 1:offset(2) + local(2), offset(1) + 1:offset(1) + local(1)) = block
    do r = 1, nranks - 1
      call MPI_Recv(meta, 4, MPI_INTEGER, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      allocate (b(nz, meta(4), meta(3)))
      call MPI_Recv(b, size(b), MPI_DOUBLE_PRECISION, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      field(:, meta(2) + 1:meta(2) + meta(4), meta(1) + 1:meta(1) + meta(3)) = b
      deallocate (b)
    end do
    if (len_trim(out) > 0) call write_npy(trim(out), field)
  end if
  rc = haloex_exchange_free(x)
  rc = haloex_plan_free(p)
  rc = haloex_decomp_free(d)
  call MPI_Finalize()

contains

  logical function central(g, n)
    integer, intent(in) :: g, n
    central = g >= n / 4 .and. g < 3 * n / 4
  end function

  subroutine swap(a, c)
    real(real64), allocatable, intent(inout) :: a(:, :, :), c(:, :, :)
    real(real64), allocatable :: t(:, :, :)
    call move_alloc(a, t)
    call move_alloc(c, a)
    call move_alloc(t, c)
  end subroutine

  logical function parse()
    integer :: k, n, stat
    character(len=256) :: key, val
    parse = .false.
    k = 1
    do while (k <= command_argument_count())
      if (k + 1 > command_argument_count()) return
      call get_command_argument(k, key)
      call get_command_argument(k + 1, val)
      k = k + 2
      select case (key)
      case ("-s", "--strategy")
        strategy = val
        cycle
      case ("-o", "--out")
        out = val
        cycle
      end select
      read (val, *, iostat=stat) n
      if (stat /= 0 .or. n < 0) return
      select case (key)
      case ("--nx")
        nx = n
      case ("--ny")
        ny = n
      case ("--nz")
        nz = n
      case ("-i", "--iters")
        iters = n
      case default
        return
      end select
    end do
    parse = nx >= 1 .and. ny >= 1 .and. nz >= 1
  end function

  ! The .npy file of f(nz, ny, nx): a C-order float64 array of shape (nx, ny, nz).
  subroutine write_npy(path, f)
    character(len=*), intent(in) :: path
    real(real64), intent(in) :: f(:, :, :)
    character(len=128) :: dict
    character(len=:), allocatable :: header
    integer :: unit, n
    write (dict, "(a, i0, a, i0, a, i0, a)") "{'descr': '<f8', 'fortran_order': False, 'shape': (", &
      size(f, 3), ", ", size(f, 2), ", ", size(f, 1), "), }"
    n = ((10 + len_trim(dict) + 1 + 63) / 64) * 64 - 10  ! dict, padding and newline: 64-aligned with the prefix
    header = trim(dict)//repeat(" ", n - len_trim(dict) - 1)//new_line("a")
    open (newunit=unit, file=path, access="stream", form="unformatted", status="replace")
    write (unit) char(147), "NUMPY", char(1), char(0), char(mod(n, 256)), char(n / 256), header, f
    close (unit)
  end subroutine

end program stencil2d
