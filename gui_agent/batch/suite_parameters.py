"""A task's parameters in a suite file: a CSV file (relative to the suite's folder), a list of
rows, or one mapping; every row names the same values, as text. The task is run once per row."""

from __future__ import annotations

import csv

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .yaml_nodes import NodeReader


def parameter_rows(reader: NodeReader, node: Node) -> tuple[list[dict[str, str]], bool]:
    """The rows a task is expanded over, and whether there is more than one set (a table)."""
    if isinstance(node, ScalarNode):
        rel = reader.string(node, "parameters (a CSV file)")
        path = reader.path.parent / rel
        try:
            with path.open(encoding="utf-8", newline="") as f:
                rows = [dict(r) for r in csv.DictReader(f)]
        except OSError as exc:
            raise reader.error(node, f"cannot read the parameters file {path}: "
                                     f"{exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise reader.error(node, f"the parameters file {path} is not UTF-8 text (byte "
                                     f"0x{exc.object[exc.start]:02x} at offset {exc.start}); "
                                     "save it as a UTF-8 CSV file") from None
        except csv.Error as exc:
            raise reader.error(node, f"the parameters file {path} is not a readable CSV file: "
                                     f"{exc}") from None
        if not rows:
            raise reader.error(node, f"the parameters file {path} has a header but no rows")
        for n, row in enumerate(rows, 2):
            if None in row or any(v is None for v in row.values()):
                raise reader.error(node, f"{path} line {n}: the row does not have one value "
                                         "per header column")
        return rows, True
    if isinstance(node, MappingNode):
        return [_row(reader, node)], False
    if isinstance(node, SequenceNode):
        rows = []
        for item in node.value:
            if not isinstance(item, MappingNode):
                raise reader.error(item, "each parameters row must be a mapping (name: value)")
            rows.append(_row(reader, item))
        if not rows:
            raise reader.error(node, "parameters is an empty list")
        return rows, True
    raise reader.error(node, "parameters must be a CSV file name, a list of rows or a mapping")


def _row(reader: NodeReader, node: MappingNode) -> dict[str, str]:
    """One row of a parameters list or mapping: names to texts (numbers are written as text)."""
    row: dict[str, str] = {}
    for key_node, value_node in node.value:
        name = reader.string(key_node, "a parameter's name")
        if not isinstance(value_node, ScalarNode):
            raise reader.error(value_node, f"parameter {name!r} needs a text or a number, "
                                           "not a list or a mapping")
        value = reader.value(value_node)
        if isinstance(value, bytes):
            raise reader.error(value_node, f"parameter {name!r} needs a text or a number")
        row[name] = "" if value is None else str(value)
    return row
