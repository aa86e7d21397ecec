"""Kernel objects: decorators (§1.1, §4.2), source and constants (§2.1),
argument specs (§2.2), the per-object cache (§2.3), lower() (§2.4),
programs (§2.5) and the mapping of compiler diagnostics to classes (§2.6).

The compiler is C (pypto._C); nothing here judges kernel code.
"""
import hashlib
import inspect
import linecache
import os
import sys
import textwrap
import time
import types
import warnings

from . import _C
from ._args import adapt_args, bind_args
from ._errors import InternalError
from .language.parser import diagnostics as _diag

_AUTO_SCOPE_KINDS = ("jit", "host", "inline")
_LEVEL_KINDS = ("incore",)


class ProgramText(str):
    """A printed program (DSL text); as_python() returns itself."""

    def as_python(self):
        return self


# ---- diagnostics ------------------------------------------------------------------------------

def _raise_diagnostics(diags):
    """Re-issues warnings as CompileWarning; raises the first error as its §2.6 class."""
    first = None
    for cls, msg, hint, fname, line, col, end_line, end_col, is_warning, text in diags:
        if is_warning:
            warnings.warn_explicit(_diag.CompileWarning(text), _diag.CompileWarning, fname or "<string>", line)
        elif first is None:
            first = (cls, msg, hint, fname, line, col, end_line, end_col, text)
    if first is None:
        return
    cls, msg, hint, fname, line, col, end_line, end_col, text = first
    if cls == "TypeError":
        raise TypeError(msg)
    exc = getattr(_diag, cls, None)
    if not (isinstance(exc, type) and issubclass(exc, _diag.ParserError)):
        if not text.endswith("(internal compiler error; please report)"):
            text += " (internal compiler error; please report)"
        raise InternalError(text)
    span = {"filename": fname, "line": line, "column": col, "begin_line": line, "begin_column": col,
            "end_line": end_line, "end_column": end_col}
    raise exc(msg, hint, span, text)


def _compile(src, entry, function, constants, specs, stop_after=None):
    handle, diags = _C.compile(src.text, src.filename, src.first_line, src.first_column, entry, function, constants, specs,
                               stop_after)
    _raise_diagnostics(diags)
    return handle


# ---- source and referenced names (§2.1) -------------------------------------------------------

def _is_language(value):
    mod = getattr(value, "__module__", None) or getattr(type(value), "__module__", "")
    name = getattr(value, "__name__", "")
    return isinstance(value, types.ModuleType) and name.startswith("pypto") or str(mod).startswith("pypto")


def _code_names(code):
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


def _referenced(fn):
    """(name, value) for the globals and closure values fn's code names."""
    out = {}
    g = fn.__globals__
    for name in _code_names(fn.__code__):
        if name in g:
            out[name] = g[name]
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:
            pass
    return out


def _key_value(v):
    if type(v) in (int, float, bool, str) or v is None:
        return (type(v).__name__, v)
    if isinstance(v, (tuple, list)):
        return (type(v).__name__, tuple(_key_value(x) for x in v))
    if isinstance(v, KernelBase):
        return ("kernel", v._source_key())
    if _is_language(v):
        return ("pl", repr(v))
    return ("object", type(v).__name__)


class _Source:
    """Where a kernel's text comes from: the whole module file for top-level
    definitions (first line 1), else the definition itself (dedented)."""

    def __init__(self, obj, who):
        code_file = inspect.getsourcefile(obj) or getattr(obj, "__code__", None) and obj.__code__.co_filename
        mod_globals = getattr(obj, "__globals__", None) or vars(sys.modules.get(obj.__module__, types))
        lines = linecache.getlines(code_file, mod_globals) if code_file else []
        if not lines:
            raise TypeError("%s: source code is not available; define kernels in a file" % who)
        self.filename = code_file
        if "<locals>" in obj.__qualname__:
            try:
                own, first = inspect.getsourcelines(obj)
            except (OSError, TypeError):
                raise TypeError("%s: source code is not available; define kernels in a file" % who) from None
            self.text, self.first_line = textwrap.dedent("".join(own)), first
            self.first_column = len(own[0]) - len(own[0].lstrip())  # what dedent removed
        else:
            self.text, self.first_line, self.first_column = "".join(lines), 1, 0
        self.hash = hashlib.sha1(self.text.encode()).hexdigest()


