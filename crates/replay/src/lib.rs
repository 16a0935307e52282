//! wafer-replay (under construction).
