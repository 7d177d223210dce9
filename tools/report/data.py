"""The model's runs as CSV and JSON (the standard library's writers: UTF-8
kept, every field quoted as its format needs)."""
import csv
import json

from .output import write_text

CSV_HEAD = ["run", "label", "file", "board", "cpu", "platform", "date", "partial", "mode", "probe",
            "metric", "value", "unit", "line", "samples"]


def fixed(v, decimals):
    """A figure as the image printed it (its decimals)."""
    return f"{v:.{decimals}f}"


def csv_rows(model):
    for r in model["runs"]:
        head = [r["run"], r["label"], r["file"], r["board"], r["cpu"], r["platform"], r["date"],
                1 if r["partial"] else 0]
        for m in r["measurements"]:
            d = m.get("decimals", 0)
            if m["value"] is None:      # a count no counter counted here: null, never 0
                yield head + [m["mode"], m["probe"], m["metric"], "", m["unit"], "", ""]
                continue
            yield head + [m["mode"], m["probe"], m["metric"], fixed(m["value"], d), m["unit"],
                          m["line"], ";".join(fixed(s, d) for s in m["samples"])]


def write_csv(model, path):
    def write(f):
        w = csv.writer(f, lineterminator="\n")
        w.writerow(CSV_HEAD)
        w.writerows(csv_rows(model))
    return write_text(path, write)


def write_json(model, path):
    """The runs, their tables as data and the comparisons (the inputs and
    the status are this command's own)."""
    public = {k: model[k] for k in ("mmureport", "runs", "runs_listed", "runs_block", "tables",
                                    "comparisons") if k in model}
    return write_text(path, lambda f: (json.dump(public, f, ensure_ascii=False),
                                       f.write("\n")))
