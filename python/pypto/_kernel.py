"""What @pl.jit functions (_jit.py) and @pl.program classes (_program.py)
share: the kernel object's source and constants, its compile cache, the
mapping of compiler diagnostics to exception classes, and the dispatch to
the executor (docs/dsl.md, "Using the compiler from C" and "Errors").

The compiler is C (pypto._C); nothing here judges kernel code.
"""
import hashlib
import inspect
import enum
import linecache
import math
import os
import sys
import time
import types
import warnings

from . import _C, _dist
from ._errors import DeviceUnavailableError, InternalError
from ._runconfig import RunConfig
from .ir._program import Program
from .language.parser import diagnostics as _diag


ProgramText = Program  # v1's name of a printed program (DSL-V2-SPEC §2)

# ---- diagnostics ------------------------------------------------------------------------------

def _raise_diagnostics(diags):
    """Re-issues warnings as CompileWarning; raises the first error as its class (docs/dsl.md, "Errors")."""
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


def _with_spelled(text, spelled):
    """text with spelled's (name, DSL text) after it: the values only Python knows that are no
    scalar (a factory's shape list), as module constants."""
    if not spelled:
        return text
    return text + ("" if text.endswith("\n") else "\n") + "".join("%s = %s\n" % nv for nv in spelled)


def _compile(src, entry, function, mods, specs, stop_after=None, signature=0):
    """mods: the _Modules of the kernel (its file's constants and spelled values, the other
    modules its code reaches, the imports).  signature: pto_compile_options's (1: a compile()
    from the signature, 2: ir.compile).  Every full compile keeps its stage texts
    (CompiledProgram's passes/)."""
    text = _with_spelled(src.text, mods.spelled[0])
    others = [(s.filename, _with_spelled(s.text, sp), c, s.entry_line) for s, sp, c in zip(mods.srcs[1:], mods.spelled[1:], mods.sent[1:])]
    handle, diags = _C.compile(text, src.filename, src.first_line, src.first_column, entry, function, mods.sent[0], specs,
                               stop_after, entry_line=src.entry_line, signature=signature, keep_stages=stop_after is None,
                               modules=others, imports=mods.imports)
    _raise_diagnostics(diags)
    return handle


# ---- source and referenced names --------------------------------------------------------------

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


def _referenced(fn, scope):
    """name -> (value, in the file) for the globals fn's code names (in the
    file), the defining scope's values (scope: what its annotations may name)
    and fn's closure values, each shadowing the one before."""
    out = {}
    g = fn.__globals__
    for name in _code_names(fn.__code__):
        if name in g:
            out[name] = (g[name], True)
    out.update((name, (v, False)) for name, v in scope.items())
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = (cell.cell_contents, False)
        except ValueError:
            pass
    return out


_SCALARS = (int, float, bool, str)


def _spelled(v, pl):
    """v as DSL text (a list or tuple of numbers, a dtype, an enum member), or None."""
    if type(v) in (int, bool) or type(v) is float and math.isfinite(v):
        return repr(v)
    if isinstance(v, enum.Enum) and _is_language(v):
        return "%s.%s" % (pl, v.name) if type(v).__name__ == "DataType" else "%s.%s.%s" % (pl, type(v).__name__, v.name)
    if type(v).__name__ == "DynVar" and _is_language(v):
        return '%s.dynamic("%s")' % (pl, v.name)
    if isinstance(v, (tuple, list)):
        items = [_spelled(x, pl) for x in v]
        if None in items:
            return None
        if isinstance(v, list):
            return "[%s]" % ", ".join(items)
        return "(%s)" % (items[0] + "," if len(items) == 1 else ", ".join(items))
    return None


def _defining_scope(frame):
    """The values a definition made in frame (a function or class body, not a
    module) may name in its annotations: those the DSL can hold."""
    if frame is None or frame.f_locals is frame.f_globals:
        return {}
    return {n: v for n, v in frame.f_locals.items()
            if not n.startswith("__") and (type(v) in _SCALARS or _spelled(v, "pl") is not None)}


