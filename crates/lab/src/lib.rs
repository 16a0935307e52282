//! wafer-lab (under construction).
