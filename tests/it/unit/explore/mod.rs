//! Unit tests of `tracepor::explore`: one module per file of src/explore/ that has them.