# ---- kernel objects ---------------------------------------------------------------------------

class KernelBase:
    """What @pl.jit objects and @pl.program classes share: source, cache, lower()."""

    def _init_cache(self):
        self._cache = {}
        self._hits = self._misses = 0
        self.last_work_dir = None
        self._work_dirs = {}

    def cache_info(self):
        """(hits, misses, size) of this object's compile cache."""
        return (self._hits, self._misses, len(self._cache))

    def cache_clear(self):
        self._cache.clear()
        self._hits = self._misses = 0

    def _functions(self):
        """The Python functions whose referenced names matter (entry and methods)."""
        raise NotImplementedError

    def _source_key(self):
        return (self._src.hash, self._src.filename, self._src.first_line, self._flags())

    def _constants(self):
        """Constants to send and their key: literal values (int/float/bool/str), and
        uncapturable objects by type; language names, kernels and sequences are
        read from the file by the compiler (kernels contribute their own key)."""
        sent, key, seen = [], [], set()
        pending = list(self._functions())
        while pending:
            fn = pending.pop()
            for name, v in sorted(_referenced(fn).items()):
                if (name, id(fn)) in seen:
                    continue
                seen.add((name, id(fn)))
                key.append((name, _key_value(v)))
                if isinstance(v, JitFunction):
                    pending.append(v.__wrapped__)
                elif type(v) in (int, float, bool, str):
                    sent.append((name, v))
                elif isinstance(v, (tuple, list, KernelBase)) or _is_language(v):
                    continue
                else:
                    sent.append((name, v))
        return sent, tuple(key)

    def _compiled(self, entry, function, specs, config):
        platform = config.platform if config is not None else "a2a3sim"
        constants, ckey = self._constants()
        skey = tuple(s if s[0] == "tensor" else s + (type(s[2]).__name__,) for s in specs)
        key = (self._source_key(), entry, function, ckey, skey, platform)
        handle = self._cache.get(key)
        if handle is not None:
            self._hits += 1
            return handle
        handle = _compile(self._src, entry, function,
                          constants, list(specs))
        self._misses += 1
        self._cache[key] = handle
        return handle


def _run(kernel, entry, handle, call, config):
    """Dispatch: the platform check, then the executor (pypto._C.run)."""
    from .runtime import DeviceUnavailableError
    if config.platform in ("a2a3", "a5"):
        raise DeviceUnavailableError(
            "platform '%s' needs an Ascend device; this build runs kernels only on 'a2a3sim' and "
            "'a5sim' (CPU)" % config.platform)
    _warn_no_output(config)
    work_dir = kernel.last_work_dir = _work_dir(kernel, entry, handle, config)
    fields = {name: getattr(config, name) for name in _RUNTIME_FIELDS}
    stats = os.path.join(work_dir, "dfx_outputs", "scope_stats", "scope_stats.jsonl")
    fields["output_prefix"] = os.path.join(work_dir, "dfx_outputs") if config.enable_scope_stats else None
    who, specs, buffers = call
    try:
        _C.run(handle, who, list(specs), buffers, fields)
    finally:
        if config.enable_scope_stats and os.path.exists(stats):
            print("pypto: scope stats written to %s (report: build/bin/pto-scope-stats %s, or "
                  "python -m pypto.tools.scope_stats_plot %s)" % (stats, stats, stats), file=sys.stderr)


_RUNTIME_FIELDS = ("ring_task_window", "ring_heap", "ring_dep_pool", "num_workers", "stall_timeout_ms")


def _work_dir(kernel, entry, handle, config):
    """<work_dir> (§5.4): save_kernels_dir, else one directory per compiled program."""
    if config.save_kernels_dir:
        return config.save_kernels_dir
    kept = kernel._work_dirs.get(id(handle))
    if kept is None or kept[0] is not handle:
        base = os.environ.get("PYPTO_PROG_BUILD_DIR") or os.path.join(".", "build_output")
        kept = kernel._work_dirs[id(handle)] = (handle, os.path.join(
            base, "%s_%s" % (entry, time.strftime("%Y%m%d_%H%M%S"))))
    return kept[1]


