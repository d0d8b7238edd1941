"""Write-back: insights from memory written into the person's own notes, journaled and undoable."""
