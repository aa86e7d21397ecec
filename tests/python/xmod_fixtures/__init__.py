"""Fixture modules of test_cross_module_kernels.py: kernels one file defines and another imports."""
