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
            elif node.module == "spprof":
                named.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("spprof."):
                named.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            named.update(alias.name.split(".")[1] for alias in node.names
                         if alias.name.startswith("spprof."))
    return named


def package_graph(package=PACKAGE):
    modules = {name[:-3] for name in os.listdir(package)
               if name.endswith(".py")}
    return {module: imports_of(os.path.join(package, module + ".py"))
            & modules - {module}
            for module in modules}


def first_circle(graph):
    """The first circle of imports found in graph, as the modules along
    it, or None."""
    done, path = set(), []

    def visit(module):
        if module in path:
            return path[path.index(module):] + [module]
        if module in done:
            return None
        path.append(module)
        for named in sorted(graph[module]):
            circle = visit(named)
            if circle:
                return circle
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        circle = visit(module)
        if circle:
            return circle
    return None


def test_no_module_imports_the_public_one():
    graph = package_graph()
    assert [m for m, named in graph.items() if "memprof" in named] == []


def test_the_imports_have_no_circle():
    circle = first_circle(package_graph())
    assert circle is None, " -> ".join(circle)


def test_a_circle_closed_inside_a_function_is_found(tmp_path):
    (tmp_path / "_a.py").write_text("from ._b import shared\n")
    (tmp_path / "_b.py").write_text("from . import _c\n")
    (tmp_path / "_c.py").write_text("def late():\n"
                                    "    from spprof import _a\n")
    (tmp_path / "_d.py").write_text("import spprof._a\n")
    assert first_circle(package_graph(str(tmp_path))) == [
        "_a", "_b", "_c", "_a"]
