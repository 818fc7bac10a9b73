"""The CFA as a graphviz ``dot`` drawing: one cluster per function, edges labelled with
their ``repr`` (the operation they carry), so a reader can check the front end's output
against the C source by eye (``cooptest cfa prog.c --dot cfa.dot; dot -Tsvg cfa.dot``)."""
from __future__ import annotations

import json

from cooptest.cfa.ir import CallEdge, ErrorEdge, Program


def _quote(text: str) -> str:
    """A dot string literal (JSON's escaping is a subset dot accepts)."""
    return json.dumps(text)


def to_dot(program: Program) -> str:
    lines = ["digraph cfa {", '  node [shape=circle, fontsize=9, width=0.3];',
             '  edge [fontsize=9];']
    for name, cfa in program.functions.items():
        lines.append(f"  subgraph {_quote('cluster_' + name)} {{")
        lines.append(f"    label={_quote(name)};")
        for loc in cfa.locations:
            attrs = [f"label={_quote(f'{loc.id}')}"]
            if loc is cfa.entry:
                attrs.append("shape=doublecircle")
            elif loc.is_loop_head:
                attrs.append("shape=box")
            lines.append(f"    n{loc.id} [{', '.join(attrs)}];")
        for edge in cfa.edges():
            attrs = [f"label={_quote(f'{edge.line}: {edge!r}')}"]
            if isinstance(edge, ErrorEdge):
                attrs.append("color=red")
            lines.append(f"    n{edge.src.id} -> n{edge.dst.id} [{', '.join(attrs)}];")
        lines.append("  }")
    # calls into functions with a body: dashed edges between clusters
    for edge in program.edges():
        if isinstance(edge, CallEdge) and isinstance(edge.callee, str) and edge.callee in program.functions:
            lines.append(f"  n{edge.src.id} -> n{program.functions[edge.callee].entry.id} "
                         f"[style=dashed, color=gray];")
    lines.append("}")
    return "\n".join(lines) + "\n"
