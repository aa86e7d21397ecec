"""@pl.program classes and pl.parse_program (docs/dsl.md, "What the compiler does").

A program's methods carry their @pl.function keywords; the compiler reads
and checks them from the source.  P(...) runs the Orchestration method the
compiler chooses (the only one no other method calls: a printed program's
promoted Opaque functions are called by its entry), P.f(...) a named one;
binding excludes `self`.  P.compile(...) and P.f.compile(...) are
JITFunction.compile's (_compiled.compile_entry) for that entry, on the
class's cache.  as_python() is the program as written, parsed and printed:
it needs no arguments.
"""
import builtins
import functools
import inspect
import itertools
import linecache
import sys

from . import _C
from ._args import adapt_args, bind_args
from ._compiled import compile_entry
from ._function import StandaloneFunction
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
        mods, ckey = self._constants()
        handle = self._as_written.get(ckey)
        if handle is None:
            handle = self._as_written[ckey] = _compile(self._src, self.__name__, None, mods, [], "syntax")
        return handle

    def _single(self):
        name, count = _C.function(self._syntax())
        if name is None:
            raise TypeError("program '%s' has %d Orchestration functions; call one as %s.<name>(...)"
                            % (self.__name__, count, self.__name__))
        return name

    def _signature(self, method):
        """(who, the method's signature without `self`)."""
        fn = self._methods.get(method)
        if fn is None:
            raise AttributeError("program '%s' has no function '%s'" % (self.__name__, method))
        sig = inspect.signature(fn)
        return ("@pl.program function '%s.%s'" % (self.__name__, method),
                sig.replace(parameters=list(sig.parameters.values())[1:]))

    def _prepare(self, method, args, kwargs, config, for_lower):
        who, sig = self._signature(method)
        bound = bind_args(who, sig, args, kwargs)
        specs, buffers = adapt_args(who, sig, bound, for_lower)
        return self._compiled(self.__name__, method, specs, config), (who, specs, buffers)

    def __call__(self, *args, config=None, **kwargs):
        return _ProgramFunction(self, self._single())(*args, config=config, **kwargs)

    def lower(self, *args, config=None, **kwargs):
        """Post-pass text of the whole program, specialized through its Orchestration entry."""
        return _ProgramFunction(self, self._single()).lower(*args, config=config, **kwargs)

    def compile(self, *args, config=None, **kwargs):
        """The CompiledProgram of the Orchestration entry (docs/dsl.md, "Compile once, run many"):
        with tensors, the call's binding, key and cache entry; without, shapes from the annotations."""
        return _ProgramFunction(self, self._single()).compile(*args, config=config, **kwargs)

    def as_python(self, *, prefix="pl", concise=False, format=True):
        """The program before the passes: as written, parsed and printed,
        with the constants its code names; parameters keep their annotations
        (a bare pl.Tensor stays bare), so no arguments are needed."""
        # form None: printed again in the asked form (the module may name pypto.language otherwise)
        text = ProgramText(_C.text(self._syntax()), self.__name__, form=None)
        return text.as_python(prefix=prefix, concise=concise, format=format)

    @property
    def name(self):
        return self.__name__

    @property
    def functions(self):
        """The program's functions as written (pypto.ir.Program.functions)."""
        return self.as_python().functions

    def get_function(self, name):
        return self.functions.get(name)

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
        return ProgramText(_C.text(handle), self._prog.__name__)

    def compile(self, *args, config=None, **kwargs):
        """The CompiledProgram of this function as the entry (Program.compile); nothing runs."""
        who, sig = self._prog._signature(self.__name__)
        return compile_entry(self._prog, self.__name__, who, sig, args, kwargs, config,
                             functools.partial(self._prog._prepare, self.__name__))


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

_NONE_FOUND = ("No @pl.function or @pl.program found in %s. Make sure your code contains a function decorated with "
               "@pl.function or a class decorated with @pl.program.")
_MANY_FOUND = ("Multiple functions/programs found in %s: %r. pl.parse() can only parse code containing a single "
               "function or program. Consider using separate calls or parsing from separate files.")


class _ParseBuiltins(dict):
    """The builtins of pl.parse's text: a name defined nowhere reads as pl.dynamic("<name>") (the
    compiler makes it a dynamic dimension where an annotation uses it: docs/dsl.md, "Dynamic shapes")."""

    def __missing__(self, name):
        from .language import DynVar
        return DynVar(name)


def parse(code, filename="<string>"):
    """The one @pl.function (a pypto.ir.Function) or @pl.program (a program
    object, callable like the class) that code defines; `import
    pypto.language as pl` is supplied when code does not import it."""
    from . import language
    from .ir._program import Function, _syntax
    name = filename if filename != "<string>" else "<pypto-program-%d>" % next(_parsed)
    code = str(code)
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    namespace = {"__name__": "__pypto_parsed__", "pl": language, "__builtins__": _ParseBuiltins(vars(builtins))}
    try:
        compiled = compile(code, name, "exec")
    except SyntaxError as e:
        raise SyntaxError("Failed to compile code from %s: %s (%s, line %s)" % (filename, e.msg, filename, e.lineno)) \
            from None
    exec(compiled, namespace)
    found = [(k, v) for k, v in namespace.items() if isinstance(v, (Program, StandaloneFunction))]
    if not found:
        raise ValueError(_NONE_FOUND % filename)
    if len(found) > 1:
        raise ValueError(_MANY_FOUND % (filename, [k for k, _ in found]))
    key, obj = found[0]
    if isinstance(obj, Program):
        return obj
    rows = {row[0]: row for row in _C.functions(_syntax(code, filename, None))}
    return Function(rows[obj.__name__], code, filename, None)


def loads(path):
    """pl.parse of the file at path."""
    with open(path) as f:
        return parse(f.read(), filename=str(path))


def parse_program(text, filename="<string>"):
    """pl.parse that insists on a @pl.program (e.g. lower()'s output)."""
    from .ir._program import Function
    obj = parse(text, filename)
    if isinstance(obj, Function):
        raise ValueError("Expected @pl.program but found @pl.function in %s. Use pl.parse() for auto-detection or "
                         "ensure your code contains @pl.program." % filename)
    return obj
