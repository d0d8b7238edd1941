"""One rule for folders a source or the write-back leaves out."""

from mnemo.sources.ignore import in_folders, is_ignored


def test_a_path_is_in_a_folder_named_with_or_without_slashes() -> None:
    assert in_folders("Templates/Daily.md", ("Templates",))
    assert in_folders("Templates/Daily.md", ("/Templates/",))
    assert in_folders("Templates", ("Templates/",))
    assert not in_folders("Templates2/Daily.md", ("Templates",))
    assert not in_folders("Daily.md", ("", "/"))


def test_tool_folders_and_temp_files_are_ignored() -> None:
    assert is_ignored(".obsidian/workspace.json") and is_ignored("notes/.#draft.md")
    assert not is_ignored("notes/draft.md")
