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
!
! Element types. haloex_exchange_begin and _run take arrays of rank 2 to 4
! of real(real64) (HALOEX_DOUBLE), real(real32) (HALOEX_FLOAT),
! integer(int32) (HALOEX_INT32), integer(int64) (HALOEX_INT64),
! integer(int8) (HALOEX_BYTE), complex(real64) (HALOEX_COMPLEX_DOUBLE) and
! complex(real32) (HALOEX_COMPLEX_FLOAT); the array's type must be the
! field's (c_loc pointers move any type of the field's size).
!
! Halo width and planes. haloex_field%width (0: halo) is how many halo
! planes next to the interior an exchange fills; the deeper ones keep their
! values. haloex_field%zhalo (2-D lattices only) allocates zhalo planes on
! each side of a third dimension that the library keeps FASTEST of the site
! indices, so that in Fortran order it comes first:
!
!   AoS: f(ncomp, 1-zh:1+zh, 1-h:nx+h, 1-h:ny+h)    SoA: f(1-zh:1+zh, 1-h:nx+h, 1-h:ny+h, ncomp)
!
! and only the plane z = 0 (index 0 above) has its halo filled. (A Fortran
! code whose z is its last index needs no zhalo: its plane f(:, :, 0) is a
! 2-D field already.) haloex_field_extents then gives (1+2*zh, x, y), the
! array's own order.
!
! Client decompositions. haloex_decomp_create_ranges takes the sites each
! process coordinate owns along x, y (and z), in Fortran order; ranks take
! their coordinates in the communicator's rank order with x FASTEST
! (rank = cx + px * (cy + py * cz), the reverse of C's row-major order).
! haloex_decomp_create_owned takes each rank's own box: `first` is the
! 1-BASED global index of its first interior site along x, y (z), as a
! Fortran loop counts (the first rank along x has first = 1), and `extent`
! its sites there. (haloex_decomp_info's offset stays 0-based: first =
! offset + 1. A 0-based `first` makes a cover starting at -1, which the
! library refuses with HALOEX_ERR_INPUT.)
module haloex
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: real32, real64, int8, int32, int64
  use mpi_f08, only: MPI_Comm
  implicit none
  private

  integer, parameter, public :: HALOEX_OK = 0, HALOEX_ERR_ARGUMENT = 1, HALOEX_ERR_HANDLE = 2, &
                                HALOEX_ERR_INPUT = 3, HALOEX_ERR_STATE = 4, HALOEX_ERR_MPI = 5, &
                                HALOEX_ERR_INTERNAL = 6
  integer, parameter, public :: HALOEX_DOUBLE = 0, HALOEX_FLOAT = 1, HALOEX_BYTE = 2, HALOEX_INT32 = 3, &
                                HALOEX_INT64 = 4, HALOEX_COMPLEX_FLOAT = 5, HALOEX_COMPLEX_DOUBLE = 6
  integer, parameter, public :: HALOEX_AOS = 0, HALOEX_SOA = 1

  !> A decomposed lattice, a plan of fields on it, a strategy running a plan.
  type, public :: haloex_decomp
    type(c_ptr) :: h = c_null_ptr
  end type
  type, public :: haloex_plan
    type(c_ptr) :: h = c_null_ptr
    integer :: ndim = 0
    integer, allocatable :: types(:)                 ! per field, to check arrays
    integer, allocatable :: zhalo(:)
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
  !> travels); the halo planes exchanged (width, 0: halo) and, 2-D only,
  !> the planes allocated on each side of z (zhalo; see the header); the
  !> sites allocated past the lattice's box (extra_sites: a code's own
  !> buffers, which no exchange touches; in SoA each component's block is
  !> that much longer, an array f(0:nsites+extra_sites-1, ncomp)).
  !> haloex_field(HALOEX_INT32, 2, 3, HALOEX_SOA, width=1)
  type, public :: haloex_field
    integer :: type = HALOEX_DOUBLE
    integer :: ncomp = 1
    integer :: halo = 1
    integer :: layout = HALOEX_AOS
    integer, allocatable :: dirs(:, :)
    integer :: width = 0
    integer :: zhalo = 0
    integer(c_long) :: extra_sites = 0
  end type

  type, bind(c) :: c_field
    integer(c_int) :: type, ncomp, halo, layout, ndirs
    type(c_ptr) :: dirs
    integer(c_int) :: width, zhalo
    integer(c_long) :: extra_sites
  end type

  public :: haloex_decomp_create, haloex_decomp_free, haloex_decomp_info
  public :: haloex_decomp_create_ranges, haloex_decomp_create_owned, haloex_type_size
  public :: haloex_plan_create, haloex_plan_free, haloex_field_extents
  public :: haloex_exchange_create, haloex_exchange_free, haloex_exchange_strategy
  public :: haloex_exchange_begin, haloex_exchange_end, haloex_exchange_run
  public :: haloex_last_error, haloex_strategy_count, haloex_strategy_name

  !> Start (begin), or start and complete (run), the exchange of a plan of
  !> one field given as an array, or of several given as c_loc pointers.
  interface haloex_exchange_begin
    module procedure begin_d2, begin_d3, begin_d4, begin_s2, begin_s3, begin_s4, begin_ptrs
    module procedure begin_i2, begin_i3, begin_i4, begin_l2, begin_l3, begin_l4, begin_b2, begin_b3, begin_b4
    module procedure begin_z2, begin_z3, begin_z4, begin_c2, begin_c3, begin_c4
  end interface
  interface haloex_exchange_run
    module procedure run_d2, run_d3, run_d4, run_s2, run_s3, run_s4, run_ptrs
    module procedure run_i2, run_i3, run_i4, run_l2, run_l3, run_l4, run_b2, run_b3, run_b4
    module procedure run_z2, run_z3, run_z4, run_c2, run_c3, run_c4
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
    function c_decomp_create_ranges(comm, ndim, global, procs, periodic, extents, out) &
      bind(c, name="haloex_decomp_create_ranges_f")
      import :: c_int, c_long, c_ptr
      integer(c_int), value :: comm, ndim
      integer(c_long), intent(in) :: global(*)
      integer(c_int), intent(in) :: procs(*), periodic(*)
      type(c_ptr), intent(in) :: extents(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_decomp_create_ranges
    end function
    function c_decomp_create_owned(comm, ndim, global, periodic, first, extent, out) &
      bind(c, name="haloex_decomp_create_owned_f")
      import :: c_int, c_long, c_ptr
      integer(c_int), value :: comm, ndim
      integer(c_long), intent(in) :: global(*), first(*), extent(*)
      integer(c_int), intent(in) :: periodic(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_decomp_create_owned
    end function
    function c_type_size(type) bind(c, name="haloex_type_size")
      import :: c_int
      integer(c_int), value :: type
      integer(c_int) :: c_type_size
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

  ! The lattice arguments of the decomposition calls as C wants them (still
  ! in Fortran order): n = 2 or 3 dimensions, else a failure.
  integer function lattice(what, global, procs, periodic, n, g, p, w) result(status)
    character(len=*), intent(in) :: what
    integer, intent(in) :: global(:), procs(:)
    logical, intent(in) :: periodic(:)
    integer, intent(out) :: n
    integer(c_long), intent(out) :: g(3)
    integer(c_int), intent(out) :: p(3), w(3)
    n = size(global)
    g = 1
    p = 0
    w = 1
    if ((n /= 2 .and. n /= 3) .or. size(procs) /= n .or. size(periodic) /= n) then
      status = fail(HALOEX_ERR_ARGUMENT, what//": global, procs and periodic need 2 or 3 entries each")
      return
    end if
    g(1:n) = int(global, c_long)
    p(1:n) = int(procs, c_int)
    w(1:n) = merge(1, 0, periodic)
    status = HALOEX_OK
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
    status = lattice("haloex_decomp_create", global, procs, periodic, n, g, p, w)
    if (status /= HALOEX_OK) return
    status = from(c_decomp_create(int(comm%MPI_VAL, c_int), int(n, c_int), reversed_long(g, n), &
                                  reversed_int(p, n), reversed_int(w, n), d%h))
  end function

  !> A decomposition whose split the client chose: procs(d) >= 1 ranks along
  !> d, and extents_x(i) the sites that process coordinate i-1 owns along x
  !> (procs(1) entries, each >= 1, summing to global(1)); likewise y and z.
  !> An absent or empty extents_* splits that dimension as
  !> haloex_decomp_create does. Ranks take their coordinates in comm's rank
  !> order, x fastest. Collective, with the same arguments on every rank.
  integer function haloex_decomp_create_ranges(comm, global, procs, periodic, d, extents_x, extents_y, extents_z) &
    result(status)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: global(:), procs(:)
    logical, intent(in) :: periodic(:)
    type(haloex_decomp), intent(out) :: d
    integer, intent(in), optional :: extents_x(:), extents_y(:), extents_z(:)
    type :: longs_t
      integer(c_long), allocatable :: v(:)
    end type
    type(longs_t), target :: e(3)
    type(c_ptr) :: ptrs(3)
    character(len=1), parameter :: names(3) = ["x", "y", "z"]
    integer :: n, k
    integer(c_long) :: g(3)
    integer(c_int) :: p(3), w(3)
    status = lattice("haloex_decomp_create_ranges", global, procs, periodic, n, g, p, w)
    if (status /= HALOEX_OK) return
    if (present(extents_x)) e(1)%v = int(extents_x, c_long)
    if (present(extents_y)) e(2)%v = int(extents_y, c_long)
    if (present(extents_z)) e(3)%v = int(extents_z, c_long)
    if (n == 2 .and. allocated(e(3)%v)) then
      status = fail(HALOEX_ERR_ARGUMENT, "haloex_decomp_create_ranges: extents_z on a 2-D lattice")
      return
    end if
    ptrs = c_null_ptr
    do k = 1, n
      if (.not. allocated(e(k)%v)) cycle
      if (size(e(k)%v) == 0) cycle
      if (size(e(k)%v) /= p(k)) then
        status = fail(HALOEX_ERR_ARGUMENT, "haloex_decomp_create_ranges: extents_"//names(k)//" has "// &
                      text_of(size(e(k)%v, kind=c_long))//" entries, procs("//achar(iachar("0") + k)//") is "// &
                      text_of(int(p(k), c_long)))
        return
      end if
      ptrs(n + 1 - k) = c_loc(e(k)%v)
    end do
    status = from(c_decomp_create_ranges(int(comm%MPI_VAL, c_int), int(n, c_int), reversed_long(g, n), &
                                         reversed_int(p, n), reversed_int(w, n), ptrs, d%h))
  end function

  !> A decomposition from each rank's own box: first(d) is the 1-BASED
  !> global index of this rank's first interior site along d (x, y, z) and
  !> extent(d) its sites there. The boxes must tile the lattice as a process
  !> grid does; the grid and each rank's coordinates follow from them, so
  !> the client's rank order is kept. Collective; a bad cover is
  !> HALOEX_ERR_INPUT on every rank.
  integer function haloex_decomp_create_owned(comm, global, periodic, first, extent, d) result(status)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: global(:), first(:), extent(:)
    logical, intent(in) :: periodic(:)
    type(haloex_decomp), intent(out) :: d
    integer :: n
    integer(c_long) :: g(3), f(3), e(3)
    integer(c_int) :: p(3), w(3)
    status = lattice("haloex_decomp_create_owned", global, spread(0, 1, size(global)), periodic, n, g, p, w)
    if (status /= HALOEX_OK) return
    if (size(first) /= n .or. size(extent) /= n) then
      status = fail(HALOEX_ERR_ARGUMENT, "haloex_decomp_create_owned: first and extent need one entry a dimension")
      return
    end if
    f = 0
    e = 1
    f(1:n) = int(first, c_long) - 1
    e(1:n) = int(extent, c_long)
    status = from(c_decomp_create_owned(int(comm%MPI_VAL, c_int), int(n, c_int), reversed_long(g, n), &
                                        reversed_int(w, n), reversed_long(f, n), reversed_long(e, n), d%h))
  end function

  !> Bytes of one element of a haloex type, 0 for an unknown one.
  integer function haloex_type_size(type)
    integer, intent(in) :: type
    haloex_type_size = int(c_type_size(int(type, c_int)))
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
      cf(k) = c_field(fields(k)%type, fields(k)%ncomp, fields(k)%halo, fields(k)%layout, 0, c_null_ptr, &
                      fields(k)%width, fields(k)%zhalo, fields(k)%extra_sites)
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
    allocate (p%types(size(fields)), p%elements(size(fields)), p%zhalo(size(fields)))
    do k = 1, size(fields)
      p%types(k) = fields(k)%type
      p%zhalo(k) = fields(k)%zhalo
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
  !> elements to allocate. (With zhalo: (1+2*zhalo, x, y), the array's order.)
  integer function haloex_field_extents(p, k, extents, elements) result(status)
    type(haloex_plan), intent(in) :: p
    integer, intent(in) :: k
    integer, intent(out) :: extents(3)
    integer(c_long), intent(out) :: elements
    integer(c_long) :: e(3)
    integer :: n
    status = from(c_field_extents(p%h, int(k - 1, c_int), e, elements))
    n = p%ndim
    if (allocated(p%zhalo) .and. k >= 1 .and. k <= size(p%zhalo)) then
      if (p%zhalo(k) > 0) n = 3
    end if
    extents = int(reversed_long(e, n))
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

  ! A type's name as the array's Fortran kind.
  function type_name(type) result(s)
    integer, intent(in) :: type
    character(len=:), allocatable :: s
    select case (type)
    case (HALOEX_DOUBLE)
      s = "real64"
    case (HALOEX_FLOAT)
      s = "real32"
    case (HALOEX_BYTE)
      s = "int8"
    case (HALOEX_INT32)
      s = "int32"
    case (HALOEX_INT64)
      s = "int64"
    case (HALOEX_COMPLEX_FLOAT)
      s = "complex(real32)"
    case (HALOEX_COMPLEX_DOUBLE)
      s = "complex(real64)"
    case default
      s = "type "//text_of(int(type, c_long))
    end select
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
      status = fail(HALOEX_ERR_ARGUMENT, "haloex_exchange_begin: the array is "//type_name(type)// &
                    " but the field is "//type_name(x%types(1)))
    else if (n /= x%elements(1)) then
      status = fail(HALOEX_ERR_ARGUMENT, "haloex_exchange_begin: the array has "//text_of(n)// &
                    " elements, the field with its halo (and extra_sites) "//text_of(x%elements(1)))
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

  ! The same for the integer and complex types.
  integer function begin_i2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int32), intent(inout), target :: f(:, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT32, is_contiguous(f))
  end function
  integer function run_i2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int32), intent(inout), target :: f(:, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT32, is_contiguous(f))
  end function
  integer function begin_i3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int32), intent(inout), target :: f(:, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT32, is_contiguous(f))
  end function
  integer function run_i3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int32), intent(inout), target :: f(:, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT32, is_contiguous(f))
  end function
  integer function begin_i4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int32), intent(inout), target :: f(:, :, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT32, is_contiguous(f))
  end function
  integer function run_i4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int32), intent(inout), target :: f(:, :, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT32, is_contiguous(f))
  end function
  integer function begin_l2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int64), intent(inout), target :: f(:, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT64, is_contiguous(f))
  end function
  integer function run_l2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int64), intent(inout), target :: f(:, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT64, is_contiguous(f))
  end function
  integer function begin_l3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int64), intent(inout), target :: f(:, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT64, is_contiguous(f))
  end function
  integer function run_l3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int64), intent(inout), target :: f(:, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT64, is_contiguous(f))
  end function
  integer function begin_l4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int64), intent(inout), target :: f(:, :, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT64, is_contiguous(f))
  end function
  integer function run_l4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int64), intent(inout), target :: f(:, :, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_INT64, is_contiguous(f))
  end function
  integer function begin_b2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int8), intent(inout), target :: f(:, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_BYTE, is_contiguous(f))
  end function
  integer function run_b2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int8), intent(inout), target :: f(:, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_BYTE, is_contiguous(f))
  end function
  integer function begin_b3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int8), intent(inout), target :: f(:, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_BYTE, is_contiguous(f))
  end function
  integer function run_b3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int8), intent(inout), target :: f(:, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_BYTE, is_contiguous(f))
  end function
  integer function begin_b4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int8), intent(inout), target :: f(:, :, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_BYTE, is_contiguous(f))
  end function
  integer function run_b4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    integer(int8), intent(inout), target :: f(:, :, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_BYTE, is_contiguous(f))
  end function
  integer function begin_z2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real64), intent(inout), target :: f(:, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_DOUBLE, is_contiguous(f))
  end function
  integer function run_z2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real64), intent(inout), target :: f(:, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_DOUBLE, is_contiguous(f))
  end function
  integer function begin_z3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real64), intent(inout), target :: f(:, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_DOUBLE, is_contiguous(f))
  end function
  integer function run_z3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real64), intent(inout), target :: f(:, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_DOUBLE, is_contiguous(f))
  end function
  integer function begin_z4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real64), intent(inout), target :: f(:, :, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_DOUBLE, is_contiguous(f))
  end function
  integer function run_z4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real64), intent(inout), target :: f(:, :, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_DOUBLE, is_contiguous(f))
  end function
  integer function begin_c2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real32), intent(inout), target :: f(:, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_FLOAT, is_contiguous(f))
  end function
  integer function run_c2(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real32), intent(inout), target :: f(:, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_FLOAT, is_contiguous(f))
  end function
  integer function begin_c3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real32), intent(inout), target :: f(:, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_FLOAT, is_contiguous(f))
  end function
  integer function run_c3(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real32), intent(inout), target :: f(:, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_FLOAT, is_contiguous(f))
  end function
  integer function begin_c4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real32), intent(inout), target :: f(:, :, :, :)
    status = begin_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_FLOAT, is_contiguous(f))
  end function
  integer function run_c4(x, f) result(status)
    type(haloex_exchange), intent(in) :: x
    complex(real32), intent(inout), target :: f(:, :, :, :)
    status = run_one(x, c_loc(f), size(f, kind=c_long), HALOEX_COMPLEX_FLOAT, is_contiguous(f))
  end function

end module haloex
