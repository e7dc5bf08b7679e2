! The haloex module against the global-index encoding, in Fortran's own
! index order (x first): every interior (site, component) holds a value
! made from its global (x, y, z), the halo -1; after an exchange every halo
! value must be that of the global site it mirrors (wrapped where periodic)
! or still -1 across a wall. Every strategy; 3-D AoS f(c, x, y, z), 3-D SoA
! f(x, y, z, c) in real32, 2-D AoS with a D2Q9 reduced plan. Then bad calls:
! each returns its status and a message. Exit 0 only when all pass.
program test_fortran
  use mpi_f08
  use haloex
  use, intrinsic :: iso_fortran_env, only: real32, real64, error_unit
  implicit none
  integer :: failures = 0, all_failures, rank, s, ran
  integer, parameter :: d2q9(2, 9) = reshape([0, 0, 1, 0, -1, 0, 0, 1, 0, -1, 1, 1, -1, -1, 1, -1, -1, 1], [2, 9])

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  ran = 0
  do s = 1, haloex_strategy_count()
    call aos3(haloex_strategy_name(s), [12, 10, 8], [.true., .false., .true.], 2)
    call soa3(haloex_strategy_name(s), [12, 10, 8], [.false., .true., .true.], 2)
    call aos2_reduced(haloex_strategy_name(s), [12, 10])
  end do
  call bad_calls()
  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  ! (list-directed: libgfortran reads past a format string, which AddressSanitizer reports)
  if (rank == 0) print *, "Fortran binding:", ran, "exchanges checked,", all_failures, "failures"
  call MPI_Finalize()
  if (all_failures /= 0) error stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      failures = failures + 1
      if (failures <= 20) write (error_unit, *) "FAIL: "//what
    end if
  end subroutine

  subroutine ok(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= HALOEX_OK) call check(.false., what//": "//haloex_last_error())
  end subroutine

  ! The value of global site g (from 0), component c (from 1).
  real(real64) function encode(g, n, c, ncomp)
    integer, intent(in) :: g(3), n(3), c, ncomp
    encode = real(((g(3) * n(2) + g(2)) * n(1) + g(1)) * ncomp + c, real64)
  end function

  ! Global coordinates of local site l (from 1; halo <= 0 or > local):
  ! wrapped where periodic; wall = across a non-periodic edge.
  subroutine global_of(l, local, offset, n, periodic, ndim, g, inside, wall)
    integer, intent(in) :: l(3), local(3), offset(3), n(3), ndim
    logical, intent(in) :: periodic(:)
    integer, intent(out) :: g(3)
    logical, intent(out) :: inside, wall
    integer :: d
    inside = .true.
    wall = .false.
    g = 0
    do d = 1, ndim
      inside = inside .and. l(d) >= 1 .and. l(d) <= local(d)
      g(d) = offset(d) + l(d) - 1
      if (g(d) < 0 .or. g(d) >= n(d)) then
        if (periodic(d)) then
          g(d) = modulo(g(d), n(d))
        else
          wall = .true.
        end if
      end if
    end do
  end subroutine

  subroutine setup(name, n, periodic, ndim, field, d, p, x, local, offset, refused)
    character(len=*), intent(in) :: name
    integer, intent(in) :: n(:), ndim
    logical, intent(in) :: periodic(:)
    type(haloex_field), intent(in) :: field
    type(haloex_decomp), intent(out) :: d
    type(haloex_plan), intent(out) :: p
    type(haloex_exchange), intent(out) :: x
    integer, intent(out) :: local(3), offset(3)
    logical, intent(out) :: refused
    integer :: r, sz, procs(3), coords(3)
    refused = .false.
    call ok(haloex_decomp_create(MPI_COMM_WORLD, n, [(0, r=1, ndim)], periodic, d), "decomp")
    if (haloex_plan_create(d, ndim, [field], p) /= HALOEX_OK .or. &
        haloex_exchange_create(p, name, x) /= HALOEX_OK) then
      refused = .true.  ! (red-black on odd rank counts)
      return
    end if
    call ok(haloex_decomp_info(d, ndim, r, sz, procs, coords, local, offset), "info")
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

  ! Field values, AoS order f(c, x, y, z) with the halo: `initial` (the
  ! encoding inside, -1 in the halo) and `want` (after an exchange: the
  ! mirrored site's value, or -1 across a wall).
  subroutine values3(n, periodic, ncomp, local, offset, initial, want)
    integer, intent(in) :: n(3), ncomp, local(3), offset(3)
    logical, intent(in) :: periodic(3)
    real(real64), allocatable, intent(out) :: initial(:, :, :, :), want(:, :, :, :)
    integer :: g(3), i, j, k, c
    logical :: inside, wall
    allocate (initial(ncomp, 0:local(1) + 1, 0:local(2) + 1, 0:local(3) + 1), want(ncomp, 0:local(1) + 1, &
              0:local(2) + 1, 0:local(3) + 1))
    do k = 0, local(3) + 1
      do j = 0, local(2) + 1
        do i = 0, local(1) + 1
          call global_of([i, j, k], local, offset, n, periodic, 3, g, inside, wall)
          do c = 1, ncomp
            want(c, i, j, k) = merge(-1.0_real64, encode(g, n, c, ncomp), wall)
            initial(c, i, j, k) = merge(want(c, i, j, k), -1.0_real64, inside)
          end do
        end do
      end do
    end do
  end subroutine

  subroutine aos3(name, n, periodic, ncomp)
    character(len=*), intent(in) :: name
    integer, intent(in) :: n(3), ncomp
    logical, intent(in) :: periodic(3)
    type(haloex_decomp) :: d
    type(haloex_plan) :: p
    type(haloex_exchange) :: x
    real(real64), allocatable :: f(:, :, :, :), want(:, :, :, :)
    integer :: local(3), offset(3)
    logical :: refused
    call setup(name, n, periodic, 3, haloex_field(HALOEX_DOUBLE, ncomp, 1, HALOEX_AOS), d, p, x, local, offset, &
               refused)
    if (refused) return
    call values3(n, periodic, ncomp, local, offset, f, want)
    call ok(haloex_exchange_run(x, f), name//" aos3 run")
    call check(all(f == want), name//" aos3: a halo value is wrong")
    ran = ran + 1
    call teardown(d, p, x)
  end subroutine

  ! SoA f(x, y, z, c) in real32, the exchange split into begin and end.
  subroutine soa3(name, n, periodic, ncomp)
    character(len=*), intent(in) :: name
    integer, intent(in) :: n(3), ncomp
    logical, intent(in) :: periodic(3)
    type(haloex_decomp) :: d
    type(haloex_plan) :: p
    type(haloex_exchange) :: x
    real(real64), allocatable :: initial(:, :, :, :), want(:, :, :, :)
    real(real32), allocatable :: f(:, :, :, :)
    integer :: local(3), offset(3)
    logical :: refused
    call setup(name, n, periodic, 3, haloex_field(HALOEX_FLOAT, ncomp, 1, HALOEX_SOA), d, p, x, local, offset, &
               refused)
    if (refused) return
    call values3(n, periodic, ncomp, local, offset, initial, want)
    allocate (f(0:local(1) + 1, 0:local(2) + 1, 0:local(3) + 1, ncomp))
    f = real(reshape(initial, shape(f), order=[4, 1, 2, 3]), real32)
    call ok(haloex_exchange_begin(x, f), name//" soa3 begin")
    call ok(haloex_exchange_end(x), name//" soa3 end")
    call check(all(f == real(reshape(want, shape(f), order=[4, 1, 2, 3]), real32)), &
               name//" soa3: a halo value is wrong")
    ran = ran + 1
    call teardown(d, p, x)
  end subroutine

  ! D2Q9 populations: component c reaches a halo region only when its
  ! direction points from the region into the interior.
  subroutine aos2_reduced(name, n)
    character(len=*), intent(in) :: name
    integer, intent(in) :: n(2)
    type(haloex_decomp) :: d
    type(haloex_plan) :: p
    type(haloex_exchange) :: x
    type(haloex_field) :: field
    real(real64), allocatable :: f(:, :, :)
    integer :: local(3), offset(3), g(3), i, j, c, o(2), n3(3)
    logical :: refused, inside, wall, travels
    field = haloex_field(HALOEX_DOUBLE, 9, 1, HALOEX_AOS, d2q9)
    n3 = [n(1), n(2), 1]
    call setup(name, n, [.true., .true.], 2, field, d, p, x, local, offset, refused)
    if (refused) return
    allocate (f(9, 0:local(1) + 1, 0:local(2) + 1))
    f = -1
    do j = 1, local(2)
      do i = 1, local(1)
        call global_of([i, j, 1], local, offset, n3, [.true., .true.], 2, g, inside, wall)
        f(:, i, j) = [(encode(g, n3, c, 9), c=1, 9)]
      end do
    end do
    call ok(haloex_exchange_run(x, f), name//" aos2 run")
    do j = 0, local(2) + 1
      do i = 0, local(1) + 1
        call global_of([i, j, 1], local, offset, n3, [.true., .true.], 2, g, inside, wall)
        o = [merge(-1, merge(1, 0, i > local(1)), i < 1), merge(-1, merge(1, 0, j > local(2)), j < 1)]
        do c = 1, 9
          travels = inside .or. all(o == 0 .or. d2q9(:, c) == -o)
          call check(f(c, i, j) == merge(encode(g, n3, c, 9), -1.0_real64, travels), &
                     name//" aos2 reduced: a halo value is wrong")
        end do
      end do
    end do
    ran = ran + 1
    call teardown(d, p, x)
  end subroutine

  subroutine expect(status, want, says, what)
    integer, intent(in) :: status, want
    character(len=*), intent(in) :: says, what
    call check(status == want, what//": wrong status")
    call check(index(haloex_last_error(), says) > 0, what//": the message '"//haloex_last_error()// &
               "' does not say '"//says//"'")
  end subroutine

  subroutine bad_calls()
    type(haloex_decomp) :: d, copy
    type(haloex_plan) :: p
    type(haloex_exchange) :: x
    real(real64), allocatable :: f(:, :, :, :), g(:, :, :, :), wide(:, :, :, :)
    real(real32), allocatable :: h(:, :, :, :)
    integer :: local(3), offset(3), r, sz, procs(3), coords(3)
    call expect(haloex_decomp_create(MPI_COMM_WORLD, [8, 8, 8, 8], [0, 0, 0, 0], [.true., .true., .true., .true.], d), &
                HALOEX_ERR_ARGUMENT, "2 or 3 entries", "4 dimensions")
    call ok(haloex_decomp_create(MPI_COMM_WORLD, [16, 16, 16], [0, 0, 0], [.true., .true., .true.], d), "decomp")
    call expect(haloex_plan_create(d, 3, [haloex_field(HALOEX_DOUBLE, 2, 20, HALOEX_AOS)], p), HALOEX_ERR_INPUT, &
                "halo", "a halo wider than the subdomain")
    call ok(haloex_plan_create(d, 3, [haloex_field(HALOEX_DOUBLE, 2, 1, HALOEX_AOS)], p), "plan")
    call expect(haloex_exchange_create(p, "fast", x), HALOEX_ERR_INPUT, "unknown halo strategy 'fast'", &
                "an unknown strategy")
    call ok(haloex_exchange_create(p, "direct", x), "exchange")
    call ok(haloex_decomp_info(d, 3, r, sz, procs, coords, local, offset), "info")
    allocate (f(2, 0:local(1) + 1, 0:local(2) + 1, 0:local(3) + 1), g(2, local(1), local(2), local(3)))
    allocate (h(2, 0:local(1) + 1, 0:local(2) + 1, 0:local(3) + 1))
    allocate (wide(3, 0:local(1) + 1, 0:local(2) + 1, 0:local(3) + 1))
    f = 0
    call expect(haloex_exchange_begin(x, h), HALOEX_ERR_ARGUMENT, "real32 but the field is real64", "wrong type")
    call expect(haloex_exchange_begin(x, g), HALOEX_ERR_ARGUMENT, "elements, the field with its halo", "wrong size")
    call expect(haloex_exchange_begin(x, wide(1:2, :, :, :)), HALOEX_ERR_ARGUMENT, "not contiguous", &
                "a strided section of the right size")
    call expect(haloex_exchange_end(x), HALOEX_ERR_STATE, "no exchange was begun", "end without begin")
    call ok(haloex_exchange_run(x, f), "run")
    call ok(haloex_exchange_free(x), "free")
    call expect(haloex_exchange_end(x), HALOEX_ERR_HANDLE, "NULL", "a freed exchange")
    copy = d
    call ok(haloex_decomp_free(d), "decomp free")
    call expect(haloex_decomp_info(copy, 3, r, sz, procs, coords, local, offset), HALOEX_ERR_HANDLE, &
                "freed already", "a copy of a freed handle")
    call ok(haloex_plan_free(p), "plan free")
  end subroutine

end program test_fortran
