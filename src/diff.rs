//! Semantic diff of two checkpoints. (Issue 10; being built.)
