"""Recall: finding what memory holds for a question, fast (eager) or thorough (deliberate)."""
