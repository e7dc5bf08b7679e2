! The haloex module: the C API (haloex/haloex.h) for Fortran 2008, with
! mpi_f08 communicators and Fortran arrays.
!
! Index order. A Fortran array is column-major, its first index fastest; the
! library's arrays are C-order, x slowest. The module reverses the
! dimensions at its boundary, so that a Fortran code keeps its own order:
! x is the first index, and the global sizes, process grid, periodicity,
! coordinates, extents and offsets it passes and gets are all (x, y, z):
!
!   AoS: real(real64) :: f(ncomp, 1-h:nx+h, 1-h:ny+h, 1-h:nz+h)   (3-D)
!   SoA: real(real64) :: f(1-h:nx+h, 1-h:ny+h, 1-h:nz+h, ncomp)
!
! (2-D: drop the z extent.) Every function returns HALOEX_OK or a status;
! haloex_last_error() gives the message.
module haloex
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use mpi_f08, only: MPI_Comm
  implicit none
  private

  integer, parameter, public :: HALOEX_OK = 0, HALOEX_ERR_ARGUMENT = 1, HALOEX_ERR_HANDLE = 2, &
                                HALOEX_ERR_INPUT = 3, HALOEX_ERR_STATE = 4, HALOEX_ERR_MPI = 5, &
                                HALOEX_ERR_INTERNAL = 6
  integer, parameter, public :: HALOEX_DOUBLE = 0, HALOEX_FLOAT = 1, HALOEX_AOS = 0, HALOEX_SOA = 1

  !> A decomposed lattice, a plan of fields on it, a strategy running a plan.
  type, public :: haloex_decomp
    type(c_ptr) :: h = c_null_ptr
  end type
  type, public :: haloex_plan
    type(c_ptr) :: h = c_null_ptr
    integer :: ndim = 0
    integer, allocatable :: types(:)                 ! per field, to check arrays
    integer(c_long), allocatable :: elements(:)
  end type
  type, public :: haloex_exchange
    type(c_ptr) :: h = c_null_ptr
    integer, allocatable :: types(:)
    integer(c_long), allocatable :: elements(:)
  end type

  !> One field: element type, values per site, halo width, layout, and for a
  !> reduced exchange one direction (x, y, z) per component: dirs(:, c)
  !> points from a halo region into the interior (unallocated: everything
  !> travels).
  type, public :: haloex_field
    integer :: type = HALOEX_DOUBLE
    integer :: ncomp = 1
    integer :: halo = 1
    integer :: layout = HALOEX_AOS
    integer, allocatable :: dirs(:, :)
  end type

  type, bind(c) :: c_field
    integer(c_int) :: type, ncomp, halo, layout, ndirs
    type(c_ptr) :: dirs
  end type

  public :: haloex_decomp_create, haloex_decomp_free, haloex_decomp_info
  public :: haloex_plan_create, haloex_plan_free, haloex_field_extents
  public :: haloex_exchange_create, haloex_exchange_free, haloex_exchange_strategy
  public :: haloex_exchange_begin, haloex_exchange_end, haloex_exchange_run
  public :: haloex_last_error, haloex_strategy_count, haloex_strategy_name

  !> Start (begin), or start and complete (run), the exchange of a plan of
  !> one field given as an array, or of several given as c_loc pointers.
  interface haloex_exchange_begin
    module procedure begin_d2, begin_d3, begin_d4, begin_s2, begin_s3, begin_s4, begin_ptrs
  end interface
  interface haloex_exchange_run
    module procedure run_d2, run_d3, run_d4, run_s2, run_s3, run_s4, run_ptrs
  end interface

  interface
    function c_decomp_create(comm, ndim, global, procs, periodic, out) bind(c, name="haloex_decomp_create_f")
      import :: c_int, c_long, c_ptr
      integer(c_int), value :: comm, ndim
      integer(c_long), intent(in) :: global(*)
      integer(c_int), intent(in) :: procs(*), periodic(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_decomp_create
    end function
    function c_decomp_free(d) bind(c, name="haloex_decomp_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: d
      integer(c_int) :: c_decomp_free
    end function
    function c_decomp_info(d, rank, size, procs, coords, local, offset) bind(c, name="haloex_decomp_info")
      import :: c_int, c_long, c_ptr
      type(c_ptr), value :: d
      integer(c_int), intent(out) :: rank, size, procs(3), coords(3)
      integer(c_long), intent(out) :: local(3), offset(3)
      integer(c_int) :: c_decomp_info
    end function
    function c_plan_create(d, n, fields, out) bind(c, name="haloex_plan_create")
      import :: c_int, c_ptr, c_field
      type(c_ptr), value :: d
      integer(c_int), value :: n
      type(c_field), intent(in) :: fields(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_plan_create
    end function
    function c_plan_free(p) bind(c, name="haloex_plan_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: p
      integer(c_int) :: c_plan_free
    end function
    function c_field_extents(p, field, extents, elements) bind(c, name="haloex_field_extents")
      import :: c_int, c_long, c_ptr
      type(c_ptr), value :: p
      integer(c_int), value :: field
      integer(c_long), intent(out) :: extents(3), elements
      integer(c_int) :: c_field_extents
    end function
    function c_exchange_create(p, name, out) bind(c, name="haloex_exchange_create")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: p
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_exchange_create
    end function
    function c_exchange_free(x) bind(c, name="haloex_exchange_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: x
      integer(c_int) :: c_exchange_free
    end function
    function c_exchange_strategy(x, name) bind(c, name="haloex_exchange_strategy")
      import :: c_int, c_ptr
      type(c_ptr), value :: x
      type(c_ptr), intent(out) :: name
      integer(c_int) :: c_exchange_strategy
    end function
    function c_exchange_begin(x, data) bind(c, name="haloex_exchange_begin")
      import :: c_int, c_ptr
      type(c_ptr), value :: x
      type(c_ptr), intent(in) :: data(*)
      integer(c_int) :: c_exchange_begin
    end function
    function c_exchange_end(x) bind(c, name="haloex_exchange_end")
      import :: c_int, c_ptr
      type(c_ptr), value :: x
      integer(c_int) :: c_exchange_end
    end function
    function c_last_error() bind(c, name="haloex_last_error")
      import :: c_ptr
      type(c_ptr) :: c_last_error
    end function
    function c_strategy_count() bind(c, name="haloex_strategy_count")
      import :: c_int
      integer(c_int) :: c_strategy_count
    end function
    function c_strategy_name(i) bind(c, name="haloex_strategy_name")
      import :: c_int, c_ptr
      integer(c_int), value :: i
      type(c_ptr) :: c_strategy_name
    end function
    function c_strlen(s) bind(c, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: c_strlen
    end function
  end interface

  ! The message of a failure the module finds itself (before any C call).
  character(len=:), allocatable :: local_error

contains

  ! A C string as a Fortran one ("" for NULL).
  function from_c(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  ! Reverse the first n entries (Fortran's x, y, z against C's).
  pure function reversed_long(v, n) result(r)
    integer(c_long), intent(in) :: v(3)
    integer, intent(in) :: n
    integer(c_long) :: r(3)
    r = v
    r(1:n) = v(n:1:-1)
  end function
  pure function reversed_int(v, n) result(r)
    integer(c_int), intent(in) :: v(3)
    integer, intent(in) :: n
    integer(c_int) :: r(3)
    r = v
    r(1:n) = v(n:1:-1)
  end function

  ! The decimal digits of n. (Not an internal write: libgfortran's format
  ! parser reads past its format string, which AddressSanitizer reports.)
  pure function text_of(n) result(s)
    integer(c_long), intent(in) :: n
    character(len=:), allocatable :: s
    integer(c_long) :: m
    m = abs(n)
    s = ""
    do
      s = achar(iachar("0") + int(mod(m, 10_c_long)))//s
      m = m / 10
      if (m == 0) exit
    end do
    if (n < 0) s = "-"//s
  end function

  integer function fail(status, text)
    integer, intent(in) :: status
    character(len=*), intent(in) :: text
    local_error = text
    fail = status
  end function

  !> The message of the last failed call.
  function haloex_last_error() result(s)
    character(len=:), allocatable :: s
    if (allocated(local_error)) then
      s = local_error
    else
      s = from_c(c_last_error())
    end if
  end function

  ! Every C call goes through here, so that the message is the C library's.
  integer function from(status)
    integer(c_int), intent(in) :: status
    if (allocated(local_error)) deallocate (local_error)
    from = int(status)
  end function

  !> Decompose a global lattice of size(global) (2 or 3) dimensions over
  !> comm: procs(d) ranks along d (0: chosen by MPI_Dims_create), periodic(d).
  integer function haloex_decomp_create(comm, global, procs, periodic, d) result(status)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: global(:), procs(:)
    logical, intent(in) :: periodic(:)
    type(haloex_decomp), intent(out) :: d
    integer :: n
    integer(c_long) :: g(3)
    integer(c_int) :: p(3), w(3)
    n = size(global)
    if ((n /= 2 .and. n /= 3) .or. size(procs) /= n .or. size(periodic) /= n) then
      status = fail(HALOEX_ERR_ARGUMENT, "haloex_decomp_create: global, procs and periodic need 2 or 3 entries each")
      return
    end if
    g = 1
    p = 0
    w = 1
    g(1:n) = int(global, c_long)
    p(1:n) = int(procs, c_int)
    w(1:n) = merge(1, 0, periodic)
    status = from(c_decomp_create(int(comm%MPI_VAL, c_int), int(n, c_int), reversed_long(g, n), &
                                  reversed_int(p, n), reversed_int(w, n), d%h))
  end function

  integer function haloex_decomp_free(d) result(status)
    type(haloex_decomp), intent(inout) :: d
    status = from(c_decomp_free(d%h))
  end function

  !> This rank's place, each (x, y, z): rank, ranks, process grid,
  !> coordinates, interior extents and the global index (from 0) of its
  !> first interior site.
  integer function haloex_decomp_info(d, ndim, rank, size, procs, coords, local, offset) result(status)
    type(haloex_decomp), intent(in) :: d
    integer, intent(in) :: ndim
    integer, intent(out) :: rank, size, procs(3), coords(3), local(3), offset(3)
    integer(c_int) :: r, s, p(3), c(3)
    integer(c_long) :: l(3), o(3)
    status = from(c_decomp_info(d%h, r, s, p, c, l, o))
    rank = r
    size = s
    procs = reversed_int(p, ndim)
    coords = reversed_int(c, ndim)
    local = int(reversed_long(l, ndim))
    offset = int(reversed_long(o, ndim))
  end function

  !> A plan for the fields on the decomposition of `ndim` dimensions.
  integer function haloex_plan_create(d, ndim, fields, p) result(status)
    type(haloex_decomp), intent(in) :: d
    integer, intent(in) :: ndim
    type(haloex_field), intent(in), target :: fields(:)
    type(haloex_plan), intent(out) :: p
    type(c_field) :: cf(size(fields))
    type :: dirs_t
      integer(c_int), allocatable :: v(:, :)
    end type
    type(dirs_t), target :: dirs(size(fields))
    integer :: k, i
    do k = 1, size(fields)
      cf(k) = c_field(fields(k)%type, fields(k)%ncomp, fields(k)%halo, fields(k)%layout, 0, c_null_ptr)
      if (allocated(fields(k)%dirs)) then
        if (any(shape(fields(k)%dirs) /= [ndim, fields(k)%ncomp])) then
          status = fail(HALOEX_ERR_ARGUMENT, "haloex_plan_create: dirs must be (ndim, ncomp)")
          return
        end if
        allocate (dirs(k)%v(3, fields(k)%ncomp))
        dirs(k)%v = 0
        do i = 1, fields(k)%ncomp
          dirs(k)%v(1:ndim, i) = int(fields(k)%dirs(ndim:1:-1, i), c_int)
        end do
        cf(k)%ndirs = fields(k)%ncomp
        cf(k)%dirs = c_loc(dirs(k)%v)
      end if
    end do
    p%ndim = ndim
    status = from(c_plan_create(d%h, int(size(fields), c_int), cf, p%h))
    if (status /= HALOEX_OK) return
    allocate (p%types(size(fields)), p%elements(size(fields)))
    do k = 1, size(fields)
      p%types(k) = fields(k)%type
      block
        integer(c_long) :: e(3)
        status = from(c_field_extents(p%h, int(k - 1, c_int), e, p%elements(k)))
      end block
    end do
  end function

  integer function haloex_plan_free(p) result(status)
    type(haloex_plan), intent(inout) :: p
    status = from(c_plan_free(p%h))
  end function

  !> Field k's (from 1) allocated extents (x, y, z), halo included, and the
  !> elements to allocate.
  integer function haloex_field_extents(p, k, extents, elements) result(status)
    type(haloex_plan), intent(in) :: p
    integer, intent(in) :: k
    integer, intent(out) :: extents(3)
    integer(c_long), intent(out) :: elements
    integer(c_long) :: e(3)
    status = from(c_field_extents(p%h, int(k - 1, c_int), e, elements))
    extents = int(reversed_long(e, p%ndim))
  end function

  integer function haloex_strategy_count()
    haloex_strategy_count = int(c_strategy_count())
  end function

  !> The name of strategy i, from 1.
  function haloex_strategy_name(i) result(s)
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    s = from_c(c_strategy_name(int(i - 1, c_int)))
  end function

  integer function haloex_exchange_create(p, strategy, x) result(status)
    type(haloex_plan), intent(in) :: p
    character(len=*), intent(in) :: strategy
    type(haloex_exchange), intent(out) :: x
    status = from(c_exchange_create(p%h, trim(strategy)//c_null_char, x%h))
    if (status == HALOEX_OK .and. allocated(p%types)) then
      x%types = p%types
      x%elements = p%elements
    end if
  end function

  integer function haloex_exchange_free(x) result(status)
    type(haloex_exchange), intent(inout) :: x
    status = from(c_exchange_free(x%h))
  end function

  !> The strategy that runs (what "auto" chose).
  integer function haloex_exchange_strategy(x, name) result(status)
    type(haloex_exchange), intent(in) :: x
    character(len=:), allocatable, intent(out) :: name
    type(c_ptr) :: s
    status = from(c_exchange_strategy(x%h, s))
    name = from_c(s)
  end function

  integer function haloex_exchange_end(x) result(status)
    type(haloex_exchange), intent(in) :: x
    status = from(c_exchange_end(x%h))
  end function

  integer function begin_ptrs(x, data) result(status)
    type(haloex_exchange), intent(in) :: x
    type(c_ptr), intent(in) :: data(:)
    status = from(c_exchange_begin(x%h, data))
  end function

  integer function run_ptrs(x, data) result(status)
    type(haloex_exchange), intent(in) :: x
    type(c_ptr), intent(in) :: data(:)
    status = begin_ptrs(x, data)
    if (status == HALOEX_OK) status = haloex_exchange_end(x)
  end function

  ! One array for a plan of one field: checked against the plan (type,
  ! element count, contiguity: a strided section would be copied to a
  ! temporary that is gone before the exchange ends), then its address.
  integer function begin_one(x, p, n, type, contiguous) result(status)
    type(haloex_exchange), intent(in) :: x
    type(c_ptr), intent(in) :: p
    integer(c_long), intent(in) :: n
    integer, intent(in) :: type
    logical, intent(in) :: contiguous
    if (.not. allocated(x%types)) then
      status = fail(HALOEX_ERR_HANDLE, "haloex_exchange_begin: the exchange was not created (or is freed)")
    else if (size(x%types) /= 1) then
      status = fail(HALOEX_ERR_ARGUMENT, "haloex_exchange_begin: the plan has several fields; pass c_loc pointers")
    else if (type /= x%types(1)) then
      status = fail(HALOEX_ERR_ARGUMENT, "haloex_exchange_begin: the array is "// &
                    trim(merge("real64", "real32", type == HALOEX_DOUBLE))//" but the field is "// &
                    trim(merge("real64", "real32", x%types(1) == HALOEX_DOUBLE)))
    else if (n /= x%elements(1)) then
      status = fail(HALOEX_ERR_ARGUMENT, "haloex_exchange_begin: the array has "//text_of(n)// &
                    " elements, the field with its halo "//text_of(x%elements(1)))
    else if (.not. contiguous) then
      status = fail(HALOEX_ERR_ARGUMENT, "haloex_exchange_begin: the array is not contiguous (a strided section?)")
    else
      status = begin_ptrs(x, [p])
    end if
  end function

  integer function run_one(x, p, n, type, contiguous) result(status)
    type(haloex_exchange), intent(in) :: x
    type(c_ptr), intent(in) :: p
    integer(c_long), intent(in) :: n
    integer, intent(in) :: type
    logical, intent(in) :: contiguous
    status = begin_one(x, p, n, type, contiguous)
    if (status == HALOEX_OK) status = haloex_exchange_end(x)
  end function
  integer function begin_d2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real64), intent(inout), target :: f(:, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_DOUBLE, is_contiguous(f))
  end function
  integer function run_d2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real64), intent(inout), target :: f(:, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_DOUBLE, is_contiguous(f))
  end function
  integer function begin_d3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real64), intent(inout), target :: f(:, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_DOUBLE, is_contiguous(f))
  end function
  integer function run_d3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real64), intent(inout), target :: f(:, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_DOUBLE, is_contiguous(f))
  end function
  integer function begin_d4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real64), intent(inout), target :: f(:, :, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_DOUBLE, is_contiguous(f))
  end function
  integer function run_d4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real64), intent(inout), target :: f(:, :, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_DOUBLE, is_contiguous(f))
  end function
  integer function begin_s2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real32), intent(inout), target :: f(:, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_FLOAT, is_contiguous(f))
  end function
  integer function run_s2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real32), intent(inout), target :: f(:, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_FLOAT, is_contiguous(f))
  end function
  integer function begin_s3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real32), intent(inout), target :: f(:, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_FLOAT, is_contiguous(f))
  end function
  integer function run_s3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real32), intent(inout), target :: f(:, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_FLOAT, is_contiguous(f))
  end function
  integer function begin_s4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real32), intent(inout), target :: f(:, :, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_FLOAT, is_contiguous(f))
  end function
  integer function run_s4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    real(real32), intent(inout), target :: f(:, :, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_FLOAT, is_contiguous(f))
  end function

end module haloex
