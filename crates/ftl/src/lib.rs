//! wafer-ftl (under construction).
