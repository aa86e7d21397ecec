"""Tuple assignment binds its names at once, as Python does (docs/dsl.md, "Statements"):
`a, b = b, a` swaps; every value on the right is taken before any name is
bound, for tiles and scalars in kernel code, scalars and tensors in
orchestration code, the results of a kernel call, in loops and in inlined
functions.  Each result is checked against the same code run as numpy."""
import numpy as np

A = np.arange(32, dtype=np.float32).reshape(4, 8)
B = np.full((4, 8), 5, np.float32)


def run(fn, *arrays, scalars=()):
    """fn(*copies of arrays, *scalars); the copies afterwards."""
    args = [a.copy() for a in arrays]
    fn(*args, *scalars)
    return args


def test_tuple_assignment_binds_simultaneously_tiles_and_scalars_in_kernel(load):
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor, b: pl.Tensor, o: pl.Out[pl.Tensor], n: pl.Scalar):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [4, 8])
                u = pl.load(b, [0, 0], [4, 8])
                x = n
                y = n + 1
                t, u = u, t
                x, y = y, x
                pl.store(pl.add(pl.sub(pl.mul(t, 2.0), u), x * 10 + y), [0, 0], o)
            return o
        """)
    _, _, o = run(mod.f, A, B, np.zeros_like(A), scalars=(3,))
    np.testing.assert_array_equal(o, B * 2 - A + (4 * 10 + 3))


def test_tuple_assignment_binds_simultaneously_float_scalars_in_kernel(load):
    mod, _ = load("""
        @pl.jit
        def f(o: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                x = 1.0
                y = 2.0
                x, y = y, x
                t = pl.load(o, [0, 0], [4, 8])
                pl.store(pl.add(pl.mul(t, 0.0), x * 10.0 + y), [0, 0], o)
            return o
        """)
    (o,) = run(mod.f, np.zeros_like(A))
    np.testing.assert_array_equal(o, np.full_like(A, 21.0))


def test_tuple_assignment_binds_simultaneously_scalars_in_orchestration(load):
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor, o: pl.Out[pl.Tensor]):
            x = 1
            y = 2
            x, y = y, x
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [4, 8])
                pl.store(pl.add(t, x * 10 + y), [0, 0], o)
            return o
        """)
    _, o = run(mod.f, A, np.zeros_like(A))
    np.testing.assert_array_equal(o, A + 21)


def test_tuple_assignment_binds_simultaneously_tensors_in_orchestration(load):
    mod, _ = load("""
        @pl.jit.incore
        def diff(x: pl.Tensor, y: pl.Tensor, z: pl.Out[pl.Tensor]):
            pl.store(pl.sub(pl.load(x, [0, 0], [4, 8]), pl.load(y, [0, 0], [4, 8])), [0, 0], z)
            return z

        @pl.jit
        def f(a: pl.Tensor, b: pl.Tensor, o: pl.Out[pl.Tensor]):
            p = a
            q = b
            p, q = q, p
            o = diff(p, q, o)
            return o
        """)
    _, _, o = run(mod.f, A, B, np.zeros_like(A))
    np.testing.assert_array_equal(o, B - A)


def test_tuple_assignment_binds_simultaneously_kernel_results(load):
    mod, _ = load("""
        @pl.jit.incore
        def two(x, y: pl.Out[pl.Tensor], z: pl.Out[pl.Tensor]):
            t = pl.load(x, [0, 0], [4, 8])
            pl.store(pl.add(t, 1.0), [0, 0], y)
            pl.store(pl.add(t, 2.0), [0, 0], z)
            return y, z

        @pl.jit.incore
        def set7(y: pl.InOut[pl.Tensor]):
            t = pl.load(y, [0, 0], [4, 8])
            pl.store(pl.add(pl.mul(t, 0.0), 7.0), [0, 0], y)
            return y

        @pl.jit
        def f(a: pl.Tensor, o1: pl.Out[pl.Tensor], o2: pl.Out[pl.Tensor]):
            x, y = o1, o2
            y, x = two(a, x, y)
            x = set7(x)
            return o1, o2
        """)
    _, o1, o2 = run(mod.f, A, np.zeros_like(A), np.zeros_like(A))
    # y names the buffer x was (o1: A + 1), x the buffer y was (o2), then set to 7
    # (locals: rebinding the pl.Out names themselves is [OutParamNotShadowed])
    np.testing.assert_array_equal(o1, A + 1)
    np.testing.assert_array_equal(o2, np.full_like(A, 7.0))