def _pl_alias(fn):
    """The name fn's module binds to pypto.language ("pl" if none)."""
    for name, v in fn.__globals__.items():
        if isinstance(v, types.ModuleType) and v.__name__ == "pypto.language":
            return name
    return "pl"


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
    """Where a kernel's text comes from: always the whole module file, so that
    spans are the file's and module constants and kernels are there; a
    definition nested in a function, a method or a class body also gives a
    line of it (entry_line; 0 at module level), from which the compiler
    finds it and the @pl definitions beside it."""

    def __init__(self, obj, who, entry_line=0):
        code_file = inspect.getsourcefile(obj) or getattr(obj, "__code__", None) and obj.__code__.co_filename
        mod_globals = getattr(obj, "__globals__", None) or vars(sys.modules.get(obj.__module__, types))
        if code_file:
            linecache.checkcache(code_file)  # the file as it is now (a module reloaded after an edit)
        lines = linecache.getlines(code_file, mod_globals) if code_file else []
        if not lines:
            raise TypeError("%s: source code is not available; define kernels in a file" % who)
        self.filename = code_file
        self.text, self.first_line, self.first_column, self.entry_line = "".join(lines), 1, 0, entry_line
        self.hash = hashlib.sha1(self.text.encode()).hexdigest()


def _place(kernel):
    """(file, the qualified name of the function or class body kernel's definition stands in,
    "" at its file's top level)."""
    q = (getattr(kernel, "__qualname__", None) or "") if kernel._src.entry_line else ""
    return (kernel._src.filename, q.rsplit(".", 1)[0] if "." in q else "")


class _Modules:
    """The modules of one compile: srcs[0] the kernel's, then, in the order
    reached, each other file whose kernels its code reaches, and each body
    of a function a reached kernel is nested in (a kernel a factory made,
    one module per kernel object: the file again, read at that definition,
    with that object's closure values), unless that is the body this
    kernel's own definition stands in;
    per module the constants to send and the values to spell; imports:
    (module, name, other module, def name) for a name of one module bound
    to a kernel of another."""

    def __init__(self, kernel):
        self.srcs, self.sent, self.spelled, self.imports = [kernel._src], [[]], [[]], []
        self._entry = _place(kernel)
        self._index = {self._entry: 0}

    def module_of(self, kernel):
        """The module of kernel's definition (added when new): its file's top
        level, or the body it is nested in."""
        place = _place(kernel)
        if place != self._entry and place[1]:
            place += (id(kernel),)  # a factory's kernel: each object its own closure values, its own module
        k = self._index.get(place)
        if k is None and not place[1] and place[0] == self.srcs[0].filename:
            k = 0  # the entry's file's top level: module 0 reads it whatever its entry line
        if k is None:
            k = self._index[place] = len(self.srcs)
            self.srcs.append(kernel._src)
            self.sent.append([])
            self.spelled.append([])
        return k


# ---- kernel objects ---------------------------------------------------------------------------

