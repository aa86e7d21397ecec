"""@pl.jit functions and their decorators (docs/dsl.md, "Decorators and
function kinds"): what they share with @pl.program classes is _kernel.py's.

The compiler is C (pypto._C); nothing here judges kernel code.
"""
import inspect
import sys

from . import _C
from ._args import adapt_args, bind_args, is_tensor, signature_specs
from ._compiled import compile_entry, compiled_program
from ._kernel import KernelBase, ProgramText, _config, _defining_scope, _run, _Source
from ._function import StandaloneFunction
from ._program import Program, loads, parse, parse_program, program  # noqa: F401  (pypto.language's names)
from ._worker import active_worker


class JitFunction(KernelBase):
    """A @pl.jit function (entry) or a .incore/.inline/.opaque/.host sub-function."""

    def __init__(self, fn, kind, flags, scope=None):
        self.__wrapped__ = fn
        self.kind = kind
        self.flags = flags
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, attr, getattr(fn, attr, None))
        self._who = "@pl.jit function '%s'" % fn.__name__
        self._sig = inspect.signature(fn)
        if "config" in self._sig.parameters:
            raise TypeError("%s: parameter name 'config' is reserved" % self._who)
        nested = fn.__qualname__ != fn.__name__  # in a function, a method or a class body
        self._src = _Source(fn, self._who, fn.__code__.co_firstlineno if nested else 0)
        self._scope = scope or {}
        self._init_cache()

    @property
    def auto_scope(self):
        return self.flags.get("auto_scope", True)

    def _flags(self):
        return (self.kind, tuple(sorted((k, int(v)) for k, v in self.flags.items())))

    def _functions(self):
        return [self.__wrapped__]

    def _followed(self):
        return [(self.__wrapped__, self._scope)]

    def _entry_check(self):
        # @pl.jit.host and .extern compile to the compiler's error, with its span.
        if self.kind not in ("jit", "host", "extern"):
            raise TypeError("@pl.jit.%s function '%s' cannot be called directly; call it from a @pl.jit entry"
                            % (self.kind, self.__name__))

    def _prepare(self, args, kwargs, config, for_lower):
        return self._prepare_bound(args, kwargs, config, for_lower)[:2]

    def _prepare_bound(self, args, kwargs, config, for_lower):
        """(handle, (who, specs, buffers), the bound arguments): what a call runs."""
        self._entry_check()
        bound = bind_args(self._who, self._sig, args, kwargs)
        specs, buffers = adapt_args(self._who, self._sig, bound, for_lower)
        return self._compiled(self.__name__, None, specs, config), (self._who, specs, buffers), bound

    def lower(self, *args, config=None, **kwargs):
        """The post-pass program as DSL text (never runs, never writes files)."""
        config = _config(config)
        if not any(is_tensor(v) for v in list(args) + list(kwargs.values())):
            self._entry_check()
            return ProgramText(_C.text(self._compiled(self.__name__, None, signature_specs(self._who, self._sig, args, kwargs), config, 1)), self.__name__)
        handle, _ = self._prepare(args, kwargs, config, True)
        return ProgramText(_C.text(handle), self.__name__)

    def compile(self, *args, config=None, **kwargs):
        """The CompiledProgram of these arguments (same binding, key and cache as a call; nothing runs).
        No tensor argument: shapes and dtypes from the annotations (signature mode)."""
        return compile_entry(self, None, self._who, self._sig, args, kwargs, config, self._prepare, self._entry_check)

    def _orchestration_names(self):
        return [self.__name__]

    def __call__(self, *args, config=None, **kwargs):
        config = _config(config)
        handle, call, bound = self._prepare_bound(args, kwargs, config, False)
        if self.kind != "host":
            return _run(self, self.__name__, handle, call, config)
        # compiled for its world, then one distributed call (DISTRIBUTED-SPEC §1.4), the arguments bound once
        prog = compiled_program(self, self.__name__, None, self._who, handle, call[1], config, dump_passes=config.dump_passes)
        if active_worker() is not None:
            return prog(*bound.args, config=config)
        prog._call_bound(handle, call, list(bound.args), config, None)
        return None

    def __repr__(self):
        return "<pl.jit%s function %s>" % ("" if self.kind == "jit" else "." + self.kind, self.__qualname__)


# ---- decorators (docs/dsl.md, "Decorators and function kinds") -----------------------------------

_INCORE_SCOPE_MSG = ("@pl.jit.%s does not accept an auto_scope= argument (auto_scope is only meaningful for the "
                     "Orchestration entry, the HOST orchestrator, and inline sub-functions)")


def _check_keywords(kind, kwargs):
    spelled = "@pl.jit" if kind == "jit" else "@pl.jit." + kind
    allowed = {"jit": ("auto_scope",), "host": ("auto_scope",), "inline": ("auto_scope",),
               "incore": ("level",), "opaque": ()}[kind]
    for kw in kwargs:
        if kw not in ("auto_scope", "level"):
            raise TypeError("%s() got an unexpected keyword argument '%s'" % (spelled, kw))
    if "level" in kwargs and "level" not in allowed:
        if kind == "jit":
            raise TypeError("@pl.jit() got an unexpected keyword argument 'level'")
        raise TypeError("%s does not accept a level= argument" % spelled)
    if "auto_scope" in kwargs:
        if kind in ("incore", "opaque"):
            raise TypeError(_INCORE_SCOPE_MSG % kind)
        if not isinstance(kwargs["auto_scope"], bool):
            raise TypeError("auto_scope must be a bool, got %s" % type(kwargs["auto_scope"]).__name__)
    flags = {}
    if kwargs.get("auto_scope") is False:
        flags["auto_scope"] = False
    if "level" in kwargs:
        flags["level"] = kwargs["level"]
    return flags


def _decorator(kind):
    def decorate(fn=None, /, **kwargs):
        flags = {} if kind == "extern" else _check_keywords(kind, kwargs)  # extern: the compiler rejects it
        scope = _defining_scope(sys._getframe(1))  # where the def stands: its annotations' names
        if fn is None:
            return lambda f: JitFunction(f, kind, flags, scope)
        if not callable(fn):
            raise TypeError("@pl.jit%s must decorate a function" % ("" if kind == "jit" else "." + kind))
        return JitFunction(fn, kind, flags, scope)
    decorate.__name__ = kind
    return decorate


class _Jit:
    """pl.jit and its kinds: pl.jit.incore, .inline, .opaque, .host, .extern (Ascend-specific)."""

    __call__ = staticmethod(_decorator("jit"))
    incore = staticmethod(_decorator("incore"))
    inline = staticmethod(_decorator("inline"))
    opaque = staticmethod(_decorator("opaque"))
    host = staticmethod(_decorator("host"))
    extern = staticmethod(_decorator("extern"))


jit = _Jit()


def function(fn=None, /, **kwargs):
    """@pl.function(type=..., auto_scope=..., level=...) on a @pl.program method, or at
    module level a standalone function; the compiler reads and checks the keywords
    from the source."""
    frame = sys._getframe(1)
    module_level = frame.f_locals is frame.f_globals
    in_function = not module_level and bool(frame.f_code.co_flags & inspect.CO_OPTIMIZED)  # a factory's body, not a class's

    def mark(f):
        f._pl_function = dict(kwargs)
        if not inspect.isfunction(f) or not (module_level or in_function):
            return f  # a @pl.program method
        return StandaloneFunction(f, _defining_scope(frame) if in_function else None)
    return mark(fn) if fn is not None else mark
