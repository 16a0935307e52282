//! wafer-ssd (under construction).
