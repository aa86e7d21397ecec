"""@pl.program classes and pl.parse_program (docs/dsl.md, "What the compiler does").

A program's methods carry their @pl.function keywords; the compiler reads
and checks them from the source.  P(...) runs the Orchestration method the
compiler chooses (the only one no other method calls: a printed program's
promoted Opaque functions are called by its entry), P.f(...) a named one;
binding excludes `self`.  as_python() is the program as written, parsed
and printed: it needs no arguments.
"""
import inspect
import itertools
import linecache
import sys

from . import _C
from ._args import adapt_args, bind_args
from ._kernel import KernelBase, ProgramText, _Source, _compile, _config, _defining_scope, _run


class Program(KernelBase):
    """A @pl.program class: one compiled program per Orchestration method and arguments."""

    def __init__(self, cls, scope=None):
        self.__wrapped__ = cls
        self.__name__, self.__qualname__ = cls.__name__, cls.__qualname__
        self.__module__, self.__doc__ = cls.__module__, cls.__doc__
        self._methods = {n: f for n, f in vars(cls).items()
                         if inspect.isfunction(f) and hasattr(f, "_pl_function")}
        first = next(iter(self._methods.values()), None)
        nested = cls.__qualname__ != cls.__name__  # in a function, a method or a class body
        self._src = _Source(first if first is not None else cls, "@pl.program '%s'" % cls.__name__,
                            _class_line(cls, first) if nested else 0)
        self._scope = scope or {}
        self._init_cache()
        self._as_written = {}  # constants key -> the compile stopped at "syntax"

    def _flags(self):
        return ("program", self.__name__)

    def _functions(self):
        return list(self._methods.values())

    def _syntax(self):
        """The program parsed, its declarations checked, nothing specialized."""
        constants, spelled, ckey = self._constants()
        handle = self._as_written.get(ckey)
        if handle is None:
            handle = self._as_written[ckey] = _compile(self._src, self.__name__, None, constants, [], "syntax", spelled)
        return handle

    def _single(self):
        name, count = _C.function(self._syntax())
        if name is None:
            raise TypeError("program '%s' has %d Orchestration functions; call one as %s.<name>(...)"
                            % (self.__name__, count, self.__name__))
        return name

    def _prepare(self, method, args, kwargs, config, for_lower):
        fn = self._methods.get(method)
        if fn is None:
            raise AttributeError("program '%s' has no function '%s'" % (self.__name__, method))
        who = "@pl.program function '%s.%s'" % (self.__name__, method)
        sig = inspect.signature(fn)
        sig = sig.replace(parameters=list(sig.parameters.values())[1:])
        bound = bind_args(who, sig, args, kwargs)
        specs, buffers = adapt_args(who, sig, bound, for_lower)
        return self._compiled(self.__name__, method, specs, config), (who, specs, buffers)

    def __call__(self, *args, config=None, **kwargs):
        return _ProgramFunction(self, self._single())(*args, config=config, **kwargs)

    def lower(self, *args, config=None, **kwargs):
        """Post-pass text of the whole program, specialized through its Orchestration entry."""
        return _ProgramFunction(self, self._single()).lower(*args, config=config, **kwargs)

    def as_python(self):
        """The program before the passes: as written, parsed and printed,
        with the constants its code names; parameters keep their annotations
        (a bare pl.Tensor stays bare), so no arguments are needed."""
        return ProgramText(_C.text(self._syntax()))

    def _orchestration_names(self):
        """The Orchestration methods (their @pl.function type=), in definition order."""
        return [n for n, f in self._methods.items()
                if getattr(f._pl_function.get("type"), "name", None) == "Orchestration"]

    def __getattr__(self, name):
        methods = self.__dict__.get("_methods", {})
        if name in methods:
            return _ProgramFunction(self, name)
        raise AttributeError(name)

    def __repr__(self):
        return "<pl.program %s>" % self.__qualname__


class _ProgramFunction:
    """P.f: one method of a program, callable and lowerable."""

    def __init__(self, prog, name):
        self._prog, self.__name__ = prog, name

    def __call__(self, *args, config=None, **kwargs):
        config = _config(config)
        handle, call = self._prog._prepare(self.__name__, args, kwargs, config, False)
        return _run(self._prog, self.__name__, handle, call, config)

    def lower(self, *args, config=None, **kwargs):
        config = _config(config)
        handle, _ = self._prog._prepare(self.__name__, args, kwargs, config, True)
        return ProgramText(_C.text(handle))


def _class_line(cls, method):
    """A line of a nested class's definition: one of its methods' (0: none known)."""
    if method is not None:
        return method.__code__.co_firstlineno
    try:
        return inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return 0


def program(cls):
    """@pl.program on a class."""
    if not inspect.isclass(cls):
        raise TypeError("@pl.program must decorate a class")
    return Program(cls, _defining_scope(sys._getframe(1)))


_parsed = itertools.count()


def parse_program(text, filename="<string>"):
    """A program object from DSL text (e.g. lower()'s output), callable like a @pl.program class."""
    name = filename if filename != "<string>" else "<pypto-program-%d>" % next(_parsed)
    text = str(text)
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    namespace = {"__name__": "__pypto_parsed__"}
    exec(compile(text, name, "exec"), namespace)
    programs = [v for v in namespace.values() if isinstance(v, Program)]
    if len(programs) != 1:
        raise TypeError("parse_program: the text defines %d @pl.program classes; expected 1" % len(programs))
    return programs[0]
