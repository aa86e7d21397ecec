"""pypto._C_mpi.init() (DISTRIBUTED-SPEC §2.2, §4.3, D20): libmpi is mapped only once
pypto._C_mpi is imported; init() starts one session and registers its transport with
pypto._C; a second init() returns the same world.  Alone in its job: it reads the
process's memory map before any other case could have started the session."""
import os

from distcase import HOST_ONLY, case, check


def libmpi_mapped():
    with open("/proc/self/maps") as f:
        return any("libmpi.so" in line for line in f)


@case("c_mpi_init_starts_one_session_and_loads_libmpi", backends=HOST_ONLY, ranks=(2,), alone=True)
def c_mpi_init(P):
    import pypto  # noqa: F401
    import pypto._C  # noqa: F401
    check(not libmpi_mapped(), "libmpi mapped after import pypto")
    from pypto import _C_mpi
    first = _C_mpi.init()
    rank, size, local_size, start, sharers = first
    check(size == int(os.environ["OMPI_COMM_WORLD_SIZE"]) == P, "size %d" % size)
    check(rank == int(os.environ["OMPI_COMM_WORLD_RANK"]), "rank %d" % rank)
    check(1 <= local_size <= size and 1 <= sharers <= local_size, "local_size %d, sharers %d" % (local_size, sharers))
    check(start > 1e9, "start time %r" % start)
    check(_C_mpi.init() == first, "a second init() gave %r" % (_C_mpi.init(),))
    check(libmpi_mapped(), "libmpi not mapped after init()")