class KernelBase:
    """What @pl.jit objects and @pl.program classes share: source, cache, lower()."""

    def _init_cache(self):
        self._cache = {}
        self._aliases = {}  # signature-mode key -> the argument key it compiled to
        self._objects = {}  # (id(handle), from .compile()) -> (handle, its CompiledProgram)
        self._hits = self._misses = 0
        self._dynamic = {}  # key without specs -> the entry's dynamic dimensions (_dynamic_dims)
        self.last_work_dir = None
        self._work_dirs = {}

    def cache_info(self):
        """(hits, misses, size) of this object's compile cache."""
        return (self._hits, self._misses, len(self._cache))

    def cache_clear(self):
        self._cache.clear()
        self._aliases.clear()
        self._dynamic.clear()
        self._objects.clear()
        self._hits = self._misses = 0

    def _functions(self):
        """The Python functions whose referenced names matter (entry and methods)."""
        raise NotImplementedError

    def _followed(self):
        """(function, scope) pairs whose names a kernel that calls this one also needs (none for a program)."""
        return ()

    def _source_key(self):
        return (self._src.hash, self._src.filename, self._src.first_line, self._src.entry_line, self._flags())

    def _constants(self):
        """The modules of a compile (_Modules) and their key.  Module 0 is
        this kernel's file; a kernel its code reaches that another file
        defines brings that file in as a module of its own, its names then
        that module's (docs/dsl.md, "Kernels from other modules").  Per
        module, sent: literal values (int/float/bool/str), and uncapturable
        objects by type.  Names in a file (globals: sequences, language
        names, kernels) are read from it by the compiler; those of a
        defining scope or a closure that are no scalar are spelled (kernels
        contribute their own key, which holds their file's hash)."""
        mods, key, seen = _Modules(self), [], set()
        pending = [(fn, self._scope, 0) for fn in self._functions()]
        while pending:
            fn, scope, m = pending.pop()
            for name, (v, in_file) in sorted(_referenced(fn, scope).items()):
                if (name, id(fn)) in seen:
                    continue
                seen.add((name, id(fn)))
                key.append((name, _key_value(v)))
                text = None if in_file or type(v) in _SCALARS else _spelled(v, _pl_alias(fn))
                if isinstance(v, KernelBase):
                    km = mods.module_of(v)
                    if km != m:
                        mods.imports.append((m, name, km, v.__name__))
                    pending.extend((f, s, km) for f, s in v._followed())
                elif type(v) in _SCALARS:
                    mods.sent[m].append((name, v))
                elif text is not None:
                    mods.spelled[m].append((name, text))
                elif in_file and (isinstance(v, (tuple, list)) or _is_language(v)):
                    continue
                elif not _is_language(v):
                    mods.sent[m].append((name, v))
        return mods, tuple(key) + tuple((s.filename, s.hash) for s in mods.srcs)

    def _compiled(self, entry, function, specs, config, signature=0):
        """The compiled program for these specs (cached).  signature: a compile
        from the annotations (specs hold scalars only); it is also cached under
        the key of the argument specs it compiled to, so a later call with such
        tensors reuses it (an alias: cache_info() counts one entry)."""
        platform = config.platform if config is not None else "a2a3sim"
        mods, ckey = self._constants()
        base = (self._source_key(), entry, function, ckey, platform)
        key = (self._source_key(), entry, function, ckey, _spec_key(_dynamic_specs(self._dynamic.get(base), specs)), platform)
        handle = self._cache.get(key) or self._cache.get(self._aliases.get(key))
        if handle is not None:
            self._hits += 1
            return handle
        handle = _compile(self._src, entry, function, mods, list(specs), signature=signature)
        self._misses += 1
        dims = _dynamic_dims(handle)
        if dims:  # one program for every extent of its dynamic dimensions (docs/dsl.md, "Dynamic shapes")
            self._dynamic[base] = dims
            key = key[:4] + (_spec_key(_dynamic_specs(dims, specs)), platform)
        if signature:
            params, _ = _C.signature(handle)
            given = {s[1]: s for s in specs}
            full = [given.get(n) or ("tensor", n, dt, tuple(None if d < 0 else d for d in shape)) for n, dt, shape, _ in params]
            full_key = key[:4] + (_spec_key(full), platform)
            if full_key in self._cache:  # compiled before from arguments: that program (one cache entry)
                handle = self._cache[full_key]
            else:
                self._cache[full_key] = handle
            self._aliases[key] = full_key
            return handle
        self._cache[key] = handle
        return handle


def _dynamic_dims(handle):
    """{parameter: its dimensions, a dynamic one as its symbol (< 0), a static one None} for
    the entry's tensor parameters with a dynamic dimension (the compiled signature says which)."""
    params, _ = _C.signature(handle)
    return {n: tuple(d if d < 0 else None for d in shape) for n, _dt, shape, _dir in params if any(d < 0 for d in shape)}


