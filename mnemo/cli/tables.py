"""Tables that fit the terminal without cutting a cell: long text wraps, and a word longer than its
column (an id, a path) folds onto the next line instead of ending in '…'. Columns of ids a person
copies into another command (`mnemo unmerge ID`) are kept on one line as far as the width allows.
`--json` stays the complete, machine-readable form."""

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table


def fitting_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], *, whole: Sequence[str] = (),
                  right: Sequence[str] = (), show_lines: bool = False, width: int | None = None) -> Table:
    """A table of `rows` under `columns`; cells fold instead of being cut. A `whole` column keeps
    each cell on one line (the other columns give way) while its longest cell takes at most half
    the terminal's `width` (the current terminal's by default); past that it folds too."""
    table = Table(title=title, show_lines=show_lines)
    limit = (width or Console().width) // 2
    for index, column in enumerate(columns):
        longest = max((len(row[index]) for row in rows), default=0)
        table.add_column(column, overflow="fold", justify="right" if column in right else "left",
                         no_wrap=column in whole and longest <= limit)
    for row in rows:
        table.add_row(*row)
    return table
