"""Source formats, each turning files into Documents, and the incremental scanner."""