def _dynamic_specs(dims, specs):
    """specs with the extent of each dynamic dimension as None: the cache key of every extent.
    A symbol given two extents keeps the extents (no program has that key; the compile reports it)."""
    if not dims:
        return specs
    out, seen = [], {}
    for s in specs:
        syms = dims.get(s[1]) if s[0] == "tensor" else None
        if syms is None or len(syms) != len(s[3]):
            out.append(s)
            continue
        for sym, ext in zip(syms, s[3]):
            if sym is not None and seen.setdefault(sym, ext) != ext:
                return specs
        out.append(s[:3] + (tuple(None if sym is not None else ext for sym, ext in zip(syms, s[3])),) + s[4:])
    return out


def _spec_key(specs):
    return tuple(s if s[0] == "tensor" else s + (type(s[2]).__name__,) for s in specs)


def _run(kernel, entry, handle, call, config, runtime=None, work_dir=None, dist=None):
    """Dispatch: the platform check, then the executor (pypto._C.run), on
    runtime (a ChipWorker's) or the process's.  dist: a distributed call's
    fields (device_ids, dist_call, rank, world; DISTRIBUTED-SPEC §2.1): its
    scope stats and comm_stats.json (scope stats on, or PTO_COMM_STATS=1) go to dfx_outputs/rank<r>/."""
    _check_platform(config.platform)
    _warn_no_output(config)
    work_dir = kernel.last_work_dir = work_dir or _work_dir(kernel, entry, handle, config)
    fields = _runtime_fields(config)
    dfx = os.path.join(work_dir, "dfx_outputs")
    if dist is not None:
        fields.update(dist)
        dfx = os.path.join(dfx, "rank%d" % dist["rank"])
        if config.enable_scope_stats or os.environ.get("PTO_COMM_STATS") == "1":
            fields["comm_stats_dir"] = dfx  # comm_stats.json (DISTRIBUTED-SPEC §2.7)
    stats = os.path.join(dfx, "scope_stats", "scope_stats.jsonl")
    fields["output_prefix"] = dfx if config.enable_scope_stats else None
    who, specs, buffers = call
    try:
        _C.run(handle, who, list(specs), buffers, fields, runtime)
    finally:
        if config.enable_scope_stats and os.path.exists(stats):
            print("pypto: scope stats written to %s (report: build/bin/pto-scope-stats %s, or "
                  "python -m pypto.tools.scope_stats_plot %s)" % (stats, stats, stats), file=sys.stderr)


def _check_platform(platform):
    """DSL-V2-SPEC §0.5: dispatch on an Ascend platform."""
    if platform in ("a2a3", "a5"):
        raise DeviceUnavailableError(
            "platform '%s' needs an Ascend device; this build runs kernels only on 'a2a3sim' and "
            "'a5sim' (CPU)" % platform)


def _runtime_fields(config):
    return {name: getattr(config, name) for name in _RUNTIME_FIELDS}


_RUNTIME_FIELDS = ("ring_task_window", "ring_heap", "ring_dep_pool", "num_workers", "stall_timeout_ms")


def _work_dir(kernel, entry, handle, config):
    """<work_dir>: save_kernels_dir, else one directory per compiled program."""
    if config.save_kernels_dir:
        return config.save_kernels_dir
    kept = kernel._work_dirs.get(id(handle))
    if kept is None or kept[0] is not handle:
        base = os.environ.get("PYPTO_PROG_BUILD_DIR") or os.path.join(".", "build_output")
        kept = kernel._work_dirs[id(handle)] = (handle, os.path.join(
            base, "%s_%s" % (entry, time.strftime("%Y%m%d_%H%M%S", time.localtime(_dist.start_time())))))
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
    if config is None:
        return RunConfig()
    if not isinstance(config, RunConfig):
        raise TypeError("config must be a pypto.runtime.RunConfig, got %s" % type(config).__name__)
    return config
