"""The package's modules import one another without a circle: each one,
its imports inside functions included, can be read knowing only those it
names, and the public module is imported by none of them."""

import ast
import os

import spprof

PACKAGE = os.path.dirname(spprof.__file__)


def imports_of(path):
    """The package's modules that the module at path imports, anywhere in
    it (a function's import closes a circle as well, only later)."""
    named = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module is None:
                named.update(alias.name for alias in node.names)
            elif node.level == 1:
                named.add(node.module.split(".")[0])
            elif node.module and node.module.startswith("spprof."):
                named.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            named.update(alias.name.split(".")[1] for alias in node.names
                         if alias.name.startswith("spprof."))
    return named


def package_graph():
    modules = {name[:-3] for name in os.listdir(PACKAGE)
               if name.endswith(".py")}
    return {module: imports_of(os.path.join(PACKAGE, module + ".py"))
            & modules - {module}
            for module in modules}


def test_no_module_imports_the_public_one():
    graph = package_graph()
    assert [m for m, named in graph.items() if "memprof" in named] == []


def test_the_imports_have_no_circle():
    graph = package_graph()
    done, path = set(), []

    def visit(module):
        if module in path:
            raise AssertionError(" -> ".join(
                path[path.index(module):] + [module]))
        if module in done:
            return
        path.append(module)
        for named in sorted(graph[module]):
            visit(named)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
