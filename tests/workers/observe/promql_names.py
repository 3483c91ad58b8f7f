"""The metric names a PromQL expression reads (enough PromQL for a dashboard's panels: selectors,
functions, aggregations with by/without, binary operators, ranges, numbers, strings)."""
import re

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "and", "or",
            "unless", "inf", "nan"}
SUFFIXES = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_sum", "_count", "_created"),
            "summary": ("_sum", "_count", "_created"), "gauge": ("",)}


def metric_names(expr: str) -> set[str]:
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)        # string literals
    text = re.sub(r"\{[^}]*\}", "", text)                   # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)                  # ranges and subqueries
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)  # label lists
    names = set()
    for match in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", text):
        word, call = match.group(1), match.group(2)
        if not call and word.lower() not in KEYWORDS:
            names.add(word)
    return names


def family_of(sample: str, families: dict[str, str]) -> str | None:
    """The family (name -> type, as a registry lists them) a sample name belongs to, or None."""
    for name, kind in families.items():
        for suffix in SUFFIXES.get(kind, ("",)):
            if sample == name + suffix:
                return name
    return None
