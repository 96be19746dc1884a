"""The book's library as autodoc sees it, read from its source: nothing of it runs.

An API page written for d2lbook says ``.. currentmodule:: d2l.torch`` and ``.. autoclass::
Trainer``. Importing ``d2l.torch`` would import PyTorch, which the Sphinx process lacks (each
framework lives in an environment of its own), or a package that one of its extras needs.
Instead, :class:`LibraryFinder` answers the import of each library module, and of the
packages above it (``d2l``, from its ``__init__.py``), with a module made from its syntax
tree: its functions and classes (methods included) with their docstrings and signatures as
written, defaults and annotations shown as their source.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import inspect
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from polybook.library.syntax import added_to_class

PACKAGE_INIT = "__init__.py"
KINDS = {
    "posonlyargs": inspect.Parameter.POSITIONAL_ONLY,
    "args": inspect.Parameter.POSITIONAL_OR_KEYWORD,
    "kwonlyargs": inspect.Parameter.KEYWORD_ONLY,
}


class Source:
    """A default value or an annotation, shown as its source text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _annotation(node: ast.expr | None) -> Any:
    return inspect.Parameter.empty if node is None else ast.unparse(node)


def _default(node: ast.expr | None) -> Any:
    return inspect.Parameter.empty if node is None else Source(ast.unparse(node))


def signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> inspect.Signature:
    """The signature ``node`` declares."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    parameters = [
        inspect.Parameter(
            arg.arg,
            KINDS["posonlyargs" if index < len(args.posonlyargs) else "args"],
            default=_default(defaults[index]),
            annotation=_annotation(arg.annotation),
        )
        for index, arg in enumerate(positional)
    ]
    if args.vararg:
        var = inspect.Parameter.VAR_POSITIONAL
        parameters.append(inspect.Parameter(args.vararg.arg, var))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        kind, annotation = KINDS["kwonlyargs"], _annotation(arg.annotation)
        shown = _default(default)
        parameters.append(inspect.Parameter(arg.arg, kind, default=shown, annotation=annotation))
    if args.kwarg:
        parameters.append(inspect.Parameter(args.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(parameters, return_annotation=_annotation(node.returns))


def _function(
    node: ast.FunctionDef | ast.AsyncFunctionDef, module: str, qualname: str
) -> Callable[..., Any]:
    def stub(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{qualname} is documented from its source, not run")

    stub.__name__ = node.name
    stub.__qualname__ = qualname
    stub.__module__ = module
    stub.__doc__ = ast.get_docstring(node)
    stub.__signature__ = signature(node)  # type: ignore[attr-defined]
    return stub


def _class(node: ast.ClassDef, module: str) -> type:
    namespace: dict[str, Any] = {"__module__": module, "__doc__": ast.get_docstring(node)}
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            method = _function(item, module, f"{node.name}.{item.name}")
            decorators = {ast.unparse(d) for d in item.decorator_list}
            if "staticmethod" in decorators:
                namespace[item.name] = staticmethod(method)
            elif "classmethod" in decorators:
                namespace[item.name] = classmethod(method)
            elif "property" in decorators:
                namespace[item.name] = property(method, doc=method.__doc__)
            else:
                namespace[item.name] = method
    made = type(node.name, (), namespace)
    made.__qualname__ = node.name
    return made


def module_from_source(name: str, source: str, path: str = "") -> types.ModuleType:
    """The module ``name`` as its ``source`` defines it, without running any of it: later
    definitions replace earlier ones; a method attached with ``add_to_class`` joins its
    class."""
    tree = ast.parse(source)
    module = types.ModuleType(name, ast.get_docstring(tree))
    module.__file__ = path or None
    classes: dict[str, type] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = _class(node, name)
            setattr(module, node.name, classes[node.name])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            owner = added_to_class(node)
            target = classes.get(owner[0][0]) if owner else None
            if target is not None:
                qualname = f"{target.__name__}.{node.name}"
                setattr(target, node.name, _function(node, name, qualname))
            elif not owner:
                setattr(module, node.name, _function(node, name, node.name))
        elif isinstance(node, ast.Delete):
            for target_node in node.targets:
                if isinstance(target_node, ast.Name) and hasattr(module, target_node.id):
                    delattr(module, target_node.id)
    return module


class LibraryFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the book's library modules (name -> file) from their source."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = dict(files)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        package = file is not None and file.endswith(PACKAGE_INIT)
        if file is None or not (package or Path(file).is_file()):
            return None
        spec = importlib.machinery.ModuleSpec(fullname, self, origin=file, is_package=package)
        if package:
            spec.submodule_search_locations = []  # its modules come from here, or not at all
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        path = Path(self.files[spec.name])
        source = path.read_text(encoding="utf-8") if path.is_file() else ""
        module = module_from_source(spec.name, source, str(path))
        if str(path).endswith(PACKAGE_INIT):
            module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing runs: the module is what its source declares."""


def install(files: Mapping[str, str]) -> None:
    """Answer the imports of ``files``' modules from source in this process (once)."""
    for finder in sys.meta_path:
        if isinstance(finder, LibraryFinder):
            finder.files.update(files)
            return
    sys.meta_path.insert(0, LibraryFinder(files))
