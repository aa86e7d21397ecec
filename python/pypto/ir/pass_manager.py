"""pypto.ir.pass_manager: the names ir.compile's knobs take (DSL-V2-SPEC §4.3).
The CPU compiler has one pipeline: strategy is accepted and ignored; a dump
level other than NONE writes passes/ like dump_passes=True."""
import enum


class OptimizationStrategy(enum.Enum):
    Default = "Default"


class PassDumpLevel(enum.Enum):
    NONE = 0
    CONCISE = 1
    EXPLICIT = 2