_WARNED = set()


def _warn_no_output(config):
    for field, on in (("enable_chip_swimlane", config.enable_chip_swimlane > 0),
                      ("enable_dump_args", config.enable_dump_args > 0),
                      ("enable_pmu", config.enable_pmu > 0),
                      ("enable_dep_gen", bool(config.enable_dep_gen))):
        if on and field not in _WARNED:
            _WARNED.add(field)
            warnings.warn("RunConfig.%s produces no output in this version" % field, UserWarning, stacklevel=4)


def _config(config):
    from .runtime import RunConfig
    if config is None:
        return RunConfig()
    if not isinstance(config, RunConfig):
        raise TypeError("config must be a pypto.runtime.RunConfig, got %s" % type(config).__name__)
    return config


class JitFunction(KernelBase):
    """A @pl.jit function (entry) or a .incore/.inline/.opaque/.host sub-function."""

    def __init__(self, fn, kind, flags):
        self.__wrapped__ = fn
        self.kind = kind
        self.flags = flags
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, attr, getattr(fn, attr, None))
        self._who = "@pl.jit function '%s'" % fn.__name__
        self._sig = inspect.signature(fn)
        if "config" in self._sig.parameters:
            raise TypeError("%s: parameter name 'config' is reserved" % self._who)
        self._src = _Source(fn, self._who)
        self._init_cache()

    @property
    def auto_scope(self):
        return self.flags.get("auto_scope", True)

    def _flags(self):
        return (self.kind, tuple(sorted((k, int(v)) for k, v in self.flags.items())))

    def _functions(self):
        return [self.__wrapped__]

    def _entry_check(self):
        # @pl.jit.host compiles to the compiler's "not supported" error, with its span.
        if self.kind not in ("jit", "host"):
            raise TypeError("@pl.jit.%s function '%s' cannot be called directly; call it from a @pl.jit entry"
                            % (self.kind, self.__name__))

    def _prepare(self, args, kwargs, config, for_lower):
        self._entry_check()
        bound = bind_args(self._who, self._sig, args, kwargs)
        specs, buffers = adapt_args(self._who, self._sig, bound, for_lower)
        return self._compiled(self.__name__, None, specs, config), (self._who, specs, buffers)

    def lower(self, *args, config=None, **kwargs):
        """The post-pass program as DSL text (never runs, never writes files)."""
        config = _config(config)
        handle, _ = self._prepare(args, kwargs, config, True)
        return ProgramText(_C.text(handle))

    def __call__(self, *args, config=None, **kwargs):
        config = _config(config)
        handle, call = self._prepare(args, kwargs, config, False)
        return _run(self, self.__name__, handle, call, config)

    def __repr__(self):
        return "<pl.jit%s function %s>" % ("" if self.kind == "jit" else "." + self.kind, self.__qualname__)


# ---- decorators (§1.1, §4.2) ------------------------------------------------------------------

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
        flags = _check_keywords(kind, kwargs)
        if fn is None:
            return lambda f: JitFunction(f, kind, flags)
        if not callable(fn):
            raise TypeError("@pl.jit%s must decorate a function" % ("" if kind == "jit" else "." + kind))
        return JitFunction(fn, kind, flags)
    decorate.__name__ = kind
    return decorate


class _Jit:
    """pl.jit and its kinds: pl.jit.incore, .inline, .opaque, .host (.extern: later)."""

    __call__ = staticmethod(_decorator("jit"))
    incore = staticmethod(_decorator("incore"))
    inline = staticmethod(_decorator("inline"))
    opaque = staticmethod(_decorator("opaque"))
    host = staticmethod(_decorator("host"))

    @staticmethod
    def extern(*args, **kwargs):
        raise _diag.UnsupportedFeatureError("@pl.jit.extern is not supported in this version")


jit = _Jit()


def function(fn=None, /, **kwargs):
    """@pl.function(type=..., auto_scope=..., level=...) on a @pl.program method; the
    compiler reads and checks the keywords from the source (§4.2)."""
    def mark(f):
        f._pl_function = dict(kwargs)
        return f
    return mark(fn) if fn is not None else mark


from ._program import Program, parse_program, program  # noqa: E402
