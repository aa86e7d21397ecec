"""Standalone @pl.function definitions (DSL-V2-SPEC §2 F-sa; docs/dsl.md,
"Decorators and function kinds"), at module level or in a function body (a
kernel factory's): the compiler pulls one into the program of a @pl.program
method or a @pl.jit body that calls it by bare name (or by the name a
factory's result is bound to); Python never calls it.  What it shares with
the other kernel objects is _kernel.py's."""
from ._kernel import KernelBase, _Source


class StandaloneFunction(KernelBase):
    """A module-level @pl.function (DSL-V2-SPEC §2 F-sa): a @pl.program method or a
    @pl.jit body calls it by bare name and so pulls it into its program; Python
    never calls it."""

    def __init__(self, fn, scope=None):
        """scope: where a def in a function body (a kernel factory's) stands, its values; None at module level."""
        self.__wrapped__ = fn
        self._pl_function = fn._pl_function
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, attr, getattr(fn, attr, None))
        self._src = _Source(fn, "@pl.function '%s'" % fn.__name__, fn.__code__.co_firstlineno if scope is not None else 0)
        self._scope = scope or {}
        self._init_cache()

    def _flags(self):
        return ("function", self.__name__)

    def _functions(self):
        return [self.__wrapped__]

    def _followed(self):
        return [(self.__wrapped__, self._scope)]

    def __call__(self, *args, **kwargs):
        raise TypeError("@pl.function function '%s' cannot be called directly; call it from a @pl.program method "
                        "or a @pl.jit entry" % self.__name__)

    def __repr__(self):
        return "<pl.function %s>" % self.__qualname__
