"""Loads read in place (src/exec/tile_vm.c, "zero-copy loads"): a tile that points
into a tensor keeps the value it was loaded with, whatever the kernel does next."""
import torch


def test_zero_copy_tile_survives_a_store_into_its_tensor(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(out, [0, 0], [64, 128])                    # points into out
                pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)   # overwrites what t read
                pl.store(t, [64, 0], out)                              # t's old value
            return out
        """)
    a, out = torch.randn(256, 128), torch.randn(256, 128)
    old = out.clone()
    mod.k(a, out)
    assert torch.equal(out[:64], a[:64]) and torch.equal(out[64:128], old[:64]) and torch.equal(out[128:], old[128:])


def test_zero_copy_tile_updated_in_place_leaves_its_tensor(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [256, 128])
                t = pl.add(t, 1.0)
                t = pl.mul(t, t)
                pl.store(t, [0, 0], out)
            return out
        """)
    a, out = torch.randn(256, 128), torch.zeros(256, 128)
    before = a.clone()
    mod.k(a, out)
    assert torch.equal(a, before)
    assert torch.equal(out, (before + 1.0) * (before + 1.0))


def test_zero_copy_store_of_a_tile_onto_its_own_window(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.range(4):
                    t = pl.load(out, [i * 64, 0], [64, 128])
                    pl.store(t, [i * 64, 0], out)
                    u = pl.load(out, [((i + 1) % 4) * 64, 0], [64, 128])
                    pl.store(u, [i * 64, 0], out)
            return out
        """)
    a, out = torch.zeros(256, 128), torch.randn(256, 128)
    old = out.clone()
    mod.k(a, out)
    want = old.clone()
    for i in range(4):
        want[i * 64:(i + 1) * 64] = want[((i + 1) % 4) * 64:((i + 1) % 4 + 1) * 64]
    assert torch.equal(out, want)


def test_direct_store_keeps_other_tiles_reading_the_window(load):
    """The op before a store computes straight into the window (lower.h, a "direct"
    STORE); a tile still pointing into that window keeps its old value."""
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(out, [0, 0], [64, 128])                             # points into out
                pl.store(pl.add(pl.load(a, [0, 0], [64, 128]), 1.0), [0, 0], out)  # computed into out
                pl.store(t, [64, 0], out)
            return out
        """)
    a, out = torch.randn(256, 128), torch.randn(256, 128)
    old = out.clone()
    mod.k(a, out)
    assert torch.equal(out[:64], a[:64] + 1.0) and torch.equal(out[64:128], old[:64]) and torch.equal(out[128:], old[128:])


def test_direct_store_reading_another_part_of_its_tensor(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.range(3):
                    pl.store(pl.mul(pl.load(out, [i * 64, 0], [64, 128]), 2.0), [i * 64 + 32, 0], out)
            return out
        """)
    a, out = torch.zeros(256, 128), torch.randn(256, 128)
    want = out.clone()
    for i in range(3):  # the window written overlaps the one read, 32 rows ahead of it
        want[i * 64 + 32:i * 64 + 96] = want[i * 64:i * 64 + 64] * 2.0
    mod.k(a, out)
    assert torch.equal(out, want)


def test_direct_store_keeps_a_source_read_again(load):
    """A source of the op that points into the very window the op computes into
    (a zero-copy load of it) keeps its value when the kernel reads it again: after
    the store in straight-line code, and at the next iteration of a loop (found by
    the random DSL programs, tests/python/test_random_dsl.py)."""
    mod, _ = load("""
        @pl.jit
        def again(a: pl.Tensor, out: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(out, [0, 0], [64, 128])                            # points into out
                pl.store(pl.mul(t, pl.load(a, [0, 0], [64, 128])), [0, 0], out)  # computed into t's window
                pl.store(pl.add(t, 1.0), [64, 0], out)                         # t's loaded value
            return out

        @pl.jit
        def in_loop(a: pl.Tensor, out: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(out, [0, 0], [64, 128])
                for i in pl.range(3):
                    pl.store(pl.mul(t, 2.0), [0, 0], out)                      # 2 * t each time
            return out
        """)
    a, out = torch.randn(256, 128), torch.randn(256, 128)
    old = out.clone()
    mod.again(a, out)
    assert torch.equal(out[:64], old[:64] * a[:64]) and torch.equal(out[64:128], old[:64] + 1.0)
    assert torch.equal(out[128:], old[128:])
    out = old.clone()
    mod.in_loop(a, out)
    assert torch.equal(out[:64], old[:64] * 2.0) and torch.equal(out[64:], old[64:])


def test_direct_store_of_row_and_column_expands(load):
    """A row or column expand whose result is only stored computes straight into
    the window too (softmax's and RMSNorm's last op)."""
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.range(2):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [i * 64, 0], [64, 128])
                    pl.store(pl.row_expand_div(t, pl.row_sum(t)), [i * 64, 0], out)
                    pl.store(pl.col_expand_mul(t, pl.load(w, [0, 0], [1, 128])), [i * 64 + 128, 0], out)
            return out
        """)
    a, w, out = torch.rand(128, 128) + 0.5, torch.randn(1, 128), torch.zeros(256, 128)
    mod.k(a, w, out)
    want = torch.cat([a / a.sum(1, keepdim=True), a * w])
    assert torch.allclose(out, want, rtol=1e-5, atol=0)
    assert torch.equal(out[128:], a * w)


def test_direct_store_of_an_expand_whose_vector_points_into_the_window(load):
    """The vector of a column expand read in place from the window the expand
    would compute into: every row still combines with the vector's old value."""
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                g = pl.load(out, [0, 0], [1, 128])                                      # points into out's row 0
                pl.store(pl.col_expand_mul(pl.load(a, [0, 0], [64, 128]), g), [0, 0], out)  # rows 0..63
            return out
        """)
    a, out = torch.randn(64, 128), torch.randn(64, 128)
    old = out.clone()
    mod.k(a, out)
    assert torch.equal(out, a * old[0:1])
