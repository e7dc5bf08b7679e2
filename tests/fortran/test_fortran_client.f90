! The haloex module's client-facing calls against the global-index encoding,
! in Fortran's index order (x first): every interior (site, component)
! holds a value made from its global (x, y, z) and component, every halo
! element a sentinel. After an exchange each halo element within `width` of
! the interior must hold its periodic image's value; the elements that are
! not to be filled (across a wall, halo planes deeper than `width`, the
! z planes of a 2-D field with zhalo) must keep their sentinel. Every
! strategy, on:
!   - haloex_decomp_create_ranges, the remainder on the LAST coordinates
!     (haloex gives it to the first), 3-D AoS integer(int32) f(c, x, y, z);
!   - haloex_decomp_create_owned, boxes in the reverse rank order with z
!     fastest and the remainder in the middle (HPC4WC's split), 3-D SoA
!     complex(real64) f(x, y, z, c), halo 3 exchanged 1 wide;
!   - a 2-D field with zhalo = 1 and width 1 < halo 2, AoS integer(int64)
!     f(c, z, x, y) on create_ranges;
!   - 2-D SoA complex(real32) (begin and end) and AoS integer(int8);
!   - 3-D SoA real(real64) with extra_sites past the lattice, a different
!     number on each rank, held as f(0:sites+extra-1, c): the extra sites
!     keep their sentinel.
! Then bad calls, each with its status and message. Exit 0 only when all pass.
program test_fortran_client
  use mpi_f08
  use haloex
  use, intrinsic :: iso_fortran_env, only: int8, int32, int64, real32, real64, error_unit
  implicit none
  integer :: failures = 0, all_failures, rank, nranks, s, ran = 0, refusals = 0, k
  integer(int64), parameter :: SENTINEL = -1, PLANE = -2

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  ! (above 8 ranks, 27 and 64, the lattices grow to give every rank a few
  ! sites a dimension, still split unevenly)
  k = merge(1, 4, nranks <= 8)
  call type_sizes()
  do s = 1, haloex_strategy_count()
    call ranges3_int32(haloex_strategy_name(s), grown([13, 11, 9]), [.true., .false., .true.])
    call owned3_complex(haloex_strategy_name(s), grown([7, 5, 6]), [.true., .true., .false.])
    call zhalo2_int64(haloex_strategy_name(s), grown([9, 8]), [.true., .true.])
    call small2(haloex_strategy_name(s), grown([10, 7]), [.true., .false.])
    call extra3_real64(haloex_strategy_name(s), grown([6, 5, 7]), [.true., .true., .false.])
  end do
  call bad_calls()
  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  ! (list-directed: libgfortran reads past a format string, which AddressSanitizer reports)
  if (rank == 0) print *, "Fortran client:", ran, "exchanges checked,", refusals, "refused by a strategy,", &
    all_failures, "failures"
  call MPI_Finalize()
  if (all_failures /= 0) error stop 1

contains

  ! A lattice's sizes for this many ranks.
  pure function grown(n) result(m)
    integer, intent(in) :: n(:)
    integer :: m(size(n))
    m = n * k + merge(0, 1, k == 1)
  end function

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      failures = failures + 1
      if (failures <= 20) write (error_unit, *) "FAIL (rank", rank, "): "//what
    end if
  end subroutine

  subroutine ok(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= HALOEX_OK) call check(.false., what//": "//haloex_last_error())
  end subroutine

  ! The value of global site g (from 0), component c (from 1).
  integer(int64) function enc(g, n, c, ncomp)
    integer, intent(in) :: g(3), n(3), c, ncomp
    enc = ((int(g(3), int64) * n(2) + g(2)) * n(1) + g(1)) * ncomp + c
  end function

  ! Local site l (from 1; halo <= 0 or > local) along ndim dimensions:
  ! state 0 interior, 1 a halo site the exchange fills (g: the global site
  ! it mirrors, wrapped where periodic), 2 one it must leave alone (across
  ! a wall, or deeper than width from the interior along some dimension).
  subroutine classify(l, local, offset, n, periodic, ndim, width, g, state)
    integer, intent(in) :: l(3), local(3), offset(3), n(3), ndim, width
    logical, intent(in) :: periodic(:)
    integer, intent(out) :: g(3), state
    integer :: d, depth
    logical :: wall
    wall = .false.
    depth = 0
    g = 0
    do d = 1, ndim
      if (l(d) < 1) depth = max(depth, 1 - l(d))
      if (l(d) > local(d)) depth = max(depth, l(d) - local(d))
      g(d) = offset(d) + l(d) - 1
      if (g(d) < 0 .or. g(d) >= n(d)) then
        if (periodic(d)) then
          g(d) = modulo(g(d), n(d))
        else
          wall = .true.
        end if
      end if
    end do
    if (depth == 0) then
      state = 0
    else if (wall .or. depth > width) then
      state = 2
    else
      state = 1
    end if
  end subroutine

  ! Extents owned by coordinates 0.. of a split of n over p.
  function split_last(n, p) result(e)   ! the remainder on the last coordinates
    integer, intent(in) :: n, p
    integer :: e(p), i
    e = [(n / p + merge(1, 0, i > p - mod(n, p)), i=1, p)]
  end function
  function split_middle(n, p) result(e) ! HPC4WC's distribute_to_bins
    integer, intent(in) :: n, p
    integer :: e(p), r, first
    e = n / p
    r = mod(n, p)
    first = p / 2 - r / 2 + 1
    if (r > 0) e(first:first + r - 1) = e(first:first + r - 1) + 1
  end function

  ! The exchange of a one-field plan by `name`; refused = a strategy that
  ! cannot run this plan here (red-black on odd ranks), which only "direct"
  ! must never be.
  subroutine setup(name, what, d, ndim, field, p, x, refused)
    character(len=*), intent(in) :: name, what
    type(haloex_decomp), intent(in) :: d
    integer, intent(in) :: ndim
    type(haloex_field), intent(in) :: field
    type(haloex_plan), intent(out) :: p
    type(haloex_exchange), intent(out) :: x
    logical, intent(out) :: refused
    refused = .false.
    call ok(haloex_plan_create(d, ndim, [field], p), name//" "//what//" plan")
    if (haloex_exchange_create(p, name, x) /= HALOEX_OK) then
      refused = .true.
      refusals = refusals + 1
      call check(name /= "direct", what//": direct refused: "//haloex_last_error())
      if (rank == 0 .and. refusals <= 8) print *, "(", name, " refuses ", what, ": ", haloex_last_error(), ")"
    end if
  end subroutine

  subroutine teardown(d, p, x)
    type(haloex_decomp), intent(inout) :: d
    type(haloex_plan), intent(inout) :: p
    type(haloex_exchange), intent(inout) :: x
    integer :: rc
    rc = haloex_exchange_free(x)
    rc = haloex_plan_free(p)
    rc = haloex_decomp_free(d)
  end subroutine

  subroutine type_sizes()
    call check(haloex_type_size(HALOEX_DOUBLE) == 8 .and. haloex_type_size(HALOEX_FLOAT) == 4 .and. &
               haloex_type_size(HALOEX_BYTE) == 1 .and. haloex_type_size(HALOEX_INT32) == 4 .and. &
               haloex_type_size(HALOEX_INT64) == 8 .and. haloex_type_size(HALOEX_COMPLEX_FLOAT) == 8 .and. &
               haloex_type_size(HALOEX_COMPLEX_DOUBLE) == 16 .and. haloex_type_size(99) == 0, &
               "haloex_type_size")
    call check(storage_size(0_int8) == 8 * haloex_type_size(HALOEX_BYTE) .and. &
               storage_size((0.0_real64, 0.0_real64)) == 8 * haloex_type_size(HALOEX_COMPLEX_DOUBLE), &
               "Fortran kinds against haloex_type_size")
  end subroutine

  ! create_ranges, the remainder on the last coordinates; AoS int32, halo 2.
  subroutine ranges3_int32(name, n, periodic)
    character(len=*), intent(in) :: name
    integer, intent(in) :: n(3)
    logical, intent(in) :: periodic(3)
    integer, parameter :: nc = 2, h = 2
    type(haloex_decomp) :: d
    type(haloex_plan) :: p
    type(haloex_exchange) :: x
    integer(int32), allocatable :: f(:, :, :, :)
    integer :: dims(3), r, sz, procs(3), coords(3), local(3), offset(3), want(3), i, j, k, c, g(3), st
    integer, allocatable :: ex(:), ey(:), ez(:)
    logical :: refused, good
    dims = 0
    call MPI_Dims_create(nranks, 3, dims)
    ex = split_last(n(1), dims(1))
    ey = split_last(n(2), dims(2))
    ez = split_last(n(3), dims(3))
    call ok(haloex_decomp_create_ranges(MPI_COMM_WORLD, n, dims, periodic, d, ex, ey, ez), "create_ranges 3-D")
    call ok(haloex_decomp_info(d, 3, r, sz, procs, coords, local, offset), "info")
    ! coordinates in rank order, x fastest (the header's promise)
    call check(all(procs == dims), "create_ranges: the process grid")
    call check(all(coords == [mod(rank, dims(1)), mod(rank / dims(1), dims(2)), rank / (dims(1) * dims(2))]), &
               "create_ranges: coordinates are not in rank order with x fastest")
    want = [ex(coords(1) + 1), ey(coords(2) + 1), ez(coords(3) + 1)]
    call check(all(local == want), "create_ranges: local extents are not the client's")
    call check(offset(1) == sum(ex(1:coords(1))) .and. offset(2) == sum(ey(1:coords(2))) .and. &
               offset(3) == sum(ez(1:coords(3))), "create_ranges: offsets are not the client's")
    call setup(name, "ranges3_int32", d, 3, haloex_field(HALOEX_INT32, nc, h, HALOEX_AOS), p, x, refused)
    if (refused) then
      call teardown(d, p, x)
      return
    end if
    allocate (f(nc, 1 - h:local(1) + h, 1 - h:local(2) + h, 1 - h:local(3) + h))
    f = int(SENTINEL, int32)
    do k = 1, local(3)
      do j = 1, local(2)
        do i = 1, local(1)
          call classify([i, j, k], local, offset, n, periodic, 3, h, g, st)
          f(:, i, j, k) = [(int(enc(g, n, c, nc), int32), c=1, nc)]
        end do
      end do
    end do
    call ok(haloex_exchange_run(x, f), name//" ranges3_int32 run")
    good = .true.
    do k = 1 - h, local(3) + h
      do j = 1 - h, local(2) + h
        do i = 1 - h, local(1) + h
          call classify([i, j, k], local, offset, n, periodic, 3, h, g, st)
          do c = 1, nc
            if (st == 2) then
              good = good .and. f(c, i, j, k) == SENTINEL
            else
              good = good .and. f(c, i, j, k) == enc(g, n, c, nc)
            end if
          end do
        end do
      end do
    end do
    call check(good, name//" ranges3_int32: a halo value is wrong")
    ran = ran + 1
    call teardown(d, p, x)
  end subroutine

  ! create_owned: the boxes of a grid whose coordinates go in the reverse
  ! rank order with z fastest, the remainder in the middle; SoA
  ! complex(real64), halo 3 allocated, 1 exchanged.
  subroutine owned3_complex(name, n, periodic)
    character(len=*), intent(in) :: name
    integer, intent(in) :: n(3)
    logical, intent(in) :: periodic(3)
    integer, parameter :: nc = 2, h = 3, w = 1
    type(haloex_decomp) :: d
    type(haloex_plan) :: p
    type(haloex_exchange) :: x
    complex(real64), allocatable :: f(:, :, :, :)
    integer :: dims(3), mine(3), q, r, sz, procs(3), coords(3), local(3), offset(3), first(3), extent(3)
    integer :: i, j, k, c, g(3), st, e(3)
    integer, allocatable :: ex(:), ey(:), ez(:)
    integer(int64) :: v, elements
    logical :: refused, good
    dims = 0
    call MPI_Dims_create(nranks, 3, dims)
    q = nranks - 1 - rank
    mine = [q / (dims(3) * dims(2)), mod(q / dims(3), dims(2)), mod(q, dims(3))]
    ex = split_middle(n(1), dims(1))
    ey = split_middle(n(2), dims(2))
    ez = split_middle(n(3), dims(3))
    first = [sum(ex(1:mine(1))), sum(ey(1:mine(2))), sum(ez(1:mine(3)))] + 1   ! 1-based
    extent = [ex(mine(1) + 1), ey(mine(2) + 1), ez(mine(3) + 1)]
    call ok(haloex_decomp_create_owned(MPI_COMM_WORLD, n, periodic, first, extent, d), "create_owned 3-D")
    call ok(haloex_decomp_info(d, 3, r, sz, procs, coords, local, offset), "info")
    call check(all(procs == dims), "create_owned: the process grid")
    call check(all(coords == mine), "create_owned: coordinates are not the boxes' places")
    call check(all(local == extent) .and. all(offset == first - 1), &
               "create_owned: local and offset are not the box (first is 1-based, offset 0-based)")
    call setup(name, "owned3_complex", d, 3, haloex_field(HALOEX_COMPLEX_DOUBLE, nc, h, HALOEX_SOA, width=w), &
               p, x, refused)
    if (refused) then
      call teardown(d, p, x)
      return
    end if
    call ok(haloex_field_extents(p, 1, e, elements), "extents")
    call check(all(e == local + 2 * h) .and. elements == product(int(e, int64)) * nc, "owned3: field extents")
    allocate (f(1 - h:local(1) + h, 1 - h:local(2) + h, 1 - h:local(3) + h, nc))
    f = cmplx(SENTINEL, SENTINEL, real64)
    do k = 1, local(3)
      do j = 1, local(2)
        do i = 1, local(1)
          call classify([i, j, k], local, offset, n, periodic, 3, w, g, st)
          do c = 1, nc
            v = enc(g, n, c, nc)
            f(i, j, k, c) = cmplx(v, -v, real64)
          end do
        end do
      end do
    end do
    call ok(haloex_exchange_run(x, f), name//" owned3_complex run")
    good = .true.
    do c = 1, nc
      do k = 1 - h, local(3) + h
        do j = 1 - h, local(2) + h
          do i = 1 - h, local(1) + h
            call classify([i, j, k], local, offset, n, periodic, 3, w, g, st)
            v = merge(SENTINEL, enc(g, n, c, nc), st == 2)
            good = good .and. f(i, j, k, c) == cmplx(v, merge(v, -v, st == 2), real64)
          end do
        end do
      end do
    end do
    call check(good, name//" owned3_complex: a halo value is wrong (or a plane beyond width was filled)")
    ran = ran + 1
    call teardown(d, p, x)
  end subroutine

  ! A 2-D lattice in 3-D arrays: zhalo 1 plane on each side of z, which in
  ! Fortran order is the first site index: AoS int64 f(c, z, x, y), halo 2
  ! exchanged 1 wide. Planes z = -1 and 1 must stay as they are.
  subroutine zhalo2_int64(name, n2, periodic)
    character(len=*), intent(in) :: name
    integer, intent(in) :: n2(2)
    logical, intent(in) :: periodic(2)
    integer, parameter :: nc = 2, h = 2, w = 1, zh = 1
    type(haloex_decomp) :: d
    type(haloex_plan) :: p
    type(haloex_exchange) :: x
    integer(int64), allocatable :: f(:, :, :, :)
    integer :: dims(2), r, sz, procs(3), coords(3), local(3), offset(3), n(3), i, j, z, c, g(3), st, e(3)
    integer, allocatable :: ex(:), ey(:)
    integer(int64) :: elements
    logical :: refused, good
    dims = 0
    call MPI_Dims_create(nranks, 2, dims)
    n = [n2(1), n2(2), 1]
    call ok(haloex_decomp_create_ranges(MPI_COMM_WORLD, n2, dims, periodic, d, split_last(n2(1), dims(1)), &
                                        split_last(n2(2), dims(2))), "create_ranges 2-D")
    call ok(haloex_decomp_info(d, 2, r, sz, procs, coords, local, offset), "info")
    ex = split_last(n2(1), dims(1))
    ey = split_last(n2(2), dims(2))
    call check(all(coords(1:2) == [mod(rank, dims(1)), rank / dims(1)]) .and. local(1) == ex(coords(1) + 1) .and. &
               local(2) == ey(coords(2) + 1) .and. local(3) == 1 .and. offset(1) == sum(ex(1:coords(1))) .and. &
               offset(2) == sum(ey(1:coords(2))), "create_ranges 2-D: coordinates, local extents or offsets")
    call setup(name, "zhalo2_int64", d, 2, haloex_field(HALOEX_INT64, nc, h, HALOEX_AOS, width=w, zhalo=zh), &
               p, x, refused)
    if (refused) then
      call teardown(d, p, x)
      return
    end if
    call ok(haloex_field_extents(p, 1, e, elements), "extents")
    call check(all(e == [1 + 2 * zh, local(1) + 2 * h, local(2) + 2 * h]) .and. &
               elements == product(int(e, int64)) * nc, "zhalo2: field extents are not (1+2*zhalo, x, y)")
    allocate (f(nc, -zh:zh, 1 - h:local(1) + h, 1 - h:local(2) + h))
    f = PLANE
    f(:, 0, :, :) = SENTINEL
    do j = 1, local(2)
      do i = 1, local(1)
        call classify([i, j, 1], local, offset, n, periodic, 2, w, g, st)
        f(:, 0, i, j) = [(enc(g, n, c, nc), c=1, nc)]
      end do
    end do
    call ok(haloex_exchange_run(x, f), name//" zhalo2_int64 run")
    good = .true.
    do j = 1 - h, local(2) + h
      do i = 1 - h, local(1) + h
        call classify([i, j, 1], local, offset, n, periodic, 2, w, g, st)
        do c = 1, nc
          good = good .and. f(c, 0, i, j) == merge(SENTINEL, enc(g, n, c, nc), st == 2)
          do z = -zh, zh
            if (z /= 0) good = good .and. f(c, z, i, j) == PLANE
          end do
        end do
      end do
    end do
    call check(good, name//" zhalo2_int64: a halo value is wrong (or a z plane was written)")
    ran = ran + 1
    call teardown(d, p, x)
  end subroutine

  ! haloex's own split: 2-D SoA complex(real32) f(x, y, c) with begin and
  ! end, and AoS int8 f(c, x, y) (values modulo 127, so not unique).
  subroutine small2(name, n2, periodic)
    character(len=*), intent(in) :: name
    integer, intent(in) :: n2(2)
    logical, intent(in) :: periodic(2)
    integer, parameter :: h = 1
    type(haloex_decomp) :: d
    type(haloex_plan) :: p
    type(haloex_exchange) :: x
    complex(real32), allocatable :: fc(:, :, :)
    integer(int8), allocatable :: fb(:, :, :)
    integer :: r, sz, procs(3), coords(3), local(3), offset(3), n(3), i, j, c, g(3), st
    logical :: refused, good
    n = [n2(1), n2(2), 1]
    call ok(haloex_decomp_create(MPI_COMM_WORLD, n2, [0, 0], periodic, d), "decomp 2-D")
    call ok(haloex_decomp_info(d, 2, r, sz, procs, coords, local, offset), "info")
    call setup(name, "small2_complex32", d, 2, haloex_field(HALOEX_COMPLEX_FLOAT, 2, h, HALOEX_SOA), p, x, refused)
    if (.not. refused) then
      allocate (fc(1 - h:local(1) + h, 1 - h:local(2) + h, 2))
      fc = cmplx(SENTINEL, SENTINEL, real32)
      do j = 1, local(2)
        do i = 1, local(1)
          call classify([i, j, 1], local, offset, n, periodic, 2, h, g, st)
          fc(i, j, :) = [(cmplx(enc(g, n, c, 2), c, real32), c=1, 2)]
        end do
      end do
      call ok(haloex_exchange_begin(x, fc), name//" small2_complex32 begin")
      call ok(haloex_exchange_end(x), name//" small2_complex32 end")
      good = .true.
      do j = 1 - h, local(2) + h
        do i = 1 - h, local(1) + h
          call classify([i, j, 1], local, offset, n, periodic, 2, h, g, st)
          do c = 1, 2
            if (st == 2) then
              good = good .and. fc(i, j, c) == cmplx(SENTINEL, SENTINEL, real32)
            else
              good = good .and. fc(i, j, c) == cmplx(enc(g, n, c, 2), c, real32)
            end if
          end do
        end do
      end do
      call check(good, name//" small2_complex32: a halo value is wrong")
      ran = ran + 1
    end if
    call exchange_free_plan(p, x)
    call setup(name, "small2_int8", d, 2, haloex_field(HALOEX_BYTE, 3, h, HALOEX_AOS), p, x, refused)
    if (.not. refused) then
      allocate (fb(3, 1 - h:local(1) + h, 1 - h:local(2) + h))
      fb = int(SENTINEL, int8)
      do j = 1, local(2)
        do i = 1, local(1)
          call classify([i, j, 1], local, offset, n, periodic, 2, h, g, st)
          fb(:, i, j) = [(int(mod(enc(g, n, c, 3), 127_int64), int8), c=1, 3)]
        end do
      end do
      call ok(haloex_exchange_run(x, fb), name//" small2_int8 run")
      good = .true.
      do j = 1 - h, local(2) + h
        do i = 1 - h, local(1) + h
          call classify([i, j, 1], local, offset, n, periodic, 2, h, g, st)
          do c = 1, 3
            good = good .and. fb(c, i, j) == merge(SENTINEL, mod(enc(g, n, c, 3), 127_int64), st == 2)
          end do
        end do
      end do
      call check(good, name//" small2_int8: a halo value is wrong")
      ran = ran + 1
    end if
    call teardown(d, p, x)
  end subroutine

  ! SoA real(real64) with 3 + 5 * mod(rank, 3) sites past the box (a
  ! client's buffers, as Ludwig's Lees-Edwards planes): each component's
  ! block is that much longer, and no exchange may touch those sites.
  subroutine extra3_real64(name, n, periodic)
    character(len=*), intent(in) :: name
    integer, intent(in) :: n(3)
    logical, intent(in) :: periodic(3)
    integer, parameter :: nc = 3, h = 1
    type(haloex_decomp) :: d
    type(haloex_plan) :: p
    type(haloex_exchange) :: x
    real(real64), allocatable :: f(:, :)
    integer :: dims(3), r, sz, procs(3), coords(3), local(3), offset(3), i, j, k, c, g(3), st, e(3)
    integer(int64) :: elements, sites, extra, at
    logical :: refused, good
    dims = 0
    call MPI_Dims_create(nranks, 3, dims)
    call ok(haloex_decomp_create_ranges(MPI_COMM_WORLD, n, dims, periodic, d, split_last(n(1), dims(1)), &
                                        split_last(n(2), dims(2)), split_last(n(3), dims(3))), "create_ranges")
    call ok(haloex_decomp_info(d, 3, r, sz, procs, coords, local, offset), "info")
    extra = 3 + 5 * mod(rank, 3)
    call setup(name, "extra3_real64", d, 3, haloex_field(HALOEX_DOUBLE, nc, h, HALOEX_SOA, extra_sites=extra), &
               p, x, refused)
    if (refused) then
      call teardown(d, p, x)
      return
    end if
    call ok(haloex_field_extents(p, 1, e, elements), "extents")
    sites = product(int(e, int64))
    call check(all(e == local + 2 * h) .and. elements == (sites + extra) * nc, "extra3: field extents")
    allocate (f(0:sites + extra - 1, nc))
    f = real(SENTINEL, real64)
    do k = 1, local(3)
      do j = 1, local(2)
        do i = 1, local(1)
          call classify([i, j, k], local, offset, n, periodic, 3, h, g, st)
          at = (i - 1 + h) + e(1) * ((j - 1 + h) + e(2) * int(k - 1 + h, int64))
          f(at, :) = [(real(enc(g, n, c, nc), real64), c=1, nc)]
        end do
      end do
    end do
    call ok(haloex_exchange_run(x, f), name//" extra3_real64 run")
    good = all(f(sites:, :) == real(SENTINEL, real64))
    call check(good, name//" extra3_real64: an extra site was written")
    do k = 1 - h, local(3) + h
      do j = 1 - h, local(2) + h
        do i = 1 - h, local(1) + h
          call classify([i, j, k], local, offset, n, periodic, 3, h, g, st)
          at = (i - 1 + h) + e(1) * ((j - 1 + h) + e(2) * int(k - 1 + h, int64))
          do c = 1, nc
            good = good .and. f(at, c) == real(merge(SENTINEL, enc(g, n, c, nc), st == 2), real64)
          end do
        end do
      end do
    end do
    call check(good, name//" extra3_real64: a halo value is wrong (or an extra site was written)")
    ran = ran + 1
    call teardown(d, p, x)
  end subroutine

  subroutine exchange_free_plan(p, x)
    type(haloex_plan), intent(inout) :: p
    type(haloex_exchange), intent(inout) :: x
    integer :: rc
    rc = haloex_exchange_free(x)
    rc = haloex_plan_free(p)
  end subroutine

  subroutine expect(status, want, says, what)
    integer, intent(in) :: status, want
    character(len=*), intent(in) :: says, what
    call check(status == want, what//": wrong status")
    call check(index(haloex_last_error(), says) > 0, what//": the message '"//haloex_last_error()// &
               "' does not say '"//says//"'")
  end subroutine

  subroutine bad_calls()
    type(haloex_decomp) :: d, e
    type(haloex_plan) :: p
    type(haloex_exchange) :: x
    integer(int32), allocatable :: wrong(:, :, :)
    integer :: dims(3), r, sz, procs(3), coords(3), local(3), offset(3)
    dims = 0
    call MPI_Dims_create(nranks, 3, dims)
    call expect(haloex_decomp_create_ranges(MPI_COMM_WORLD, [8, 8, 8], dims, [.true., .true., .true.], d, &
                                            extents_x=[(1, r=1, dims(1) + 1)]), HALOEX_ERR_ARGUMENT, &
                "extents_x has", "extents_x of the wrong size")
    call expect(haloex_decomp_create_ranges(MPI_COMM_WORLD, [8, 8], dims(1:2), [.true., .true.], d, &
                                            extents_z=[8]), HALOEX_ERR_ARGUMENT, "extents_z on a 2-D", &
                "extents_z in 2-D")
    ! (collective: every rank passes the same wrong sum)
    call expect(haloex_decomp_create_ranges(MPI_COMM_WORLD, [8, 8, 8], dims, [.true., .true., .true.], d, &
                                            extents_y=[(1, r=1, dims(2))]), HALOEX_ERR_INPUT, "", &
                "extents that do not sum to global")
    ! 0-based `first` (info's offset passed as is): a cover from -1, refused
    call ok(haloex_decomp_create(MPI_COMM_WORLD, [8, 8, 8], [0, 0, 0], [.true., .true., .true.], d), "decomp")
    call ok(haloex_decomp_info(d, 3, r, sz, procs, coords, local, offset), "info")
    call expect(haloex_decomp_create_owned(MPI_COMM_WORLD, [8, 8, 8], [.true., .true., .true.], offset, local, e), &
                HALOEX_ERR_INPUT, "", "create_owned with 0-based first")
    call ok(haloex_decomp_create_owned(MPI_COMM_WORLD, [8, 8, 8], [.true., .true., .true.], offset + 1, local, e), &
            "create_owned from info (first = offset + 1)")
    r = haloex_decomp_free(e)
    call ok(haloex_plan_create(d, 3, [haloex_field(HALOEX_COMPLEX_DOUBLE, 1, 1, HALOEX_AOS)], p), "plan")
    call ok(haloex_exchange_create(p, "direct", x), "exchange")
    allocate (wrong(0:local(1) + 1, 0:local(2) + 1, 0:local(3) + 1))
    call expect(haloex_exchange_run(x, wrong), HALOEX_ERR_ARGUMENT, "int32 but the field is complex(real64)", &
                "an int32 array for a complex field")
    call teardown(d, p, x)
  end subroutine

end program test_fortran_client
