//! Verification-results exports through every command (issue 12).
