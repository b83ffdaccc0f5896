"""Shared by the whole suite: pytest puts this folder on sys.path, so test files in the
game folders can import its helper modules (`course_clock`)."""