def test_tuple_assignment_binds_simultaneously_rotation(load):
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor, b: pl.Tensor, o: pl.Out[pl.Tensor]):
            i = 1
            j = 2
            k = 3
            i, j, k = j, k, i
            i, j = k, i
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [4, 8])
                u = pl.load(b, [0, 0], [4, 8])
                v = pl.add(t, u)
                t, u, v = u, v, t
                u, t = v, u
                pl.store(pl.add(pl.add(pl.mul(t, 100.0), pl.mul(u, 10.0)), v), [0, 0], o)
                pl.store(pl.add(pl.mul(t, 0.0), i * 100 + j * 10 + k), [4, 0], o)
            return o
        """)
    _, _, o = run(mod.f, A, B, np.zeros((8, 8), np.float32))
    i, j, k = 1, 2, 3
    i, j, k = j, k, i
    i, j = k, i
    t, u = A, B
    v = t + u
    t, u, v = u, v, t
    u, t = v, u
    np.testing.assert_array_equal(o[:4], t * 100 + u * 10 + v)
    np.testing.assert_array_equal(o[4:], np.full_like(A, i * 100 + j * 10 + k))


def test_tuple_assignment_binds_simultaneously_in_loops(load):
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor, b: pl.Tensor, o: pl.Out[pl.Tensor], n: pl.Scalar):
            x = 0
            y = 1
            for i in pl.range(n):
                x, y = y, x
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [4, 8])
                u = pl.load(b, [0, 0], [4, 8])
                p = 0
                q = 1
                for i in pl.range(n):
                    t, u = u, t
                    p, q = q, p + q
                pl.store(pl.add(pl.sub(t, u), p * 10 + x), [0, 0], o)
            return o
        """)
    for n in (4, 5):
        _, _, o = run(mod.f, A, B, np.zeros_like(A), scalars=(n,))
        x, y, t, u, p, q = 0, 1, A, B, 0, 1
        for _ in range(n):
            x, y = y, x
            t, u = u, t
            p, q = q, p + q
        np.testing.assert_array_equal(o, t - u + (p * 10 + x))


def test_tuple_assignment_binds_simultaneously_in_inline_functions(load):
    mod, _ = load("""
        @pl.jit.inline
        def swapped(p, q):
            p, q = q, p
            return p, q

        @pl.jit.inline
        def swapped_tiles(p, q):
            p, q = q, p
            return p, q

        @pl.jit.inline
        def back(p, q):
            return q, p

        @pl.jit
        def f(a: pl.Tensor, b: pl.Tensor, o: pl.Out[pl.Tensor]):
            x = 1
            y = 2
            x, y = swapped(x, y)
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [4, 8])
                u = pl.load(b, [0, 0], [4, 8])
                t, u = swapped_tiles(t, u)
                r = 3
                s = 4
                r, s = back(r, s)
                pl.store(pl.add(pl.sub(t, u), x * 1000 + y * 100 + r * 10 + s), [0, 0], o)
            return o
        """)
    _, _, o = run(mod.f, A, B, np.zeros_like(A))
    np.testing.assert_array_equal(o, B - A + 2143)


def test_tuple_assignment_binds_simultaneously_computed_values(load):
    """Tile ops, pl.store and pl.create_tensor among the values: each is
    computed first, in order, then the names are bound."""
    mod, _ = load("""
        @pl.jit.incore
        def k(d: pl.Tensor, b: pl.Tensor, c: pl.Tensor, o: pl.Out[pl.Tensor]):
            t = pl.load(d, [0, 0], [4, 8])
            u = pl.load(b, [0, 0], [4, 8])
            t, u = pl.add(t, u), t
            w = pl.load(c, [0, 0], [4, 8])
            o, w = pl.store(pl.sub(t, u), [0, 0], o), pl.mul(w, u)
            pl.store(w, [4, 0], o)
            return o

        @pl.jit
        def f(a: pl.Tensor, b: pl.Tensor, o: pl.Out[pl.Tensor]):
            c, d = pl.create_tensor([4, 8], dtype=pl.FP32, init_value=2.0), a
            o = k(d, b, c, o)
            return o
        """)
    _, _, o = run(mod.f, A, B, np.zeros((8, 8), np.float32))
    np.testing.assert_array_equal(o[:4], (A + B) - A)
    np.testing.assert_array_equal(o[4:], 2 * A)
